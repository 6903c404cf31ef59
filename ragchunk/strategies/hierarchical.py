"""hierarchical: one chunk per heading subtree down to ``max_depth`` (SPEC §4).

A chunk runs from a heading of level ``max_depth`` or shallower to the next such heading, so it
holds the heading, its text and every deeper subsection; text before the first heading is a
chunk of its own. Headings come from the parsed sections (Markdown, DOCX styles, PDF outline or
font sizes); a document parsed without sections is read as Markdown. Page ranges follow from
the offsets (the min and max page of the merged sections). Unbounded by design: a subtree is
as long as the document makes it, unless ``--size`` is given; then a subtree larger than the
size is refined by the recursive strategy. A subtree is not a block that had to stay whole,
so its pieces carry no ``oversize_split`` (SPEC §3.3: only a sentence, row, fence or function
that was split does).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.strategies._structure import structure
from ragchunk.text.sections import scopes
from ragchunk.text.sentences import strip_span
from ragchunk.text.separators import split_range
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from ragchunk.model import Document

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
    text = doc.text
    found = structure(doc, ctx)
    sizer, capacity = found.ctx.sizer, ctx.capacity
    spans: list[Span] = []
    for run in scopes(found.sections, options.max_depth):
        span = strip_span(text, run[0].start, run[-1].end)
        if span is None:
            continue
        start, end = span
        if capacity.fits(sizer, start, end):
            spans.append(Span(start, end, found.headings_at(start)))
            continue
        windows = split_range(text, start, end, sizer=sizer, capacity=capacity, wraps=doc.wraps)
        spans += spans_from_windows(text, windows, headings_at=found.headings_at)
    return spans


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
