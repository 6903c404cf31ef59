"""Questions about a document's sections by offset: its heading path, its heading scopes.

Sections come in document order (``Document.sections``); a chunk sits under the heading path of
the last section starting at or before its start. Record building, strategies and the engine's
passes all ask these questions, so they are answered in one place.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.model import Section

BOUNDARY_KINDS: Final = frozenset({"heading", "headers", "message", "slide", "cue"})
"""Section kinds that start a unit of a document a structure-aware chunk does not run past
unless the unit alone exceeds the size: a heading, the headers of a message (an attached one
too), a slide, a subtitle's cue. Parsers name new units with one of these kinds."""

UNIT_KINDS: Final = frozenset({"headers", "message", "slide"})
"""Boundary kinds that also start a scope of their own, whatever the heading level: a message
(or one attached to it) and a slide are never joined with the one before."""

SLIDE_FORMATS: Final = frozenset({"pptx"})
"""Formats whose pages are slides: each page is a unit, titled or not (a PDF's pages are not)."""


def unit_starts(sections: Sequence[Section], format: str, page_starts: Iterable[int]) -> set[int]:
    """Return the starts of the sections that open a unit of their own: a message, a slide."""
    starts = {section.start for section in sections if section.kind in UNIT_KINDS}
    if format in SLIDE_FORMATS:
        firsts = sorted(section.start for section in sections)
        for page in page_starts:
            k = bisect_left(firsts, page)
            if k < len(firsts):
                starts.add(firsts[k])
    return starts


def heading_lookup(sections: Sequence[Section]) -> Callable[[int], tuple[str, ...]]:
    """Return ``headings_at(offset)``: the heading path of the section at ``offset``."""
    return _HeadingLookup(sections)


class _HeadingLookup:
    """The heading path of the section at an offset (the last section starting at or before)."""

    __slots__ = ("_sections", "_starts")

    def __init__(self, sections: Sequence[Section]) -> None:
        self._sections = sections
        self._starts = [s.start for s in sections]

    def __call__(self, offset: int) -> tuple[str, ...]:
        if not self._starts:
            return ()
        k = bisect_right(self._starts, offset) - 1
        return self._sections[k].headings if k >= 0 else ()


def scopes(sections: Sequence[Section], level: int) -> Iterator[list[Section]]:
    """Yield runs of sections, each starting at a heading of ``level`` or shallower."""
    run: list[Section] = []
    for section in sections:
        if section.kind == "heading" and 0 < section.level <= level and run:
            yield run
            run = []
        run.append(section)
    if run:
        yield run


def heading_scopes(sections: Sequence[Section]) -> Callable[[int], int]:
    """Return ``scope(offset)``: a number that changes at every heading and heading-path change.

    Titles stacked with nothing between them (``Chapter 5`` over ``The Context``) are one
    scope with the text they head: a title is never a scope of its own.
    """
    starts: list[int] = []
    previous: tuple[str, ...] | None = None
    titles = False  # whether the scope so far holds only headings
    for section in sections:
        heading = section.kind == "heading"
        if (heading or section.headings != previous) and not titles:
            starts.append(section.start)
        titles = heading and (titles or not starts or starts[-1] == section.start)
        previous = section.headings

    def scope(offset: int) -> int:
        return bisect_right(starts, offset)

    return scope
