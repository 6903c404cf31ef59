"""legal: one chunk per numbered clause subtree down to ``max_depth`` (SPEC §4, templates).

Clauses come from the text (``text.clauses``: ``ARTICLE 5``, ``1.``, ``1.1``, ``1.1.1``, ``(a)``,
``(i)``, ``Section 2.3``, ``§ 4``, ``Schedule 1``) and make the heading path (with
``--contextualize`` the breadcrumb stays the document's own); a document whose
text numbers no clause (Word's automatic numbering) falls back to its own headings. A chunk
runs from a clause of depth ``max_depth`` or shallower to the next such clause, sub-clauses
included; text before the first clause (the parties, the recitals) is a chunk of its own.
Every chunk has ``metadata.template = "legal"`` and the ``clause`` number and ``clause_title``
of the clause at its start. Unbounded by design unless ``--size`` is given: a larger subtree is
split at its sub-clauses' paragraphs, then sentences (``oversize_split``).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.errors import OptionError
from ragchunk.options import Budget
from ragchunk.strategies._spec import Bounds, Context, Strategy
from ragchunk.strategies._structure import structure
from ragchunk.strategies.legal.clauses import Clause, find_clauses
from ragchunk.text.regions import Region, region_spans
from ragchunk.text.sections import scopes

if TYPE_CHECKING:
    from ragchunk.model import Document, JSONValue, Span

MAX_DEPTH = 9


@dataclass(frozen=True, slots=True, kw_only=True)
class LegalOptions:
    """Options of the legal template."""

    budget: Budget = Budget(size=1500, overlap=0)
    max_depth: int = field(
        default=3,
        metadata={
            "help": "The deepest clause level that starts its own chunk (1 = articles and "
            "schedules, 2 = 1.1, 3 = 1.1.1 or (a)); deeper clauses stay in their parent's chunk."
        },
    )

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= MAX_DEPTH:
            raise OptionError(
                "max_depth", f"must be between 1 and {MAX_DEPTH} (got {self.max_depth})"
            )


def split(doc: Document, options: LegalOptions, ctx: Context) -> list[Span]:
    """Return one span per clause subtree (or its pieces within ``ctx.capacity``), in order.

    Spans are absolute and half-open; together they cover every non-space character.
    """
    clauses = find_clauses(doc.text)
    if clauses:
        # With --contextualize the breadcrumb is the document's own heading path, which the
        # engine sizes and checks; the clause path then stays in the metadata only.
        regions = _clause_regions(doc, clauses, options.max_depth, paths=not ctx.contextualize)
    else:
        regions = _heading_regions(doc, ctx, options.max_depth)
    return region_spans(doc.text, regions, sizer=ctx.sizer, capacity=ctx.capacity)


def _clause_regions(
    doc: Document, clauses: list[Clause], max_depth: int, *, paths: bool
) -> list[Region]:
    starts = [clause.start for clause in clauses]
    clause_paths = _paths(clauses)
    cuts = [c.start for c in clauses if c.depth <= max_depth]
    regions = []
    if cuts[0] > 0:
        regions.append(Region(0, cuts[0], (), {"template": "legal"}))
    for start, end in zip(cuts, [*cuts[1:], len(doc.text)], strict=True):
        k = bisect_right(starts, start) - 1
        clause = clauses[k]
        metadata: dict[str, JSONValue] = {"template": "legal", "clause": clause.number}
        if clause.title:
            metadata["clause_title"] = clause.title
        regions.append(Region(start, end, clause_paths[k] if paths else None, metadata))
    return regions


def _paths(clauses: list[Clause]) -> list[tuple[str, ...]]:
    """Return each clause's heading path: the headings of the clauses it sits in, then its own."""
    paths: list[tuple[str, ...]] = []
    open_clauses: list[Clause] = []
    for clause in clauses:
        while open_clauses and open_clauses[-1].depth >= clause.depth:
            open_clauses.pop()
        open_clauses.append(clause)
        paths.append(tuple(c.heading for c in open_clauses))
    return paths


def _heading_regions(doc: Document, ctx: Context, max_depth: int) -> list[Region]:
    found = structure(doc, ctx)
    regions = []
    for run in scopes(found.sections, max_depth):
        first = run[0]
        metadata: dict[str, JSONValue] = {"template": "legal"}
        if first.kind == "heading":
            metadata["clause"] = first.headings[-1] if first.headings else ""
        regions.append(Region(first.start, run[-1].end, None, metadata))
    if not regions and doc.text.strip():
        regions.append(Region(0, len(doc.text), None, {"template": "legal"}))
    return regions


def _unbounded(_options: LegalOptions) -> Bounds:
    return Bounds(bounded=False)


STRATEGY = Strategy(
    name="legal",
    summary="Template: one chunk per numbered clause subtree (1., 1.1, (a), Article 5, § 4, "
    "Schedule 1) down to max_depth, clause number and title in metadata. Unbounded by design "
    "unless --size is given; then long clauses are split at sub-clauses, then sentences.",
    options=LegalOptions,
    split=split,
    bounds=_unbounded,
)
