"""The engine: one input read, parsed, chunked and checked; a failure never escapes as a crash.

``chunk_document`` runs a recipe over a parsed document: the strategy's spans (and the spans a
template drops, reported), then the optional passes (``ragchunk.passes``), then the records.
``process`` does the whole of one input under its policy (byte cap, deadline, ``--check``) and
returns a ``FileResult``: its chunks, or the one-line error that stopped it, plus warnings; a
container input (an mbox) gives the chunks of each document in it, and names those that failed.
Running many inputs, in this process or in workers, is ``ragchunk.workers``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ragchunk import parsers, strategies
from ragchunk.chunks import assemble, gc_paused
from ragchunk.deadline import TimedOut, time_limit, timeout_message
from ragchunk.errors import RagchunkError
from ragchunk.inputs import STDIN
from ragchunk.measure import load_tokenizer, measure_for
from ragchunk.model import Dropped
from ragchunk.options import build_options
from ragchunk.parsers._spec import ParseRequest
from ragchunk.passes import (
    contextualized,
    fit_context_spans,
    merge_small_spans,
    warn_if_large,
)
from ragchunk.reading import check_not_empty, choose_format, parse_member, read_input
from ragchunk.strategies._spec import Context

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from ragchunk.check import Limits
    from ragchunk.measure import Sizer
    from ragchunk.model import Chunk, Document, Section, Span
    from ragchunk.options import Budget
    from ragchunk.parsers._spec import Member
    from ragchunk.plan import Plan, Recipe


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning about one input: ``code`` is stable, ``message`` is one sentence."""

    path: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class FileResult:
    """The outcome for one input: its chunks, or the error that stopped it, plus warnings.

    ``content_hash`` is the SHA-256 of the input's bytes once they were read; ``unchanged``
    says the input was skipped because that hash equals the one a manifest recorded. When the
    job had a renderer, ``rendered`` holds its output (UTF-8 JSONL bytes), in pieces of at most
    ``workers.RENDER_BLOCK`` chunks (never one large string beside its parts), and ``chunks``
    is empty; ``chunk_count`` counts the chunks either way. With ``--check``, ``violations``
    lists what the invariant checker found (SPEC §3), one sentence each; the chunks are kept
    all the same. ``dropped`` lists the spans a template left out on purpose, with the id of
    the document they belong to. A container input (an mbox) gives the chunks of every
    document in it; ``failed_parts`` names those of its documents that could not be chunked,
    one sentence each, while the others were.
    """

    source: str
    doc_id: str
    chunks: tuple[Chunk, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str | None = None
    document: Document | None = None
    content_hash: str | None = None
    unchanged: bool = False
    rendered: tuple[bytes, ...] | None = None
    chunk_count: int = 0
    violations: tuple[str, ...] = ()
    dropped: tuple[tuple[str, Dropped], ...] = ()
    failed_parts: tuple[str, ...] = ()


@gc_paused()
def chunk_document(
    doc: Document,
    recipe: Recipe[Any],
    diagnostics: list[Diagnostic] | None = None,
    dropped: list[Dropped] | None = None,
) -> list[Chunk]:
    """Run the recipe's strategy and passes over one parsed document; return its records.

    A strategy that picks another per document (``auto``) runs the recipe of its choice. The
    spans a template drops on purpose are appended to ``dropped`` (in document order).
    """
    recipe = recipe.for_document(doc)
    sink = [] if diagnostics is None else diagnostics
    drops: list[Dropped] = [] if dropped is None else dropped

    def warn(code: str, message: str) -> None:
        sink.append(Diagnostic(doc.source, code, message))

    def drop(start: int, end: int, reason: str) -> None:
        drops.append(Dropped(start, end, reason))

    measure = measure_for(recipe.budget.unit, recipe.tokenizer)
    sizer = measure.prepare(doc.text)
    tokens = _token_sizer(doc.text, recipe, sizer)
    ctx = Context(
        measure=measure,
        sizer=sizer,
        limit=recipe.limit,
        tokens=tokens,
        find_sections=_markdown_sections,
        delegate=_delegate,
        warn=warn,
    )
    if recipe.strategy.drops:
        ctx = replace(ctx, drop=drop)
    if recipe.contextualize:
        ctx = contextualized(doc, ctx)
    spans = recipe.strategy.split(doc, recipe.options, ctx)
    drops.sort(key=lambda span: (span.start, span.end))
    if recipe.min_size:
        spans = merge_small_spans(doc, spans, ctx, sizer, recipe, drops)
    if recipe.contextualize and recipe.limit is not None:
        spans = fit_context_spans(doc, spans, ctx, sizer, recipe)
    counted = recipe.count_tokens or recipe.budget.unit == "tokens"
    if recipe.limit is None:
        warn_if_large(doc, spans, tokens, recipe.strategy.name, warn)
    return assemble(
        doc,
        spans,
        strategy=recipe.strategy.name,
        fingerprint=recipe.fingerprint,
        tokens=tokens() if counted else None,
        contextualize=recipe.contextualize,
    )


def _token_sizer(text: str, recipe: Recipe[Any], sizer: Sizer) -> Callable[[], Sizer]:
    """Return the document's token sizer, made on first use and shared by all who ask.

    In tokens it is the budget's own sizer; otherwise the text is encoded once, only if a
    token strategy or ``--count-tokens`` asks for it.
    """
    if recipe.budget.unit == "tokens":
        return lambda: sizer
    return functools.cache(lambda: load_tokenizer(recipe.tokenizer).prepare(text))


def _markdown_sections(text: str) -> Sequence[Section]:
    from ragchunk.parsers.markdown import find_sections

    return find_sections(text)


def _delegate(name: str, budget: Budget, doc: Document, ctx: Context) -> list[Span]:
    """Run the strategy ``name`` with ``budget`` and its other options at their defaults."""
    chosen = strategies.get(name)
    options = build_options(chosen.options, budget, {}, strategy=name)
    spans: list[Span] = chosen.split(doc, options, ctx)
    return spans


def process(
    source: str,
    doc_id: str,
    plan: Plan,
    *,
    keep_document: bool = False,
    known_hash: str | None = None,
) -> FileResult:
    """Read, parse and chunk one input; an error becomes the result's ``error``.

    When the SHA-256 of the input's bytes equals ``known_hash``, nothing is parsed and the
    result says ``unchanged``. The work stops at the policy's timeout (``deadline``).
    """
    diagnostics: list[Diagnostic] = []
    try:
        with time_limit(plan.policy.timeout):
            return _process(
                source,
                doc_id,
                plan,
                diagnostics,
                keep_document=keep_document,
                known_hash=known_hash,
            )
    except TimedOut:
        error = timeout_message(source, plan.policy.timeout)
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=error)


