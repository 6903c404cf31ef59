"""PDF cleaning, line by line: characters, then running headers, footers and watermarks.

``normalise`` turns ligature code points (U+FB00-U+FB06) into their letters, drops control
characters other than tab (NUL included: PostgreSQL rejects it), soft hyphens and the
noncharacters U+FFFE/U+FFFF, replaces lone surrogates (broken font maps) with U+FFFD, and
gives the list bullets of symbol fonts that a PDF leaves in the Private Use Area as the
characters they show (``SYMBOL_BULLETS``).

``remove_repeated`` finds lines repeated across pages, comparing them with digits (and a line
that is only a roman numeral) read as ``#``, so ``Page 3 of 8`` matches ``Page 4 of 8``:
- a header is among the top ``ZONE_LINES`` lines of its page, in its top ``ZONE_SHARE``, and a
  footer likewise at the bottom, on at least ``min_pages`` pages;
- a watermark is printed at an angle on at least two pages, or is anywhere outside those
  zones on at least half the pages (and three).
A line found on one page only is never removed. What is removed is returned per page.
"""

from __future__ import annotations

import math
import operator
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, Literal

from ragchunk.parsers.pdf.lines import PageLines

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ragchunk.model import JSONValue

ZONE_LINES: Final = 3
"""Lines from a page's top (bottom) edge that may be a running header (footer)."""
ZONE_SHARE: Final = 0.2
"""The share of a page's height, from its top (bottom) edge, where a header (footer) lies."""
HEADER_SHARE: Final = 0.2
"""A running header or footer is on at least this share of the pages (and two of them)."""
LIGATURES: Final = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",
    "\ufb06": "st",
}
SYMBOL_BULLETS: Final = {
    "\uf0b7": "\u2022",  # Symbol's bullet: Word's default
    "\uf0a7": "\u25aa",  # Wingdings' small square
    "\uf0a8": "\u2666",  # Symbol's diamond
    "\uf06e": "\u25a0",  # Wingdings' square
    "\uf076": "\u2756",  # Wingdings' four diamonds
    "\uf0d8": "\u27a2",  # Wingdings' arrowhead
    "\uf0fc": "\u2714",  # Wingdings' check mark
}
"""List bullets of Word's symbol fonts and the characters they show. A PDF whose font has no
Unicode map gives such a glyph as U+F000 plus its code in the font (Private Use Area); only a
line's first character, before a space, is read as a bullet (elsewhere the same code may be a
letter of the Symbol font: U+F06E is its nu)."""
_LIGATURE: Final = re.compile("[\ufb00-\ufb06]")
_DROPPED: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\ufffe\uffff]")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_DIGITS: Final = re.compile(r"\d+")
_ROMAN: Final = re.compile(r"[ivxlcdm]+", re.IGNORECASE)

Kind = Literal["header", "footer", "watermark"]


@dataclass(frozen=True, slots=True)
class Removed:
    """A line left out of the text: its page (1-based), why, and its text."""

    page: int
    kind: Kind
    text: str


@dataclass(slots=True)
class CharacterCounts:
    """How many characters ``normalise`` changed, by kind."""

    ligatures: int = 0
    controls: int = 0
    surrogates: int = 0
    bullets: int = 0


def normalise(
    pages: Sequence[PageLines], *, ligatures: bool, counts: CharacterCounts
) -> list[PageLines]:
    """Return the pages with each line's characters cleaned (``ligatures``: expand them)."""
    out = []
    for page in pages:
        lines = []
        for line in page.lines:
            text = _clean_characters(line.text, ligatures=ligatures, counts=counts)
            text = " ".join(text.split())
            if text:  # most lines are clean already: no copy then (dataclass replace is slow)
                lines.append(line if text == line.text else replace(line, text=text))
        same = len(lines) == len(page.lines) and all(map(operator.is_, lines, page.lines))
        out.append(page if same else replace(page, lines=tuple(lines)))
    return out


def _clean_characters(text: str, *, ligatures: bool, counts: CharacterCounts) -> str:
    if ligatures and _LIGATURE.search(text):
        counts.ligatures += len(_LIGATURE.findall(text))
        text = _LIGATURE.sub(lambda match: LIGATURES[match.group()], text)
    if _DROPPED.search(text):
        counts.controls += len(_DROPPED.findall(text))
        text = _DROPPED.sub("", text)
    if _SURROGATE.search(text):
        counts.surrogates += len(_SURROGATE.findall(text))
        text = _SURROGATE.sub("\ufffd", text)
    if text[:1] in SYMBOL_BULLETS and text[1:2].isspace():
        counts.bullets += 1
        text = SYMBOL_BULLETS[text[0]] + text[1:]
    return text


