"""One input parsed once and chunked by one recipe, or by two side by side (``--compare``).

With ``--parents`` (from a configuration file) the children are one side and their parents
the other, unless ``--compare`` takes the second side: then the parents are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.errors import RagchunkError
from ragchunk.pipeline.deadline import TimedOut, time_limit, timeout_message
from ragchunk.pipeline.engine import chunk_document, process
from ragchunk.pipeline.results import Diagnostic, first_line
from ragchunk.view.pages import page_images

if TYPE_CHECKING:
    from ragchunk.model import Chunk, Document
    from ragchunk.pipeline.plan import Plan, Recipe


@dataclass(frozen=True, slots=True)
class Side:
    """One chunking of the document: the recipe and the records it gave.

    ``level`` names the records' level under ``--parents`` (``children``, ``parents``).
    """

    recipe: Recipe
    chunks: tuple[Chunk, ...]
    level: str = ""


@dataclass(frozen=True, slots=True)
class View:
    """What a page shows: the document and its chunkings, or the error that stopped the input.

    Attributes:
        source: the path as given.
        doc_id: the document's id.
        document: the parsed document, None when the input failed.
        sides: one chunking, or two with ``--compare`` (the main one first).
        diagnostics: warnings about the input, from parsing and chunking.
        error: one sentence naming the input and the cause, or None.
        page_images: a PDF's pages as PNG ``data:`` URIs, the boxes drawn over them (``pages``).
    """

    source: str
    doc_id: str
    document: Document | None = None
    sides: tuple[Side, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str | None = None
    page_images: tuple[str, ...] = ()


def make_view(source: str, doc_id: str, plan: Plan, compare: Recipe | None = None) -> View:
    """Parse and chunk one input under ``plan``; chunk the same document by ``compare`` too.

    The document is parsed once; both chunkings run under the plan's policy (its timeout
    covers each). A failure of either becomes the view's ``error``, as ``engine.process``
    reports it; nothing is raised for a bad input.
    """
    result = process(source, doc_id, plan, keep_document=True)
    if result.error is not None or result.document is None:
        return View(source, doc_id, diagnostics=result.diagnostics, error=result.error)
    doc = result.document
    sides = [Side(plan.recipe, result.chunks)]
    parents = plan.recipe.parents
    if parents is not None:
        children = tuple(c for c in result.chunks if c.parent_id is not None)
        sides = [Side(plan.recipe, children, "children")]
        if compare is None:
            own = tuple(c for c in result.chunks if c.parent_id is None)
            sides.append(Side(parents, own, "parents"))
    diagnostics = list(result.diagnostics)
    if compare is not None:
        chunks, error = _chunk(doc, compare, plan, diagnostics)
        if error is not None:
            return View(source, doc_id, diagnostics=tuple(diagnostics), error=error)
        sides.append(Side(compare, chunks))
    images = page_images(doc, plan.policy.password) if doc.boxes is not None else ()
    return View(source, doc_id, doc, tuple(sides), tuple(diagnostics), page_images=images)


def _chunk(
    doc: Document, recipe: Recipe, plan: Plan, diagnostics: list[Diagnostic]
) -> tuple[tuple[Chunk, ...], str | None]:
    """Return the chunks of ``doc`` under the second recipe, or the error that stopped it."""
    where = f"{doc.source} (--compare)"
    try:
        with time_limit(plan.policy.timeout):
            return tuple(chunk_document(doc, recipe, diagnostics)), None
    except TimedOut:
        return (), timeout_message(where, plan.policy.timeout)
    except RagchunkError as exc:
        return (), f"{exc} (--compare)"
    except Exception as exc:
        if plan.policy.debug:
            raise
        reason = first_line(str(exc))
        return (), f"{where}: internal error: {type(exc).__name__}: {reason}; rerun with --debug"
