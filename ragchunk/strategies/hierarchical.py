"""hierarchical: one chunk per heading subtree down to ``max_depth`` (SPEC §4).

A chunk runs from a heading of level ``max_depth`` or shallower to the next such heading, so it
holds the heading, its text and every deeper subsection; text before the first heading is a
chunk of its own, and so is each message (a ``headers`` section) and each slide of a deck.
Headings come from the parsed sections (Markdown, DOCX styles, PDF outline or font sizes, HTML,
EPUB...); a document parsed without sections is read as Markdown. A title directly above
another heading is no subtree of its own: it goes with what follows. Page ranges follow from
the offsets (the min and max page of the merged sections). Unbounded by design: a subtree is as
long as the document makes it, unless ``--size`` is given; then a subtree larger than the size
is cut at its own structure (``_groups``: messages and slides, then its headings from the top
level down, then other boundaries such as cues, then its sections), whole groups packed while
they fit, and only a section larger than the size alone is split by the recursive splitter,
its first piece keeping its titles when there is room. A subtree is not a block that had to
stay whole, so its pieces carry no ``oversize_split`` (SPEC §3.3: only a sentence, row, fence
or function that was split does).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.strategies._structure import Structure, structure
from ragchunk.text.pack import Window
from ragchunk.text.sections import BOUNDARY_KINDS, unit_starts
from ragchunk.text.sentences import strip_span
from ragchunk.text.separators import split_range
from ragchunk.text.spans import spans_from_windows
from ragchunk.text.tables import split_table

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from collections.abc import Set as AbstractSet

    from ragchunk.model import Document, Section
    from ragchunk.options import Capacity

_ENDS = frozenset(".!?:;…。！？")
"""What the piece of text kept beside its titles ends with (or a line end)."""
MAX_LEVEL = 9
"""The deepest heading level a parser reports (DOCX has Heading 1-9)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class HierarchicalOptions:
    """Options of the hierarchical strategy."""

    budget: Budget = Budget(size=1024, overlap=0)
    max_depth: int = field(
        default=3,
        metadata={
            "help": "The deepest heading level that starts its own chunk (1-9); deeper "
            "subsections stay inside their parent's chunk."
        },
    )

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= MAX_LEVEL:
            raise OptionError(
                "max_depth", f"must be between 1 and {MAX_LEVEL} (got {self.max_depth})"
            )


def split(doc: Document, options: HierarchicalOptions, ctx: Context) -> list[Span]:
    """Return one span per heading subtree; refined to ``ctx.capacity`` when it is hard.

    Spans are absolute, half-open and in document order; together they cover the document.
    """
    cut = _Cutter(doc, structure(doc, ctx), ctx)
    runs = _scopes(cut.found.sections, options.max_depth, cut.units)
    return [span for run in runs for span in cut.run(run)]


def _scopes(
    sections: Sequence[Section], level: int, units: AbstractSet[int]
) -> Iterator[list[Section]]:
    """Yield runs of sections, each from a heading of ``level`` or shallower, or a unit.

    A unit (``units``) starts at a message or a slide; a run that is only titles goes on.
    """
    run: list[Section] = []
    for section in sections:
        starts = section.start in units or (
            section.kind == "heading" and 0 < section.level <= level
        )
        if starts and run and not _only_headings(run):
            yield run
            run = []
        run.append(section)
    if run:
        yield run


def _only_headings(run: Sequence[Section]) -> bool:
    """Whether a run holds nothing but headings: a title its first subsection keeps."""
    return all(section.kind == "heading" for section in run)