def _process(
    source: str,
    doc_id: str,
    plan: Plan,
    diagnostics: list[Diagnostic],
    *,
    keep_document: bool,
    known_hash: str | None,
) -> FileResult:
    recipe, policy = plan.recipe, plan.policy
    content_hash = None
    try:
        data = read_input(source, policy.max_bytes)
        content_hash = hashlib.sha256(data).hexdigest()
        if content_hash == known_hash:
            return FileResult(source, doc_id, content_hash=content_hash, unchanged=True)
        request = _request(source, doc_id, plan, diagnostics)
        fmt = parsers.get(choose_format(data, request, format=_format(source, recipe)))
        if fmt.members is not None:
            members = fmt.members(data, request)
            return _process_members(members, request, plan, diagnostics, content_hash)
        doc = fmt.parse(data, request)
        del data  # the bytes of a large input need not live on beside its text and chunks
        done = _chunk_checked(doc, plan, diagnostics)
    except RagchunkError as exc:
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=str(exc))
    except MemoryError:
        error = f"{source}: ran out of memory (lower --max-bytes or --jobs)"
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=error)
    except Exception as exc:
        if policy.debug:
            raise
        message = _internal_error(source, exc)
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=message)
    return FileResult(
        source,
        doc_id,
        _hashed(done.chunks, recipe, content_hash),
        tuple(diagnostics),
        document=doc if keep_document else None,
        content_hash=content_hash,
        chunk_count=len(done.chunks),
        violations=done.violations,
        dropped=tuple((doc.doc_id, span) for span in done.dropped),
    )


@dataclass(frozen=True, slots=True)
class _Chunked:
    """One document's chunks, the spans its template dropped, and the checker's findings."""

    chunks: list[Chunk]
    dropped: list[Dropped]
    violations: tuple[str, ...]


def _chunk_checked(doc: Document, plan: Plan, diagnostics: list[Diagnostic]) -> _Chunked:
    if not plan.policy.allow_empty:
        check_not_empty(doc)
    dropped: list[Dropped] = []
    chunks = chunk_document(doc, plan.recipe, diagnostics, dropped)
    violations = check_chunks(doc, chunks, plan.recipe, dropped) if plan.policy.check else ()
    return _Chunked(chunks, dropped, violations)


