"""Where text may be cut: grapheme clusters, words, and whitespace.

Every function takes the whole text and absolute offsets; none slices out a piece.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_ZWJ: Final = "\u200d"
_WORD_START: Final = re.compile(r"(?<=\s)\S")


def _is_extend(ch: str) -> bool:
    """Return whether ``ch`` attaches to the character before it (grapheme Extend/SpacingMark)."""
    o = ord(ch)
    if o < 0x300:
        return False
    if unicodedata.category(ch) in ("Mn", "Me", "Mc"):
        return True
    return (
        o == 0x200D
        or 0xFE00 <= o <= 0xFE0F
        or 0x1F3FB <= o <= 0x1F3FF
        or 0xE0020 <= o <= 0xE007F
        or 0xE0100 <= o <= 0xE01EF
    )


def _is_control(ch: str) -> bool:
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def _is_regional_indicator(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def _hangul_kind(ch: str) -> str:
    o = ord(ch)
    if 0x1100 <= o <= 0x115F or 0xA960 <= o <= 0xA97F:
        return "L"
    if 0x1160 <= o <= 0x11A7 or 0xD7B0 <= o <= 0xD7C6:
        return "V"
    if 0x11A8 <= o <= 0x11FF or 0xD7CB <= o <= 0xD7FB:
        return "T"
    if 0xAC00 <= o <= 0xD7A3:
        return "LV" if (o - 0xAC00) % 28 == 0 else "LVT"
    return ""


def is_grapheme_boundary(text: str, p: int) -> bool:
    """Return whether offset ``p`` lies between two extended grapheme clusters.

    Implements the rules of UAX #29 that matter for cutting real text: CR LF, controls, combining
    marks and other extenders, ZWJ sequences, regional-indicator pairs and Hangul syllables.
    """
    if p <= 0 or p >= len(text):
        return True
    prev, cur = text[p - 1], text[p]
    if prev == "\r" and cur == "\n":
        return False
    if _is_control(prev) or _is_control(cur):
        return True
    if _is_extend(cur) or prev == _ZWJ:
        return False
    if _is_regional_indicator(prev) and _is_regional_indicator(cur):
        run = 0
        q = p - 1
        while q >= 0 and _is_regional_indicator(text[q]):
            run += 1
            q -= 1
        return run % 2 == 0
    before, after = _hangul_kind(prev), _hangul_kind(cur)
    if not before or not after:
        return True
    if before == "L":
        return after == "T"
    if before in ("LV", "V"):
        return after not in ("V", "T")
    return after != "T"


def grapheme_floor(text: str, p: int, lo: int) -> int:
    """Return the last grapheme boundary in ``(lo, p]``, or ``p`` when there is none.

    Falling back to ``p`` keeps cuts moving forward when one cluster is larger than the budget.
    """
    q = p
    while q > lo:
        if is_grapheme_boundary(text, q):
            return q
        q -= 1
    return p


def grapheme_ceil(text: str, p: int, hi: int) -> int:
    """Return the first grapheme boundary in ``[p, hi]``, or ``hi`` when there is none."""
    q = p
    while q < hi:
        if is_grapheme_boundary(text, q):
            return q
        q += 1
    return hi


def next_word_start(text: str, lo: int, hi: int) -> int:
    """Return the first offset in ``[lo, hi)`` where a word begins after whitespace, or -1."""
    match = _WORD_START.search(text, lo, hi)
    return -1 if match is None else match.start()


def last_whitespace_end(text: str, lo: int, hi: int) -> int:
    """Return the end of the last whitespace run that ends in ``(lo, hi]``, or -1.

    A cut there leaves the whitespace with the left part and starts the next part on a word.
    """
    if hi > lo and text[hi - 1].isspace() and (hi == len(text) or not text[hi].isspace()):
        return hi
    match = _LAST_SPACE_BEFORE_WORD.match(text, lo, hi)
    return -1 if match is None else match.end()


def is_blank(text: str, start: int, end: int) -> bool:
    """Return whether ``text[start:end]`` holds only whitespace (or nothing)."""
    return _NON_SPACE.search(text, start, end) is None


def has_space(text: str, start: int, end: int) -> bool:
    """Return whether ``text[start:end]`` holds any whitespace."""
    return _SPACE.search(text, start, end) is not None


def last_separator_cut(text: str, lo: int, limit: int, levels: tuple[tuple[str, ...], ...]) -> int:
    """Return the cut in ``(lo, limit]`` right after the coarsest separator found there.

    ``levels`` run coarsest first; each level holds equivalent separators, of which the last
    occurrence wins. The separator stays with the text before the cut, so rejoining the parts
    gives the text back. With no separator in range, cut at the last grapheme boundary.
    """
    for level in levels:
        best = last_separator_end(text, lo, limit, level)
        if best > lo:
            return best
    return grapheme_floor(text, limit, lo)


def first_separator_end(text: str, lo: int, hi: int, separators: tuple[str, ...]) -> int:
    """Return the end of the first separator lying wholly in ``[lo, hi)``, or -1."""
    best = -1
    for separator in separators:
        p = text.find(separator, lo, hi)
        if p >= 0 and (best < 0 or p + len(separator) < best):
            best = p + len(separator)
    return best


def last_separator_end(text: str, lo: int, hi: int, separators: tuple[str, ...]) -> int:
    """Return the end of the last separator lying wholly in ``[lo, hi)``, or -1."""
    best = -1
    for separator in separators:
        p = text.rfind(separator, lo, hi)
        if p >= 0 and p + len(separator) > best:
            best = p + len(separator)
    return best


_NON_SPACE: Final = re.compile(r"\S")
# Greedy: the regex engine backs off from the end to the last space followed by a non-space,
# which a loop over characters in Python did ten times slower.
_LAST_SPACE_BEFORE_WORD: Final = re.compile(r"(?s:.*)\s(?=\S)")
_SPACE: Final = re.compile(r"\s")
