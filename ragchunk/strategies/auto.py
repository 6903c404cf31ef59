"""auto: pick a strategy per document from its format and structure (SPEC §4).

Markdown and reStructuredText → ``markdown``; source code → ``code``; PDF or DOCX with
headings → ``hierarchical``, bounded; anything else → ``recursive``. The choice runs as if the
user had named it: with its own defaults (code: 512 tokens, no overlap; hierarchical bounded by
its own size) unless the user gave ``--size``, which then applies to every choice in ``--unit``
(chars by default), with ``--overlap`` or this strategy's overlap capped at a tenth of the size.
The engine runs the choice's own recipe (``Strategy.choose``), so its size limit, unit,
``--check`` and chunk ids are those of the chosen strategy; each chunk's ``strategy`` field
names it (``--stats`` counts the choices). ``split`` serves callers that run this strategy
directly with a context.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

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
    if doc.format in ("markdown", "rst"):
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


CHOICES: Final = ("markdown", "code", "hierarchical", "recursive")

STRATEGY = Strategy(
    name="auto",
    summary="Per document: markdown for Markdown and reStructuredText, code for source code, "
    "hierarchical (bounded) for PDF/DOCX with headings, recursive otherwise; each with its own "
    "defaults unless --size is given.",
    options=AutoOptions,
    split=split,
    choices=CHOICES,
    choose=choose,
)
