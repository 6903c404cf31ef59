"""PDF cleaning, line by line: characters, then running headers, footers and watermarks.

``normalise`` turns ligature code points (U+FB00-U+FB06) into their letters, drops control
characters other than tab (NUL included: PostgreSQL rejects it), soft hyphens and the
noncharacters U+FFFE/U+FFFF, replaces lone surrogates (broken font maps) with U+FFFD, and
gives the list bullets of symbol fonts that a PDF leaves in the Private Use Area as the
characters they show (``SYMBOL_BULLETS``).

``remove_repeated`` finds lines repeated across pages, comparing headers and footers with digits
(and a line that is only a roman numeral) read as ``#``, so ``Page 3 of 8`` matches ``Page 4 of
8``, and watermarks as they are written, so numbered headings (``2 Bar``, ``5 Bar``) are none:
- a header is among the top ``ZONE_LINES`` lines of its page, in its top ``ZONE_SHARE``, and a
  footer likewise at the bottom, on at least ``min_pages`` pages or on ``CHAPTER_RUN`` pages in
  a row (every page or every other page: a chapter's running head), never a line that ends in a
  hyphen-broken word or is a full line of prose (``_body_line``);
- a watermark is printed at an angle on at least two pages, or is anywhere outside those
  zones on at least half the pages (and three).
A line found on one page only is never removed. What is removed is returned per page.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final, Literal

from ragchunk.parsers.pdf.lines import Line, PageLines

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ragchunk.model import JSONValue

ZONE_LINES: Final = 3
"""Lines from a page's top (bottom) edge that may be a running header (footer)."""
ZONE_SHARE: Final = 0.2
"""The share of a page's height, from its top (bottom) edge, where a header (footer) lies."""
HEADER_SHARE: Final = 0.2
"""A running header or footer is on at least this share of the pages (and two of them)."""
CHAPTER_RUN: Final = 3
"""Or on this many pages in a row (every page, or every other page): a chapter's running head."""
BODY_WORDS: Final = 8
FULL_WIDTH: Final = 0.85
"""A line of ``BODY_WORDS`` words without a wide gap, this share of its page's widest line or
wider, is a full line of prose: never a running header or footer."""
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
_BROKEN_WORD: Final = re.compile(r"[^\W\d_]-$")

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


def exact_key(text: str) -> str:
    """Return the form watermarks are compared in: case-folded, digits as they are."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


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
    if watermarks:  # a watermark repeats exactly: numbered headings differ in their digits
        zones = [{*_zone(page, "header"), *_zone(page, "footer")} for page in pages]
        exact = [[exact_key(line.text) for line in page.lines] for page in pages]
        _mark_watermarks(pages, exact, kinds, zones)
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
    zones = [
        [index for index in _zone(page, kind) if not _body_line(page, index)] for page in pages
    ]
    on_pages: dict[str, list[int]] = {}
    for number, (page_keys, zone) in enumerate(zip(keys, zones, strict=True)):
        for key in {page_keys[index] for index in zone}:
            on_pages.setdefault(key, []).append(number)
    wanted = min_pages(len(pages))
    running = {key for key, numbers in on_pages.items() if _running(numbers, wanted)}
    for page_keys, zone, marked in zip(keys, zones, kinds, strict=True):
        for index in zone:
            if page_keys[index] in running and index not in marked:
                marked[index] = kind


def _running(numbers: Sequence[int], wanted: int) -> bool:
    """Whether a line in the zone of pages ``numbers`` runs with them: a header or footer.

    It does when it is on ``wanted`` pages of the document, or on ``CHAPTER_RUN`` pages or
    more, each at most two pages after the one before (a chapter's running head, on every page
    or every other page).
    """
    if len(numbers) >= wanted:
        return True
    longest = run = 1
    for before, after in itertools.pairwise(numbers):
        run = run + 1 if after - before <= 2 else 1
        longest = max(longest, run)
    return longest >= CHAPTER_RUN


def _body_line(page: PageLines, index: int) -> bool:
    """Whether a line is plainly body text, never a running header or footer.

    It is when it ends in a word broken by a hyphen, or when it is a full line of prose:
    ``BODY_WORDS`` words or more, without a wide gap (a running head set across the page with
    a tab has one), as wide as the widest lines of its page; and when it goes on after such a
    line in the same size.
    """
    line = page.lines[index]
    if _BROKEN_WORD.search(line.text) or _prose(page, line):
        return True
    if index == 0:
        return False
    above = page.lines[index - 1]  # a line that goes on with a line of body text is body text
    return above.size == line.size and (
        bool(_BROKEN_WORD.search(above.text)) or _prose(page, above)
    )


def _prose(page: PageLines, line: Line) -> bool:
    """Whether a line is a full line of prose (see ``_body_line``)."""
    if line.spaced or len(line.text.split()) < BODY_WORDS:
        return False
    widest = max(other.right - other.left for other in page.lines)
    return widest > 0 and line.right - line.left >= FULL_WIDTH * widest


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
