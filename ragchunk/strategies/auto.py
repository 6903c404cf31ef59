"""auto: pick a strategy per document from its format and structure (SPEC §4).

Markdown → ``markdown``; source code → ``code``; PDF or DOCX with headings → ``hierarchical``,
bounded by the size; anything else → ``recursive``. The chosen strategy runs with this
strategy's budget and its own defaults, and each chunk's ``strategy`` field names it (so
``--stats`` counts the choices).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy

if TYPE_CHECKING:
    from ragchunk.model import Document, Span


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoOptions:
    """Options of the auto strategy."""

    budget: Budget = Budget(size=512, overlap=50)


def choose(doc: Document) -> str:
    """Return the name of the strategy ``auto`` runs for ``doc``."""
    if doc.format == "markdown":
        return "markdown"
    if doc.format == "code":
        return "code"
    has_headings = any(section.kind == "heading" for section in doc.sections)
    if doc.format in ("pdf", "docx") and has_headings:
        return "hierarchical"
    return "recursive"


def split(doc: Document, options: AutoOptions, ctx: Context) -> list[Span]:
    """Return the spans of the strategy chosen for ``doc``, each naming that strategy.

    The context's limit is this strategy's (bounded), so an unbounded choice (hierarchical)
    is bounded by the size here (SPEC §4).
    """
    name = choose(doc)
    return [replace(span, strategy=name) for span in ctx.delegate(name, options.budget, doc, ctx)]


STRATEGY = Strategy(
    name="auto",
    summary="Per document: markdown for Markdown, code for source code, hierarchical (bounded) "
    "for PDF/DOCX with headings, recursive otherwise.",
    options=AutoOptions,
    split=split,
)
