"""The sections a structure-aware strategy (markdown, hierarchical) works on.

A document parsed with sections (Markdown, DOCX styles, PDF outline or font sizes) is used as
it is. A document parsed without any (plain text) is read as Markdown through the context's
``find_sections``; those headings are not the document's, so with ``--contextualize`` their
breadcrumbs are counted in the sizes here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragchunk.text.breadcrumb import check_breadcrumbs, format_breadcrumb, with_prefix
from ragchunk.text.sections import heading_lookup

if TYPE_CHECKING:
    from ragchunk.model import Document, Section
    from ragchunk.strategies._spec import Context


@dataclass(frozen=True, slots=True)
class Structure:
    """The sections a structure-aware strategy works on, and the context sized for them.

    Attributes:
        sections: the document's sections, or its text read as Markdown when it has none.
        headings_at: the heading path of the section at an offset.
        ctx: the strategy's context; its sizer counts the breadcrumbs of these headings.
    """

    sections: Sequence[Section]
    headings_at: Callable[[int], tuple[str, ...]]
    ctx: Context


def structure(doc: Document, ctx: Context) -> Structure:
    """Return the sections of ``doc``; a document parsed without any is read as Markdown.

    Raises:
        InputError: with ``--contextualize``, a breadcrumb alone takes the whole size.
    """
    if doc.sections:
        return Structure(doc.sections, heading_lookup(doc.sections), ctx)
    sections = tuple(ctx.find_sections(doc.text))
    headings_at = heading_lookup(sections)
    if not ctx.contextualize:
        return Structure(sections, headings_at, ctx)
    if ctx.capacity.hard:
        paths = (section.headings for section in sections)
        check_breadcrumbs(doc.source, paths, ctx.measure, ctx.capacity.size)

    def breadcrumb(start: int) -> str:
        return format_breadcrumb(headings_at(start))

    sizer = with_prefix(
        ctx.sizer,
        doc.text,
        count=ctx.measure.count,
        prefix_at=breadcrumb,
        additive=ctx.measure.is_length,
    )
    return Structure(sections, headings_at, replace(ctx, sizer=sizer, breadcrumb=breadcrumb))