def _process_members(
    members: Iterator[Member],
    request: ParseRequest,
    plan: Plan,
    diagnostics: list[Diagnostic],
    content_hash: str,
) -> FileResult:
    """Chunk each document of a container input; one that fails is named, the others kept.

    Messages name a member by the container's path and its name (``list.mbox#3``).

    Raises:
        InputError: the container itself cannot be read.
    """
    chunks: list[Chunk] = []
    dropped: list[tuple[str, Dropped]] = []
    violations: list[str] = []
    failed: list[str] = []
    for member in members:
        name = request.source + member.name
        try:
            doc = parse_member(member, request)
            done = _chunk_checked(doc, plan, diagnostics)
        except RagchunkError as exc:
            failed.append(str(exc))
            continue
        except MemoryError:
            raise
        except Exception as exc:
            if plan.policy.debug:
                raise
            failed.append(_internal_error(name, exc))
            continue
        chunks += done.chunks
        dropped += ((doc.doc_id, span) for span in done.dropped)
        violations += (f"{doc.doc_id}: {violation}" for violation in done.violations)
    return FileResult(
        request.source,
        request.doc_id,
        _hashed(chunks, plan.recipe, content_hash),
        tuple(diagnostics),
        content_hash=content_hash,
        chunk_count=len(chunks),
        violations=tuple(violations),
        dropped=tuple(dropped),
        failed_parts=tuple(failed),
    )


def _internal_error(source: str, exc: Exception) -> str:
    reason = first_line(str(exc))
    return f"{source}: internal error: {type(exc).__name__}: {reason}; rerun with --debug"


def _hashed(chunks: list[Chunk], recipe: Recipe[Any], content_hash: str) -> tuple[Chunk, ...]:
    if recipe.hashes:
        return tuple(_with_hashes(chunk, content_hash) for chunk in chunks)
    return tuple(chunks)


def _format(source: str, recipe: Recipe[Any]) -> str | None:
    """Return the format to parse ``source`` as, or None to detect it.

    That is ``--format``, else for standard input the format its strategy reads it as (the
    code strategy: code), unless ``--language`` already implies code.
    """
    if recipe.format is not None or source != STDIN or recipe.language is not None:
        return recipe.format
    return recipe.strategy.stdin_format


def _request(source: str, doc_id: str, plan: Plan, diagnostics: list[Diagnostic]) -> ParseRequest:
    def warn(code: str, message: str) -> None:
        diagnostics.append(Diagnostic(source, code, message))

    return ParseRequest(
        source=source,
        doc_id=doc_id,
        password=plan.policy.password,
        language=plan.recipe.language,
        max_bytes=plan.policy.max_bytes,
        options=plan.recipe.parse,
        warn=warn,
    )


def limits_for(recipe: Recipe[Any]) -> Limits:
    """Return what the chunks of ``recipe`` must respect (the checker's view of it)."""
    from ragchunk.check import Limits

    bounds = recipe.strategy.bounds(recipe.options)
    return Limits(
        size=recipe.limit,
        overlap=recipe.budget.overlap,
        measure=measure_for(recipe.budget.unit, recipe.tokenizer),
        word_aligned=bounds.word_aligned,
        sentences=bounds.sentences,
        overlap_sentences=bounds.overlap_sentences,
        contextualize=recipe.contextualize,
        language=bounds.language,
        drops=recipe.strategy.drops,
    )


def check_chunks(
    doc: Document,
    chunks: Sequence[Chunk],
    recipe: Recipe[Any],
    dropped: Sequence[Dropped] = (),
) -> tuple[str, ...]:
    """Return the violations of SPEC §3 in ``chunks``, a second run of the recipe included.

    ``dropped`` are the spans the strategy reported leaving out: exactly those may be missing.
    This is ``--check``: the checker the test suite uses, run on the user's own documents.
    """
    from ragchunk.check import find_differences, find_violations

    recipe = recipe.for_document(doc)
    found = find_violations(doc, chunks, limits_for(recipe), dropped)
    again: list[Dropped] = []
    found += find_differences(chunks, chunk_document(doc, recipe, dropped=again))
    if again != list(dropped):
        found.append("a second run dropped other spans than the first")
    return tuple(found)


def first_line(text: str) -> str:
    """Return the first non-blank line of an exception's text (messages are one line)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _with_hashes(chunk: Chunk, doc_hash: str) -> Chunk:
    # surrogatepass: a PDF's text may hold lone surrogates; the hash must still be defined.
    text_hash = hashlib.sha256(chunk.text.encode("utf-8", "surrogatepass")).hexdigest()
    return dataclasses.replace(chunk, doc_hash=doc_hash, hash=text_hash)
