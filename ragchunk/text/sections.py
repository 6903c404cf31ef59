"""Questions about a document's sections by offset: its heading path, its heading scopes.

Sections come in document order (``Document.sections``); a chunk sits under the heading path of
the last section starting at or before its start. Record building, strategies and the engine's
passes all ask these questions, so they are answered in one place.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragchunk.model import Section


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
    """Return ``scope(offset)``: a number that changes at every heading and heading-path change."""
    starts: list[int] = []
    previous: tuple[str, ...] | None = None
    for section in sections:
        if section.kind == "heading" or section.headings != previous:
            starts.append(section.start)
        previous = section.headings

    def scope(offset: int) -> int:
        return bisect_right(starts, offset)

    return scope
