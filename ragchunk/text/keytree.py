"""Whole objects of a data file: its sections grouped by the subtrees of their key paths.

The data formats (``json``, ``jsonl``, ``yaml``, ``toml``) tile their text into ``value``
sections cut between members, each carrying the key path where it starts as its heading path
(a container's own path, a scalar's parent's path). The sections of one subtree of the key
tree (an object or list with everything in it) are consecutive and share their path's prefix,
so the tree needs no other record: ``object_groups`` packs the largest whole subtrees that fit,
and splits one that does not between its members, recursively, with the same rule. Only a
section too large alone is left for the caller to split (a long string, a long scalar line).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from ragchunk.model import Section

DATA_KIND: Final = "value"
"""The kind of the sections a data file's members start (``parsers/_keypaths``)."""


def is_data(sections: Sequence[Section]) -> bool:
    """Whether a run of sections is a data file's: members (``value``) and their headings."""
    kinds = {section.kind for section in sections}
    return DATA_KIND in kinds and kinds <= {DATA_KIND, "heading"}


def object_groups(
    sections: Sequence[Section], fits: Callable[[int, int], bool]
) -> list[list[Section]]:
    """Return the sections packed into groups of whole subtrees, in document order.

    ``fits(start, end)`` says whether ``[start, end)`` may be one chunk. Consecutive members
    (a scalar, or a whole object or list) share a group while it fits; a subtree that does not
    fit alone is split between its own members by the same rule, one level down. A group that
    does not fit is a single section too large alone.
    """
    groups: list[list[Section]] = []
    _pack(sections, 0, fits, groups)
    return groups


def _pack(
    sections: Sequence[Section],
    depth: int,
    fits: Callable[[int, int], bool],
    groups: list[list[Section]],
) -> None:
    run: list[Section] = []
    for unit in _units(sections, depth):
        if run and fits(run[0].start, unit[-1].end):
            run += unit
            continue
        if run:
            groups.append(run)
            run = []
        if fits(unit[0].start, unit[-1].end) or len(unit) == 1:
            run = list(unit)
        else:
            _pack(unit, depth + 1, fits, groups)
    if run:
        groups.append(run)


def _units(sections: Sequence[Section], depth: int) -> Iterator[Sequence[Section]]:
    """Yield the members at ``depth``: a section of the node itself, or a child's subtree.

    A section whose path is no longer than ``depth`` belongs to the node (its opening line,
    its scalars) and is a unit alone; consecutive sections under one child's path (its first
    ``depth + 1`` keys) are that child's subtree.
    """
    start = 0
    while start < len(sections):
        path = sections[start].headings
        end = start + 1
        if len(path) > depth:
            child = path[: depth + 1]
            while end < len(sections) and sections[end].headings[: depth + 1] == child:
                end += 1
        yield sections[start:end]
        start = end
