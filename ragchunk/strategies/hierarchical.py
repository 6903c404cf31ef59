"""hierarchical: one chunk per heading subtree down to ``max_depth`` (SPEC §4).

A chunk runs from a heading of level ``max_depth`` or shallower to the next such heading, so it
holds the heading, its text and every deeper subsection; text before the first heading is a
chunk of its own. Headings come from the parsed sections (Markdown, DOCX styles, PDF outline or
font sizes); a document parsed without sections is read as Markdown. Page ranges follow from
the offsets (the min and max page of the merged sections). Unbounded by design: a subtree is
as long as the document makes it, unless ``--size`` is given; then a subtree larger than the
size is refined by the recursive strategy and its pieces carry ``metadata.oversize_split``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies.markdown import scopes, structure
from ragchunk.strategies.recursive import split_range
from ragchunk.text.boundaries import is_blank
from ragchunk.text.sentences import strip_span

if TYPE_CHECKING:
    from ragchunk.model import Document, Metadata

MAX_LEVEL = 9
"""The deepest heading level a parser reports (DOCX has Heading 1-9)."""

_SPLIT: Metadata = {"oversize_split": True}
_ONE_CODE_POINT: Metadata = {"oversize_split": True, "oversize": True}


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


def split_subtrees(
    doc: Document, options: HierarchicalOptions, ctx: Context, *, bounded: bool
) -> list[Span]:
    """Return one span per heading subtree; refined to the budget when ``bounded``.

    Spans are absolute, half-open and in document order; together they cover the document.
    """
    text = doc.text
    found = structure(doc, ctx, limit=options.budget.size if bounded else None)
    sizer = found.ctx.sizer
    spans: list[Span] = []
    for run in scopes(found.sections, options.max_depth):
        span = strip_span(text, run[0].start, run[-1].end)
        if span is None:
            continue
        start, end = span
        if not bounded or sizer.size(start, end) <= options.budget.size:
            spans.append(Span(start, end, found.headings_at(start)))
            continue
        for window in split_range(text, start, end, sizer=sizer, budget=options.budget):
            if not is_blank(text, window.start, window.end):
                metadata = _ONE_CODE_POINT if window.oversize else _SPLIT
                spans.append(
                    Span(window.start, window.end, found.headings_at(window.start), metadata)
                )
    return spans


def split(doc: Document, options: HierarchicalOptions, ctx: Context) -> list[Span]:
    """Return one span per heading subtree; bounded by the budget only when --size was given."""
    return split_subtrees(doc, options, ctx, bounded=ctx.size_given)


STRATEGY = Strategy(
    name="hierarchical",
    summary="One chunk per heading subtree down to max_depth (Markdown, DOCX, PDF). "
    "Unbounded by design unless --size is given; then long subtrees are refined.",
    options=HierarchicalOptions,
    split=split,
    bounded=False,
)