def line_key(text: str) -> str:
    """Return the form lines are compared in: case-folded, digits and page numerals as ``#``."""
    folded = " ".join(unicodedata.normalize("NFKC", text).casefold().split())
    if _ROMAN.fullmatch(folded):
        return "#"
    return _DIGITS.sub("#", folded)


def remove_repeated(
    pages: Sequence[PageLines], *, headers: bool, watermarks: bool
) -> tuple[list[PageLines], list[Removed]]:
    """Return the pages without running headers, footers (``headers``) and watermarks.

    Also returns what was removed, page by page, in reading order.
    """
    keys = [[line_key(line.text) for line in page.lines] for page in pages]
    kinds: list[dict[int, Kind]] = [{} for _ in pages]
    if headers:
        for kind in ("header", "footer"):
            _mark_zone(pages, keys, kinds, kind)
    if watermarks:
        zones = [{*_zone(page, "header"), *_zone(page, "footer")} for page in pages]
        _mark_watermarks(pages, keys, kinds, zones)
    kept, removed = [], []
    for number, (page, marked) in enumerate(zip(pages, kinds, strict=True), start=1):
        lines = []
        for index, line in enumerate(page.lines):
            if index in marked:
                removed.append(Removed(number, marked[index], line.text))
            else:
                lines.append(line)
        kept.append(replace(page, lines=tuple(lines)))
    return kept, removed


def min_pages(count: int) -> int:
    """Return on how many pages a line must repeat to be a running header or footer."""
    return max(2, math.ceil(count * HEADER_SHARE))


def _mark_zone(
    pages: Sequence[PageLines],
    keys: Sequence[Sequence[str]],
    kinds: list[dict[int, Kind]],
    kind: Kind,
) -> None:
    zones = [_zone(page, kind) for page in pages]
    seen = Counter(
        key
        for page_keys, zone in zip(keys, zones, strict=True)
        for key in {page_keys[index] for index in zone}
    )
    wanted = min_pages(len(pages))
    for page_keys, zone, marked in zip(keys, zones, kinds, strict=True):
        for index in zone:
            if seen[page_keys[index]] >= wanted and index not in marked:
                marked[index] = kind


def _zone(page: PageLines, kind: Kind) -> list[int]:
    """Return the indices of the lines that may be a running header (footer) of the page."""
    indices = list(range(len(page.lines)))
    placed = page.height > 0 and any(line.bottom > 0 for line in page.lines)
    if not placed:
        return indices[:ZONE_LINES] if kind == "header" else indices[-ZONE_LINES:]
    if kind == "header":
        ordered = sorted(indices, key=lambda index: page.lines[index].top)[:ZONE_LINES]
        return [i for i in ordered if page.lines[i].top <= page.height * ZONE_SHARE]
    ordered = sorted(indices, key=lambda index: -page.lines[index].bottom)[:ZONE_LINES]
    return [i for i in ordered if page.lines[i].bottom >= page.height * (1 - ZONE_SHARE)]


def _mark_watermarks(
    pages: Sequence[PageLines],
    keys: Sequence[Sequence[str]],
    kinds: list[dict[int, Kind]],
    zones: Sequence[set[int]],
) -> None:
    angled = _pages_per_key(keys, pages, rotated=True)
    anywhere = _pages_per_key(keys, pages, rotated=None)
    common = max(3, math.ceil(len(pages) / 2))
    for page, page_keys, marked, zone in zip(pages, keys, kinds, zones, strict=True):
        for index, (line, key) in enumerate(zip(page.lines, page_keys, strict=True)):
            if index in marked or not any(ch.isalpha() for ch in key):
                continue
            if (line.rotated and angled[key] >= 2) or (
                anywhere[key] >= common and index not in zone
            ):
                marked[index] = "watermark"


def _pages_per_key(
    keys: Sequence[Sequence[str]], pages: Sequence[PageLines], *, rotated: bool | None
) -> Counter[str]:
    """Count the pages each key is on (only its angled lines when ``rotated``)."""
    counts: Counter[str] = Counter()
    for page, page_keys in zip(pages, keys, strict=True):
        counts.update(
            {
                key
                for line, key in zip(page.lines, page_keys, strict=True)
                if rotated is None or line.rotated
            }
        )
    return counts


def removed_report(removed: Iterable[Removed]) -> list[JSONValue]:
    """Return the removed lines as JSON values for ``Document.extraction``."""
    return [{"page": item.page, "kind": item.kind, "text": item.text} for item in removed]
