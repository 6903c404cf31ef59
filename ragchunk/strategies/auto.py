"""auto: pick a strategy per document from its format and structure (SPEC §4).

Markdown → ``markdown``; source code → ``code`` (``recursive`` while no code strategy is
registered); PDF or DOCX with headings → ``hierarchical``, bounded by the size; anything else →
``recursive``. The chosen strategy runs with this strategy's budget and its own defaults, and
each chunk's ``strategy`` field names it (so ``--stats`` counts the choices).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ragchunk import strategies
from ragchunk.options import Budget, build_options
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
        return "code" if "code" in strategies.STRATEGIES else "recursive"
    has_headings = any(section.kind == "heading" for section in doc.sections)
    if doc.format in ("pdf", "docx") and has_headings:
        return "hierarchical"
    return "recursive"


def split(doc: Document, options: AutoOptions, ctx: Context) -> list[Span]:
    """Return the spans of the strategy chosen for ``doc``, each naming that strategy."""
    name = choose(doc)
    chosen = strategies.get(name)
    chosen_options = build_options(chosen.options, options.budget, {}, strategy=name)
    if not chosen.bounded:  # SPEC §4: hierarchical bounded by the size under auto
        ctx = replace(ctx, size_given=True)
    return [replace(span, strategy=name) for span in chosen.split(doc, chosen_options, ctx)]


STRATEGY = Strategy(
    name="auto",
    summary="Per document: markdown for Markdown, code for source code, hierarchical (bounded) "
    "for PDF/DOCX with headings, recursive otherwise.",
    options=AutoOptions,
    split=split,
)
