"""auto: pick a strategy per document from its format and structure (SPEC §4).

Markdown, reStructuredText and notebooks → ``markdown``; source code → ``code``; rows of a
sheet or CSV and members of a JSON, YAML or TOML file → ``markdown`` (whole rows and objects,
a split row's label repeated); any other document with
structure, whatever its format → ``hierarchical``, bounded: a section of a kind in
``BOUNDARY_KINDS`` (a heading, a message's headers, a slide, a cue: HTML, EPUB, PPTX, DOCX,
e-mail, PDF with headings, transcripts), so no chunk crosses one unless that part alone exceeds
the size; anything else (plain text) → ``recursive``. The choice runs as if the
user had named it: with its own defaults (code: 512 tokens, no overlap; hierarchical bounded by
its own size) unless the user gave ``--size``, which then applies to every choice in ``--unit``
(chars by default), with ``--overlap`` or this strategy's overlap capped at a tenth of the size.
A router: it cuts nothing itself. The plan makes each choice's recipe up front and the engine
runs the one ``choose`` names (``Recipe.for_document``), so its capacity, unit, ``--check``
and chunk ids are those of the chosen strategy; each chunk's ``strategy`` field names it
(``--stats`` counts the choices).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk.options import Budget
from ragchunk.strategies._spec import Router
from ragchunk.text.sections import BOUNDARY_KINDS

if TYPE_CHECKING:
    from ragchunk.model import Document


_RECORD_KINDS: Final = frozenset({"row", "value"})
"""A sheet's or CSV's rows, a data file's members: ``markdown`` keeps a row whole (a split row's
pieces repeat its label in ``context``) and a data file's objects whole where they fit."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AutoOptions:
    """Options of the auto strategy."""

    budget: Budget = Budget(size=512, overlap=50)


def choose(doc: Document) -> str:
    """Return the name of the strategy ``auto`` runs for ``doc``."""
    if doc.format in ("markdown", "rst", "notebook"):
        return "markdown"
    if doc.format == "code":
        return "code"
    if any(section.kind in _RECORD_KINDS for section in doc.sections):
        return "markdown"
    if any(section.kind in BOUNDARY_KINDS for section in doc.sections):
        return "hierarchical"
    return "recursive"


CHOICES: Final = ("markdown", "code", "hierarchical", "recursive")

STRATEGY = Router(
    name="auto",
    summary="Per document: markdown for Markdown, reStructuredText, notebooks, sheets, CSV and "
    "data files, code for source code, hierarchical (bounded) for anything with headings, "
    "messages, slides or cues, recursive otherwise; each with its own defaults unless --size "
    "is given.",
    options=AutoOptions,
    choices=CHOICES,
    choose=choose,
)
