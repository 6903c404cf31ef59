"""Right-to-left lines from PDFium's characters in the order they are read (issue 30).

PDFium gives an Arabic, Persian or Hebrew line in logical order, but three things come out of
its bidirectional pass in the wrong place, and are put back from the characters' boxes:

- the letters of one glyph (lam-alef, ``لا``) come in the order they are drawn, alef first;
- a harakat mark (tanween ``ً``) that PDFium places before its letter, with a space of its
  own making in between (``أي ًضا``, ``بنا ًء``): the mark goes after the letter whose box
  holds it, and the space, which lies inside that letter's box, goes;
- the space a word processor keeps at the end of a left-to-right run (``وPython من``: the
  space is drawn between ``و`` and ``Python``, none between ``Python`` and ``من``): PDFium
  reads it before the run, so the run sticks to the next word (``و Pythonمن``); the space
  moves after the run when the run touches the right-to-left letter that follows it.

Nothing is added or removed but those spaces: every word stays a word of PDFium's text once
the ligature's and the mark's letters are in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise
from typing import Final
from unicodedata import bidirectional, category

_RIGHT_TO_LEFT: Final = frozenset({"R", "AL"})
"""Unicode bidirectional classes of right-to-left letters."""
_MIRRORED: Final = dict(zip("()[]{}<>\u00ab\u00bb", ")(][}{><\u00bb\u00ab", strict=True))
"""Brackets and their mirror images."""
_STOPS: Final = frozenset(".,:;!?\u060c\u061b\u061f")
"""Punctuation that ends a clause or sentence (Latin and Arabic)."""
_SLACK: Final = 0.5
"""Points by which glyphs may overlap and still stand in order."""
_TOUCHING: Final = 0.15
"""Glyphs closer than this many ems have no word gap between them."""


@dataclass(frozen=True, slots=True)
class Char:
    """A character of a line: its text, its left and right edge, and whether PDFium made it."""

    text: str
    left: float
    right: float
    generated: bool


def is_right_to_left(text: str) -> bool:
    """Whether ``text`` holds a right-to-left letter (Hebrew, Arabic, Persian...)."""
    return not text.isascii() and any(bidirectional(char) in _RIGHT_TO_LEFT for char in text)


def same_glyph(chars: list[Char], index: int) -> bool:
    """Whether the character at ``index`` is drawn by the glyph of the character before it."""
    if index == 0 or chars[index - 1].generated:
        return False
    before, char = chars[index - 1], chars[index]
    return (before.left, before.right) == (char.left, char.right)


def logical_line(chars: list[Char], size: float) -> str:
    """Return a right-to-left line's text in reading order (see the module docstring)."""
    chars = _words_in_reading_order(_marks_after_letters(chars))
    chars = _spaces_at_gaps(_stops_after_numbers(chars), size)
    text = "".join(char.text for char in _spaces_after_runs(chars, size))
    return _brackets_as_written(text)


def _brackets_as_written(text: str) -> str:
    """Return ``text`` with PDFium's mirroring of brackets undone.

    PDFium mirrors each bracket it reads right to left (``)2024 - 2026(``), but a PDF's text
    already holds the bracket as written (ToUnicode gives ``(`` for the glyph drawn as ``)``
    on the right of what it opens). A bracket between two left-to-right letters (``f(x)``) was
    read left to right and kept; numbers count as right to left here, as in the Unicode
    bidirectional algorithm's rule for neutrals (N1).
    """
    if not any(char in _MIRRORED for char in text):
        return text
    out = list(text)
    for index, char in enumerate(text):
        if char in _MIRRORED and not (
            _strong(text, index, -1) == "L" and _strong(text, index, 1) == "L"
        ):
            out[index] = _MIRRORED[char]
    return "".join(out)


def _strong(text: str, index: int, step: int) -> str:
    """Return the direction (``L`` or ``R``) of the first strong character from ``index``."""
    index += step
    while 0 <= index < len(text):
        kind = bidirectional(text[index])
        if kind == "L":
            return "L"
        if kind in _RIGHT_TO_LEFT | {"EN", "AN"}:
            return "R"
        index += step
    return "R"  # the line's ends: a right-to-left paragraph


def _right_to_left_letter(char: Char) -> bool:
    return not char.generated and bidirectional(char.text) in _RIGHT_TO_LEFT | {"NSM"}


def _middle(char: Char) -> float:
    return (char.left + char.right) / 2


def _words_in_reading_order(chars: list[Char]) -> list[Char]:
    """Return ``chars`` with each right-to-left word read in visual order put in reading order.

    PDFium reverses most right-to-left words, but not all (Chromium's PDFs: ``نيسحت`` for
    ``تحسين``): a word whose letters run left to right on the page is read from its right.
    """
    out: list[Char] = []
    index = 0
    while index < len(chars):
        end = index
        while end < len(chars) and _right_to_left_letter(chars[end]):
            end += 1
        if end == index:
            out.append(chars[index])
            index += 1
            continue
        out += _word_in_reading_order(chars[index:end])
        index = end
    return out


