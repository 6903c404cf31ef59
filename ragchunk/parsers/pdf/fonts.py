"""Headings from font sizes and weights, for PDFs without an outline or with a sparse one.

The body size is the size most characters are set in. A line set ``HEADING_RATIO`` times larger
(or more) is a heading, unless it continues a sentence (it starts in lowercase after a line of
its size that does not end one), ends like a clause or leads into what follows (``,`` ``;``
``:``), is printed at an angle, holds no letter (a page number) or only a web or mail address,
is set in a fixed-pitch font (code), or is too long to be a title (more than
``MAX_HEADING_LINES`` lines or ``MAX_HEADING_CHARS``). A line only a little larger than the
body with smaller text both above and below it is a label in a figure or a table, unless it
opens with a section number (``5.1``), which also starts a heading of its own. A line at the
body size set in bold (or, below that, italic) while the body is not, standing alone (the line
above ends a sentence or is not body text, the line below is plain body text), short
(``MAX_EMPHASIS_WORDS``), not ending a sentence, not a list item (a bullet, or the line below
going on in lowercase) nor an aside in parentheses, is a heading one level below the sized
ones. On a cover page (the first or last page, little body text) only the largest title
counts. A page setting most of its text smaller than the body (an inserted flyer) has its own
body size. Running headers and footers are gone before this runs, so their size never counts.
Consecutive heading lines of one size are one heading (a wrapped title, or a section number on
a line of its own); a display title (``DISPLAY_RATIO`` times the body) may shrink a little on
its second line. Sizes rank the headings: the largest is level 1.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import TYPE_CHECKING, Final

from ragchunk.parsers._builder import HeadingPath
from ragchunk.parsers.pdf.lines import Heading

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.parsers.pdf.lines import Line, PageLines

HEADING_RATIO: Final = 1.05
"""A line whose font is this many times the body size (or more) may be a heading."""
LABEL_RATIO: Final = 1.25
"""A line at most this many times the body size between smaller lines is a label."""
MAX_HEADING_CHARS: Final = 200
MAX_HEADING_LINES: Final = 3
MAX_EMPHASIS_WORDS: Final = 12
"""The most words a bold or italic heading at the body size has."""
COVER_BODY_SHARE: Final = 0.2
"""A first or last page with less of its text at the body size than this is a cover."""
SPARSE_OUTLINE: Final = 1
"""An outline placing this many headings (or fewer) is completed by the font headings."""
DISPLAY_RATIO: Final = 2.0
"""A line this many times the body size (or more) is display type: a cover's or a title's."""
DISPLAY_FIT: Final = 0.1
"""Two display lines whose sizes differ by less than this share are one title."""
PAGE_BODY_SHARE: Final = 0.6
"""A page setting this share of its text in one size smaller than the body has its own body."""
_ADDRESS: Final = re.compile(r"^\S*(?:://|www\.|@|\.(?:com|org|net|gov|edu)\b)\S*$", re.I)
_NUMBERED: Final = re.compile(r"^-?\d+(?:[.-]\d+)+[.-]?\s+\S")
"""A section number of two parts or more (``5.1``, ``2.1.7``; ``-2-5`` as a right-to-left
line's number reads in logical order)."""
_SAME_SIZE: Final = 0.5
_SENTENCE_END: Final = re.compile(r"[.!?:;]['\")\]]*$")
_CLAUSE_END: Final = re.compile(r"[,;:]$")
_BULLET: Final = re.compile(r"^[\u2022\u25e6\u25aa\u2023\u25cf\u25cb\u25a0\u25a1\u2043\u2219]")
_ASIDE: Final = re.compile(r"^\(.*\)$")
_LARGE, _BOLD, _ITALIC = "large", "bold", "italic"


def font_headings(pages: Sequence[PageLines]) -> list[Heading]:
    """Return the headings found by font size and weight, in text order, with their paths."""
    body = _body_size(pages)
    if body is None:
        return []
    emphasis = _emphasis_kinds(pages, body)
    found: list[tuple[int, int, int, float, str]] = []  # page, first, last, size, kind
    bodies = [_page_body(page, body) for page in pages]
    for number, page in enumerate(pages):
        lines = page.lines
        for index, line in enumerate(lines):
            kind = _kind(line, bodies[number], emphasis)
            if kind is None:
                continue
            previous = found[-1] if found else None
            if (
                previous is not None
                and previous[0] == number
                and previous[2] == index - 1
                and previous[4] == kind
                and _same_heading(previous[3], line, body)
            ):  # the next line of a heading: a wrapped title, or the title after its number
                found[-1] = (number, previous[1], index, previous[3], kind)
            elif not _continues(line, lines[index - 1] if index else None):
                found.append((number, index, index, line.size, kind))
    found = [f for f in found if _keeps(pages[f[0]].lines, f[1], f[2], f[4], bodies[f[0]])]
    found = _covers(found, pages, body)
    sizes = sorted({f[3] for f in found if f[4] == _LARGE}, reverse=True)
    ranks = {size: rank for rank, size in enumerate(sizes)}
    headings: list[Heading] = []
    path = HeadingPath()
    for number, first, last, size, kind in found:
        rank = ranks[size] if kind == _LARGE else len(sizes) + (kind == _ITALIC)
        lines = pages[number].lines[first : last + 1]
        path.enter(rank, " ".join(" ".join(line.text for line in lines).split()))
        headings.append(Heading(number, first, last, path.titles()))
    return headings


def with_sparse_outline(outline: Sequence[Heading], found: Sequence[Heading]) -> list[Heading]:
    """Return the outline's headings, and the font headings too when the outline is sparse.

    An outline of ``SPARSE_OUTLINE`` heading (a sampled document keeping only its title's
    bookmark) while the fonts show more leaves the rest to the fonts: each font heading not on
    an outline heading's lines goes under the outline heading before it, with those of its font
    ancestors that are kept and come after that one.
    """
    if len(outline) > SPARSE_OUTLINE or len(found) <= len(outline):
        return list(outline)
    taken = {(h.page, line) for h in outline for line in range(h.first, h.last + 1)}
    merged = list(outline)
    kept: list[Heading] = []
    for heading in found:
        if any((heading.page, line) in taken for line in range(heading.first, heading.last + 1)):
            continue
        at = (heading.page, heading.first)
        before = [h for h in outline if (h.page, h.first) <= at]
        prefix = before[-1].path if before else ()
        since = (before[-1].page, before[-1].first) if before else (-1, -1)
        # its font ancestors, as far as they are kept and come after the outline's heading
        own = {h.path[-1] for h in kept if (h.page, h.first) > since}
        path = (*prefix, *(t for t in heading.path[:-1] if t in own), heading.path[-1])
        kept.append(heading)
        merged.append(Heading(heading.page, heading.first, heading.last, path))
    merged.sort(key=lambda heading: (heading.page, heading.first, heading.last))
    return merged


def _body_size(pages: Sequence[PageLines]) -> float | None:
    weights: Counter[float] = Counter()
    for page in pages:
        for line in page.lines:
            if line.size > 0:
                weights[line.size] += len(line.text)
    return weights.most_common(1)[0][0] if weights else None


def _same_heading(size: float, line: Line, body: float) -> bool:
    """Return whether ``line`` goes on with a heading of ``size`` on the line above.

    A numbered line (``5.2``) starts its own; a display title's second line may be set a
    little smaller to fit (within ``DISPLAY_FIT``).
    """
    if _NUMBERED.search(line.text):
        return False
    if min(size, line.size) >= DISPLAY_RATIO * body:
        return abs(size - line.size) < DISPLAY_FIT * max(size, line.size)
    return abs(size - line.size) < _SAME_SIZE


def _page_body(page: PageLines, body: float) -> float:
    """Return a page's body size: the document's, or a smaller one most of the page is set in.

    An inserted flyer or a page of small print has its own body, and its headings are larger
    than that, not than the document's body.
    """
    weights: Counter[float] = Counter()
    for line in page.lines:
        if line.size > 0:
            weights[line.size] += len(line.text)
    if not weights:
        return body
    size, share = weights.most_common(1)[0]
    return size if size < body and share >= PAGE_BODY_SHARE * weights.total() else body


def _at_body(line: Line, body: float) -> bool:
    return abs(line.size - body) < _SAME_SIZE


def _emphasis_kinds(pages: Sequence[PageLines], body: float) -> frozenset[str]:
    """Return the emphases that mark a heading: bold, italic, unless the body is set so."""
    total = bold = italic = 0
    for page in pages:
        for line in page.lines:
            if _at_body(line, body):
                total += len(line.text)
                bold += len(line.text) * line.bold
                italic += len(line.text) * line.italic
    return frozenset(
        kind for kind, share in ((_BOLD, bold), (_ITALIC, italic)) if share * 2 < total
    )


def _kind(line: Line, body: float, emphasis: frozenset[str]) -> str | None:
    """Return how a line could be a heading (large, bold, italic), or None."""
    text = line.text
    if line.rotated or line.fixed or len(text) > MAX_HEADING_CHARS or _CLAUSE_END.search(text):
        return None
    if line.row is not None:  # a table's row (tables.py) heads nothing
        return None
    if _ADDRESS.search(text):
        return None
    if line.size >= body * HEADING_RATIO:
        return _LARGE
    if not _at_body(line, body):
        return None
    if line.bold and _BOLD in emphasis:
        return _BOLD
    if line.italic and not line.bold and _ITALIC in emphasis:
        return _ITALIC
    return None


def _plain_body(line: Line, body: float) -> bool:
    return _at_body(line, body) and not (line.bold or line.italic or line.fixed)


def _keeps(lines: Sequence[Line], first: int, last: int, kind: str, body: float) -> bool:
    """Return whether a run of candidate lines is a heading (not a paragraph, nor a label)."""
    run = lines[first : last + 1]
    if len(run) > MAX_HEADING_LINES or sum(len(line.text) for line in run) > MAX_HEADING_CHARS:
        return False
    if not any(char.isalpha() for line in run for char in line.text):
        return False  # a page number, a figure's digits
    above = lines[first - 1] if first else None
    below = lines[last + 1] if last + 1 < len(lines) else None
    if kind == _LARGE:
        small = [line for line in (above, below) if line is not None and line.size < body]
        numbered = bool(_NUMBERED.search(run[0].text))
        return numbered or not (len(small) == 2 and run[0].size <= body * LABEL_RATIO)
    text = " ".join(line.text for line in run)
    if len(text.split()) > MAX_EMPHASIS_WORDS or _SENTENCE_END.search(text):
        return False
    if text[:1].islower() or _BULLET.search(text) or _ASIDE.search(text):
        return False
    if below is None or not _plain_body(below, body) or below.text[:1].islower():
        return False
    return above is None or not _plain_body(above, body) or bool(_SENTENCE_END.search(above.text))


def _covers(
    found: list[tuple[int, int, int, float, str]], pages: Sequence[PageLines], body: float
) -> list[tuple[int, int, int, float, str]]:
    """Keep only the largest heading of a cover page (the first or last, little body text)."""
    if len(pages) < 2:
        return found
    kept = found
    for number in {0, len(pages) - 1}:
        lines = pages[number].lines
        total = sum(len(line.text) for line in lines)
        at_body = sum(len(line.text) for line in lines if _at_body(line, body))
        if total == 0 or at_body >= COVER_BODY_SHARE * total:
            continue
        on_page = [f for f in kept if f[0] == number]
        if on_page:
            title = max(on_page, key=lambda f: f[3])
            kept = [f for f in kept if f[0] != number or f is title]
    return kept


def _continues(line: Line, before: Line | None) -> bool:
    """Return whether a line goes on with the sentence of the (not heading) line above."""
    return (
        before is not None
        and abs(before.size - line.size) < _SAME_SIZE
        and not _SENTENCE_END.search(before.text)
        and line.text[:1].islower()
    )
