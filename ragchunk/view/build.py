"""One input parsed once and chunked by one recipe, or by two side by side (``--compare``).

With ``--parents`` (from a configuration file) the children are one side and their parents
the other, unless ``--compare`` takes the second side: then the parents are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk import parsers
from ragchunk.errors import RagchunkError
from ragchunk.pipeline.deadline import TimedOut, time_limit, timeout_message
from ragchunk.pipeline.engine import chunk_document, parse_request, process
from ragchunk.pipeline.reading import choose_format, parse_member, read_input
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


def make_views(source: str, doc_id: str, plan: Plan, compare: Recipe | None = None) -> list[View]:
    """Return the views of one input: one, or one per document of a container (an mbox).

    The input is read once (standard input too). A container's documents get ``doc_id`` +
    their name (``list.mbox#2``); one that fails is a view with its error, the others are
    drawn. Nothing is raised for a bad input: its view holds the error.
    """
    try:
        data = read_input(source, plan.policy.max_bytes)
        diagnostics: list[Diagnostic] = []
        request = parse_request(source, doc_id, plan, diagnostics)
        fmt = parsers.get(choose_format(data, request, format=plan.recipe.format))
        if fmt.members is None:
            return [make_view(source, doc_id, plan, compare, data=data)]
        with time_limit(plan.policy.timeout):
            members = list(fmt.members(data, request))
    except TimedOut:
        return [View(source, doc_id, error=timeout_message(source, plan.policy.timeout))]
    except RagchunkError as exc:
        return [View(source, doc_id, error=str(exc))]
    except Exception as exc:
        if plan.policy.debug:
            raise
        return [View(source, doc_id, error=_internal(source, exc))]
    views = []
    for member in members:
        named = doc_id + member.name
        notes: list[Diagnostic] = []
        try:
            with time_limit(plan.policy.timeout):
                doc = parse_member(member, parse_request(source, doc_id, plan, notes))
        except TimedOut:
            views.append(View(source, named, error=timeout_message(named, plan.policy.timeout)))
            continue
        except RagchunkError as exc:
            views.append(View(source, named, diagnostics=tuple(notes), error=str(exc)))
            continue
        except Exception as exc:
            if plan.policy.debug:
                raise
            views.append(View(source, named, error=_internal(source + member.name, exc)))
            continue
        views.append(_member_view(doc, plan, compare, notes))
    return views or [View(source, doc_id, error=f"{source}: holds no message")]


def _member_view(
    doc: Document, plan: Plan, compare: Recipe | None, diagnostics: list[Diagnostic]
) -> View:
    """Return the view of one document of a container, chunked by the plan (and ``compare``)."""
    sides = []
    for recipe in (plan.recipe, compare):
        if recipe is None:
            continue
        chunks, error = _chunk(doc, recipe, plan, diagnostics, where=doc.doc_id)
        if error is not None:
            return View(doc.source, doc.doc_id, diagnostics=tuple(diagnostics), error=error)
        sides.append(Side(recipe, chunks))
    return View(doc.source, doc.doc_id, doc, tuple(sides), tuple(diagnostics))


def _internal(where: str, exc: Exception) -> str:
    reason = first_line(str(exc))
    return f"{where}: internal error: {type(exc).__name__}: {reason}; rerun with --debug"


def make_view(
    source: str,
    doc_id: str,
    plan: Plan,
    compare: Recipe | None = None,
    *,
    data: bytes | None = None,
) -> View:
    """Parse and chunk one input under ``plan``; chunk the same document by ``compare`` too.

    The document is parsed once; both chunkings run under the plan's policy (its timeout
    covers each). A failure of either becomes the view's ``error``, as ``engine.process``
    reports it; nothing is raised for a bad input.
    """
    result = process(source, doc_id, plan, keep_document=True, data=data)
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
    doc: Document,
    recipe: Recipe,
    plan: Plan,
    diagnostics: list[Diagnostic],
    *,
    where: str | None = None,
) -> tuple[tuple[Chunk, ...], str | None]:
    """Return the chunks of ``doc`` under the second recipe, or the error that stopped it."""
    tail = "" if where else " (--compare)"
    where = where or f"{doc.source}{tail}"
    try:
        with time_limit(plan.policy.timeout):
            return tuple(chunk_document(doc, recipe, diagnostics)), None
    except TimedOut:
        return (), timeout_message(where, plan.policy.timeout)
    except RagchunkError as exc:
        return (), f"{exc}{tail}"
    except Exception as exc:
        if plan.policy.debug:
            raise
        return (), _internal(where, exc)