def _word_in_reading_order(word: list[Char]) -> list[Char]:
    letters = [char for char in word if category(char.text) != "Mn"]
    middles = [_middle(char) for char in letters]
    if not any(b > a + _SLACK for a, b in pairwise(middles)):
        return word
    letters.sort(key=lambda char: -_middle(char))  # stable: a ligature's letters keep order
    out = list(letters)
    for mark in (char for char in word if category(char.text) == "Mn"):
        holder = min(
            range(len(out)),
            key=lambda k: (not _holds(out[k], mark), abs(_middle(out[k]) - _middle(mark))),
        )
        while holder + 1 < len(out) and category(out[holder + 1].text) == "Mn":
            holder += 1
        out.insert(holder + 1, mark)
    return out


def _stops_after_numbers(chars: list[Char]) -> list[Char]:
    """Return ``chars`` with punctuation printed left of a number read after it.

    In a right-to-left line what is left of a number follows it (``عام 2023.``); PDFium reads
    the stop first (``عام .2023``).
    """
    out = list(chars)
    index = 0
    while index < len(out) - 1:
        char = out[index]
        end = index + 1
        while end < len(out) and not out[end].generated and out[end].text.isdigit():
            end += 1
        if (
            end > index + 1
            and not char.generated
            and char.text in _STOPS
            and not (index and out[index - 1].text.isdigit())  # inside a number: 47.500
            and char.right <= out[index + 1].left + _SLACK
        ):
            out[index:end] = [*out[index + 1 : end], char]
        index = end
    return out


def _ligatures(chars: list[Char]) -> list[Char]:
    """Return ``chars`` with each right-to-left ligature's letters in reading order."""
    out: list[Char] = []
    group: list[Char] = []
    for index, char in enumerate(chars):
        if group and not same_glyph(chars, index):
            out.extend(reversed(group) if is_right_to_left(_text(group)) else group)
            group = []
        group.append(char)
    out.extend(reversed(group) if is_right_to_left(_text(group)) else group)
    return out


def _text(chars: list[Char]) -> str:
    return "".join(char.text for char in chars)


def _holds(char: Char, mark: Char) -> bool:
    """Whether the middle of ``mark`` is over ``char``'s glyph."""
    middle = (mark.left + mark.right) / 2
    return not char.generated and char.left <= middle <= char.right and char.text.strip() != ""


def _marks_after_letters(chars: list[Char]) -> list[Char]:
    """Return the ligatures in order and each mark read before its letter put after it."""
    chars = _ligatures(chars)
    out: list[Char] = []
    index = 0
    while index < len(chars):
        char = chars[index]
        after = index + 1
        if (
            category(char.text) == "Mn"
            and after < len(chars)
            and _holds(chars[after], char)
            and not (out and _holds(out[-1], char))
        ):
            base = chars[after]
            if out and out[-1].text == " " and base.left <= out[-1].left <= base.right:
                out.pop()  # PDFium's space between the mark and its letter, inside the letter
            out += [base, char]
            index += 2
            continue
        out.append(char)
        index += 1
    return out


def _spaces_at_gaps(chars: list[Char], size: float) -> list[Char]:
    """Return ``chars`` with a space read after a bracket put before it where the gap is.

    ``الفترة) 2024``: the bracket is printed a word gap left of the letter before it and
    touches the number after it, so the space is read on the wrong side of the bracket.
    """
    out = list(chars)
    for index in range(2, len(out) - 1):
        before, mark, space = out[index - 2 : index + 1]
        if space.text != " " or mark.generated or mark.text not in _MIRRORED:
            continue
        if before.generated or not is_right_to_left(before.text):
            continue
        end = index + 1
        while end < len(out) and out[end].text.strip() and not out[end].generated:
            end += 1
        if end == index + 1:
            continue
        gap = before.left - mark.right
        touching = mark.left - max(char.right for char in out[index + 1 : end])
        if gap > _TOUCHING * size and touching < gap / 2:
            out[index - 1 : index + 1] = [space, mark]
    return out


def _left_to_right(char: Char) -> bool:
    return bidirectional(char.text) in {"L", "EN"} and char.text.strip() != ""


def _spaces_after_runs(chars: list[Char], size: float) -> list[Char]:
    """Move the space read before a left-to-right run after the run (module docstring).

    Only where the run touches the right-to-left letter that follows it: no gap, no space.
    """
    out = list(chars)
    index = 1
    while index < len(out) - 1:
        space = out[index]
        if space.text != " " or not is_right_to_left(out[index - 1].text):
            index += 1
            continue
        end = index + 1
        while end < len(out) and _left_to_right(out[end]):
            end += 1
        if end == index + 1 or end >= len(out) or not is_right_to_left(out[end].text):
            index = end
            continue
        run, following = out[index + 1 : end], out[end]
        if min(c.left for c in run) - following.right < _TOUCHING * size:
            out[index:end] = [*run, space]
        index = end
    return out
