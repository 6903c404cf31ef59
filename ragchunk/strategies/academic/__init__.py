"""academic: a paper by its sections; the abstract a chunk of its own; references dropped.

Sections come from the document's headings (Markdown, a PDF's outline, DOCX styles; plain text
is read as Markdown) and are named by ``text.papers``. A chunk never crosses the start of a
section or subsection: the title block, the abstract (its own chunk, split only when larger
than the size), each section and subsection, split within the size at paragraphs, then
sentences; figure and table captions stay in their section. Where no heading names them, the
abstract (a paragraph opening ``Abstract`` in the title block) and the reference list (numbered
entries with years and authors ending a section) are found by their shape (``shapes``). The
references list (to the next heading as high as its own; an appendix after it is kept, or the
list found by its shape) is left out and reported through
``Context.drop`` unless ``references`` is true. Every chunk has ``metadata.template =
"academic"``, ``section`` (its section's title) and ``section_kind`` (``abstract``,
``introduction``, ``methods``, ... or ``""``), and ``subsection`` where it lies in one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.strategies._structure import structure
from ragchunk.strategies.academic.papers import section_kind, section_level
from ragchunk.strategies.academic.shapes import abstract_start, references_start
from ragchunk.text.regions import Region, join_short, region_spans

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Document, JSONValue, Section, Span


_HEADING_ONLY = 80
"""A section this short (its heading before its first subsection) joins the next."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AcademicOptions:
    """Options of the academic template."""

    budget: Budget = Budget(size=1500, overlap=0)
    references: bool = field(
        default=False,
        metadata={"help": "Keep the references list (dropped and reported by default)."},
    )


def split(doc: Document, options: AcademicOptions, ctx: Context) -> list[Span]:
    """Return spans within sections, in order; the references go to ``ctx.drop``.

    Spans are absolute and half-open; every non-space character lies in a span or in a span
    reported to ``ctx.drop``.
    """
    found = structure(doc, ctx)
    regions: list[Region] = []
    for region, kind in _regions(found.sections, doc.text):
        if kind == "references" and not options.references:
            ctx.drop(region.start, region.end, "references")
        else:
            regions.append(region)
    regions = join_short(doc.text, regions, shorter_than=_HEADING_ONLY)
    sizer = found.ctx.sizer
    return region_spans(doc.text, regions, sizer=sizer, capacity=ctx.capacity)


def _regions(sections: Sequence[Section], text: str) -> list[tuple[Region, str]]:
    """Return a region per section or subsection (and the title block), with its kind."""
    level = section_level(sections)
    cuts = [s for s in sections if s.kind == "heading" and 0 < s.level <= level + 1 and s.headings]
    bounds = [0, *(s.start for s in cuts), len(text)]
    regions: list[tuple[Region, str]] = []
    section_title, kind = "", "title"
    for position, (start, end) in enumerate(itertools.pairwise(bounds)):
        subsection = ""
        if position:
            heading = cuts[position - 1]
            if heading.level < level:  # the paper's title, above its sections
                section_title, kind = heading.headings[-1], "title"
            elif heading.level == level:
                section_title, kind = heading.headings[-1], section_kind(heading.headings[-1])
            else:
                subsection = heading.headings[-1]
        metadata: dict[str, JSONValue] = {"template": "academic", "section_kind": kind}
        if section_title:
            metadata["section"] = section_title
        if subsection:
            metadata["subsection"] = subsection
        if start < end:
            regions.append((Region(start, end, None, metadata), kind))
    return _by_shape(text, regions)


def _by_shape(text: str, regions: list[tuple[Region, str]]) -> list[tuple[Region, str]]:
    """Cut an abstract and a reference list no heading names out of the regions they are in.

    The abstract is looked for in the title block only, when no section is the abstract; a
    reference list at the end of a section (the conclusions) when no section is references.
    """
    kinds = {kind for _, kind in regions}
    out: list[tuple[Region, str]] = []
    for region, kind in regions:
        at: int | None = None
        if kind == "title" and "abstract" not in kinds:
            at = abstract_start(text, region.start, region.end)
            title, found = "Abstract", "abstract"
        elif kind not in ("title", "references") and "references" not in kinds:
            at = references_start(text, region.start, region.end)
            title, found = "References", "references"
        if at is None or not region.start < at < region.end:
            out.append((region, kind))
            continue
        metadata = {**region.metadata, "section": title, "section_kind": found}
        metadata.pop("subsection", None)
        out += [
            (replace(region, end=at), kind),
            (Region(at, region.end, None, metadata), found),
        ]
        kinds.add(found)
    return out


STRATEGY = Strategy(
    name="academic",
    summary="Template: a paper by its sections (abstract as its own chunk, Introduction, "
    "Methods, Results, ...), section in metadata; the references list is dropped and "
    "reported in the stats unless references=true.",
    options=AcademicOptions,
    split=split,
    drops=True,
)