class _Cutter:
    """Spans of runs of sections: a run that fits is one span; a larger one is cut.

    It is cut at its coarsest structure first (units, then headings from the top level down,
    then its sections, packed whole while they fit), and only a section larger than the size
    alone is split.
    """

    def __init__(self, doc: Document, found: Structure, ctx: Context) -> None:
        self.text, self.wraps, self.found = doc.text, doc.wraps, found
        self.sizer, self.capacity = found.ctx.sizer, ctx.capacity
        pages = (page.start for page in doc.pages)
        self.units = frozenset(unit_starts(found.sections, doc.format, pages))

    def run(self, run: Sequence[Section]) -> list[Span]:
        """Return the spans of one run of sections (a subtree, a unit, a section)."""
        span = strip_span(self.text, run[0].start, run[-1].end)
        if span is None:
            return []
        start, end = span
        if self.capacity.fits(self.sizer, start, end):
            return [Span(start, end, self._headings(run))]
        groups = _groups(run, self.units)
        if len(groups) == 1:
            table = _table(run)
            if table is not None:  # between rows, its titles with the first
                sizer, capacity = self.sizer, self.capacity
                windows = split_table(self.text, table, start, end, sizer=sizer, capacity=capacity)
            else:
                body = next((s.start for s in run if s.kind != "heading"), start)
                windows = self._titled(start, max(start, min(body, end)), end)
            return spans_from_windows(self.text, windows, headings_at=self.found.headings_at)
        return self._pack(groups)

    def _titled(self, start: int, body: int, end: int) -> list[Window]:
        """Return windows of ``[start, end)``, the first holding the titles ``[start, body)``.

        The titles go with the beginning of their text; they are cut off it only when a quarter
        of the size is not left beside them, or that text would end inside a sentence.
        """
        windows = self._windows(body, end, self.capacity)
        if body == start or not windows:
            return windows
        if self.capacity.fits(self.sizer, start, windows[0].end):
            return [windows[0]._replace(start=start), *windows[1:]]
        room = self.capacity.size - self.sizer.size(start, body)
        if room >= max(1, self.capacity.size // 4):
            beside = replace(self.capacity, size=room, overlap=min(self.capacity.overlap, room - 1))
            head = self._windows(body, end, beside)[0]
            ends = (
                self.text[: head.end].rstrip()[-1:] in _ENDS
                or self.text[head.end : head.end + 1] == "\n"
            )
            if ends and self.capacity.fits(self.sizer, start, head.end):
                return [head._replace(start=start), *self._windows(head.end, end, self.capacity)]
        titles = start + len(self.text[start:body].rstrip())
        if self.capacity.fits(self.sizer, start, titles):
            return [Window(start, titles, oversize=False, split=False), *windows]
        return [*self._windows(start, titles, self.capacity), *windows]  # titles too long

    def _windows(self, start: int, end: int, capacity: Capacity) -> list[Window]:
        return split_range(
            self.text, start, end, sizer=self.sizer, capacity=capacity, wraps=self.wraps
        )

    def _pack(self, groups: list[list[Section]]) -> list[Span]:
        """Pack consecutive groups whole while they fit; a group too large alone is cut."""
        spans: list[Span] = []
        packed: list[Section] = []
        for group in groups:
            if packed and self._fits([*packed, *group]):
                packed += group
                continue
            if packed:
                spans += self.run(packed)
            packed = list(group)
            if not self._fits(packed):
                spans += self.run(packed)
                packed = []
        return spans + (self.run(packed) if packed else [])

    def _fits(self, run: Sequence[Section]) -> bool:
        span = strip_span(self.text, run[0].start, run[-1].end)
        return span is None or self.capacity.fits(self.sizer, *span)

    def _headings(self, run: Sequence[Section]) -> tuple[str, ...]:
        """Return the heading path of a run: the one at its start (a subtree's own).

        It is cut back to the part all its sections share (sibling subsections packed
        together: their parent's).
        """
        first = self.found.headings_at(run[0].start)
        shared = len(first)
        for section in run[1:]:
            path = section.headings
            shared = min(shared, len(path))
            shared = next((i for i in range(shared) if first[i] != path[i]), shared)
        return first[:shared]


def _table(run: Sequence[Section]) -> Section | None:
    """Return the run's table when it is one table of rows, titled or not, else None."""
    *titles, last = run
    if last.kind == "table" and last.parts and _only_headings(titles):
        return last
    return None


def _groups(run: Sequence[Section], units: AbstractSet[int]) -> list[list[Section]]:
    """Split a run too large for one span at its coarsest inner structure.

    The units (``units``: messages, slides) first, then the shallowest headings inside it,
    then other boundaries (``BOUNDARY_KINDS``: a cue), then one group per section; a group
    never ends with a heading (a title stays with what follows it).
    """
    inner = run[1:]
    levels = [s.level for s in inner if s.kind == "heading" and s.level > 0]
    tests: list[Callable[[Section], bool]] = [lambda s: s.start in units]
    if levels:
        top = min(levels)
        tests.append(lambda s: s.kind == "heading" and 0 < s.level <= top)
    tests += [lambda s: s.kind in BOUNDARY_KINDS, lambda _s: True]
    for starts in tests:
        if any(starts(section) for section in inner):
            groups: list[list[Section]] = [[run[0]]]
            for section in inner:
                if starts(section) and not _only_headings(groups[-1]):
                    groups.append([section])
                else:
                    groups[-1].append(section)
            if len(groups) > 1:
                return groups
    return [list(run)]


def _unbounded(_options: HierarchicalOptions) -> Bounds:
    return Bounds(bounded=False)


STRATEGY = Strategy(
    name="hierarchical",
    summary="One chunk per heading subtree down to max_depth (Markdown, DOCX, PDF). "
    "Unbounded by design unless --size is given; then long subtrees are refined.",
    options=HierarchicalOptions,
    split=split,
    bounds=_unbounded,
)
