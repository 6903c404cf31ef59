"""Outline (bookmark) entries placed on the printed headings they name.

A title is compared with the printed lines loosely: case, Unicode forms, ``&``/``and``,
punctuation and spacing do not count, nor does leading numbering (``I.``, ``2.1``, ``A.1``,
``Annex A``), and the remaining words need only be mostly the same (``MIN_SIMILARITY``). A
heading may take up to ``MAX_LINES`` lines (a number on a line of its own, a wrapped title).
An entry whose destination has a position is looked for from there down its page first, then
anywhere on its page after the heading before it. A title found nowhere starts its path at the
destination's position, or, with no position, is left out and reported: it never relabels a
whole page. A heading's path names its printed text.
"""

from __future__ import annotations

import difflib
import functools
import re
import unicodedata
from typing import TYPE_CHECKING, Final

from ragchunk.parsers.pdf.lines import Heading

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.parsers.pdf.info import OutlineEntry
    from ragchunk.parsers.pdf.lines import Line, PageLines

MIN_SIMILARITY: Final = 0.8
MAX_LINES: Final = 3
_NOT_WORD: Final = re.compile(r"[^\w.]+")
_NUMBER: Final = re.compile(r"\d+(?:\.\d+)*\.?|[a-z]\.(?:\d+(?:\.\d+)*\.?)?|[a-z]\)|\d+\)")
_ROMAN: Final = re.compile(
    r"(?=[mdclxvi])m{0,3}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
)
_LABELS: Final = frozenset({"annex", "appendix", "chapter", "section", "part", "article"})
_ABOVE: Final = 1.0
"""A destination may point this many ems above its heading's top."""


@functools.lru_cache(maxsize=4096)
def loose(text: str) -> tuple[str, ...]:
    """Return the words a heading is compared by: folded, numbering and punctuation gone."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("&", " and ")
    words = [word.strip(".") for word in _NOT_WORD.sub(" ", folded).split()]
    words = [word for word in words if word]
    index, labelled = 0, False
    while index < len(words) - 1:
        word = words[index]
        if word in _LABELS:
            labelled = True
        elif not _is_numbering(word, raw=folded, labelled=labelled):
            break
        index += 1
    return tuple(words[index:])


def _is_numbering(word: str, *, raw: str, labelled: bool) -> bool:
    """Return whether ``word`` numbers a heading: ``2.1``, ``a.1``, ``iv.`` (or after a label)."""
    if _NUMBER.fullmatch(word) and (not word.isalpha() or labelled or f"{word}." in raw):
        return True
    if _ROMAN.fullmatch(word):
        return labelled or f"{word}." in raw
    return labelled and len(word) == 1


def similarity(title: Sequence[str], printed: Sequence[str]) -> float:
    """Return how alike two loose word sequences are (1.0 the same)."""
    if not title or not printed:
        return 0.0
    matcher = difflib.SequenceMatcher(None, title, printed, autojunk=False)
    if matcher.real_quick_ratio() < MIN_SIMILARITY or matcher.quick_ratio() < MIN_SIMILARITY:
        return matcher.quick_ratio()  # an upper bound, already too low: no need to align
    return matcher.ratio()


def place_outline(
    entries: Sequence[OutlineEntry], pages: Sequence[PageLines]
) -> tuple[list[Heading], list[str]]:
    """Return the headings the outline's entries name, in text order, and the titles not placed.

    Each heading's path replaces the outline's titles by the printed ones found.
    """
    headings: list[Heading] = []
    missing: list[str] = []
    printed: dict[tuple[str, ...], str] = {}
    cursor = (-1, -1)
    for entry in entries:
        path = tuple(printed.get(entry.path[: k + 1], title) for k, title in enumerate(entry.path))
        page = pages[entry.page]
        start = cursor[1] + 1 if cursor[0] == entry.page else 0
        found = _find(entry, page, start)
        if found is not None:
            first, last = found
            title = " ".join(" ".join(line.text for line in page.lines[first : last + 1]).split())
            printed[entry.path] = title
            headings.append(Heading(entry.page, first, last, (*path[:-1], title)))
            cursor = (entry.page, last)
        elif entry.top is not None:
            first = _line_below(page.lines, entry.top, start)
            headings.append(Heading(entry.page, first, first - 1, path))
        else:
            missing.append(entry.title)
    headings.sort(key=lambda heading: (heading.page, heading.first, heading.last))
    return headings, missing


def _find(entry: OutlineEntry, page: PageLines, start: int) -> tuple[int, int] | None:
    """Return the first and last line of the printed heading ``entry`` names, or None."""
    title = loose(entry.title)
    lines = page.lines
    order = list(range(start, len(lines)))
    if entry.top is not None:
        below = _line_below(lines, entry.top, start)
        order = order[below - start :] + order[: below - start]
    best: tuple[float, int, int] | None = None
    for first in order:
        for last in range(first, min(first + MAX_LINES, len(lines))):
            score = similarity(
                title, loose(" ".join(line.text for line in lines[first : last + 1]))
            )
            if score >= MIN_SIMILARITY and (best is None or score > best[0]):
                best = (score, first, last)
        if best is not None:
            return best[1], best[2]
    return None


def _line_below(lines: Sequence[Line], top: float, start: int) -> int:
    """Return the first line at or after ``start`` whose top lies at or below ``top``."""
    for index in range(start, len(lines)):
        line = lines[index]
        if not line.placed or line.top >= top - _ABOVE * max(line.size, 1.0):
            return index
    return len(lines)
