"""The engine: one input read, parsed, chunked and checked; a failure never escapes as a crash.

``chunk_document`` runs a recipe over a parsed document: the strategy's spans, then the optional
passes (``--min-size`` merging, ``--contextualize`` fitting), then the records. ``process`` does
the whole of one input under its policy (byte cap, deadline, ``--check``) and returns a
``FileResult``: its chunks, or the one-line error that stopped it, plus warnings. Running many
inputs, in this process or in workers, is ``ragchunk.workers``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ragchunk import strategies
from ragchunk.backends import open_embedder
from ragchunk.chunks import assemble, gc_paused
from ragchunk.deadline import TimedOut, time_limit, timeout_message
from ragchunk.errors import BackendError, RagchunkError
from ragchunk.measure import load_tokenizer, measure_for
from ragchunk.options import build_options
from ragchunk.parsers._spec import ParseRequest
from ragchunk.passes import embed_chunks, refine_spans
from ragchunk.reading import parse_bytes, read_input
from ragchunk.strategies._spec import Context
from ragchunk.text.breadcrumb import (
    PrefixedSizer,
    check_breadcrumbs,
    fit_contexts,
    format_breadcrumb,
)
from ragchunk.text.merge import merge_small
from ragchunk.text.sections import heading_lookup, heading_scopes
from ragchunk.text.separators import split_range

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.check import Limits
    from ragchunk.measure import Sizer
    from ragchunk.model import Chunk, Document, Section, Span
    from ragchunk.options import Budget
    from ragchunk.plan import Plan, Recipe
    from ragchunk.rewrite import Rewriter
    from ragchunk.text.pack import Window


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
    job had a renderer, ``rendered`` holds its output, in pieces of at most
    ``workers.RENDER_BLOCK`` chunks (never one large string beside its parts), and ``chunks``
    is empty; ``chunk_count`` counts the chunks either way. With ``--check``, ``violations``
    lists what the invariant checker found (SPEC §3), one sentence each; the chunks are kept
    all the same. ``embedded`` counts the texts sent to the embedder, ``cached`` those its
    cache answered. ``llm`` holds what a rewriting strategy's chat model cost and made
    (``ragchunk.rewrite.COUNT_NAMES``; a dry run's planned calls and tokens).
    """

    source: str
    doc_id: str
    chunks: tuple[Chunk, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str | None = None
    document: Document | None = None
    content_hash: str | None = None
    unchanged: bool = False
    rendered: tuple[str, ...] | None = None
    chunk_count: int = 0
    violations: tuple[str, ...] = ()
    embedded: int = 0
    cached: int = 0
    llm: tuple[tuple[str, int], ...] = ()


@gc_paused()
def chunk_document(
    doc: Document,
    recipe: Recipe[Any],
    diagnostics: list[Diagnostic] | None = None,
    *,
    embedder: CachedEmbedder | None = None,
    rewriter: Rewriter | None = None,
) -> list[Chunk]:
    """Run the recipe's strategy and passes over one parsed document; return its records.

    ``embedder`` serves the strategies and passes that need one; when None and one is needed,
    one is made that caches in memory only. ``rewriter`` asks the chat model of a rewriting
    strategy (proposition, resume); when None and one is needed, one is made without a disk
    cache.

    Raises:
        BackendError: the embedder failed.
    """
    sink = [] if diagnostics is None else diagnostics
    if embedder is None and recipe.needs_embedder:
        embedder = open_embedder(recipe.embedder, None)

    def warn(code: str, message: str) -> None:
        sink.append(Diagnostic(doc.source, code, message))

    measure = measure_for(recipe.budget.unit, recipe.tokenizer)
    sizer = measure.prepare(doc.text)
    tokens = _token_sizer(doc.text, recipe, sizer)
    ctx = Context(
        measure=measure,
        sizer=sizer,
        limit=recipe.strategy_limit,
        tokens=tokens,
        find_sections=_markdown_sections,
        delegate=_delegate,
        warn=warn,
        min_size=recipe.min_size,
    )
    if embedder is not None:
        ctx = replace(ctx, embedder=functools.partial(_identity, embedder))
    if recipe.contextualize:
        ctx = _contextualized(doc, ctx)
    spans = recipe.strategy.split(doc, recipe.options, ctx)
    if recipe.refine and recipe.limit is not None:
        spans = refine_spans(doc, spans, ctx, limit=recipe.limit, unit=recipe.budget.unit)
    if recipe.min_size:
        spans = _merge_small(doc, spans, ctx, sizer, recipe)
    if recipe.contextualize and recipe.limit is not None:
        spans = _fit_contexts(doc, spans, ctx, sizer, recipe)
    kind = recipe.strategy.rewrites  # the model rewrites the spans the passes settled
    if kind is not None:
        if rewriter is None:
            from ragchunk.rewrite import open_rewriter

            rewriter = open_rewriter(recipe, None)
        spans = rewriter.rewrite(doc, spans, kind, recipe.options, warn)
    counted = recipe.count_tokens or recipe.budget.unit == "tokens"
    chunks = assemble(
        doc,
        spans,
        strategy=recipe.strategy.name,
        fingerprint=recipe.fingerprint,
        tokens=tokens() if counted else None,
        contextualize=recipe.contextualize,
    )
    if rewriter is not None:
        chunks = rewriter.finish(chunks)
    if recipe.embed and embedder is not None:
        chunks = embed_chunks(chunks, embedder)
    return chunks


def _identity(embedder: CachedEmbedder) -> CachedEmbedder:
    return embedder


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


def _contextualized(doc: Document, ctx: Context) -> Context:
    """Return ``ctx`` whose sizer counts each chunk's heading breadcrumb (``--contextualize``).

    Raises:
        InputError: a breadcrumb alone leaves no room for text within the size limit.
    """
    headings_at = heading_lookup(doc.sections)

    def breadcrumb(start: int) -> str:
        return format_breadcrumb(headings_at(start))

    if ctx.limit is not None:
        paths = (section.headings for section in doc.sections)
        check_breadcrumbs(doc.source, paths, ctx.measure, ctx.limit)
    sizer = PrefixedSizer(
        doc.text,
        ctx.sizer,
        count=ctx.measure.count,
        prefix_at=breadcrumb,
        additive=ctx.measure.is_length,
    )
    return replace(ctx, sizer=sizer, breadcrumb=breadcrumb, contextualize=True)


def _fit_contexts(
    doc: Document, spans: list[Span], ctx: Context, sizer: Sizer, recipe: Recipe[Any]
) -> list[Span]:
    """SPEC §3.3 with --contextualize: split any span whose context the strategy undercounted."""
    no_overlap = replace(recipe.budget, overlap=0)

    def refine(start: int, end: int, lead_sizer: Sizer) -> list[Window]:
        return split_range(doc.text, start, end, sizer=lead_sizer, budget=no_overlap)

    return fit_contexts(
        doc.text,
        spans,
        sizer=sizer,
        count=ctx.measure.count,
        additive=ctx.measure.is_length,
        limit=recipe.budget.size,
        headings_at=heading_lookup(doc.sections),
        refine=refine,
    )


def _merge_small(
    doc: Document, spans: list[Span], ctx: Context, sizer: Sizer, recipe: Recipe[Any]
) -> list[Span]:
    """Merge chunks smaller than ``--min-size`` into a neighbour under the same heading."""
    return merge_small(
        spans,
        min_size=recipe.min_size,
        max_size=recipe.limit,
        size_alone=sizer.size,
        size_as_chunk=ctx.sizer.size,
        scope=heading_scopes(doc.sections),
        headings_at=heading_lookup(doc.sections),
    )


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
    embedder: CachedEmbedder | None = None
    rewriter: Rewriter | None = None
    llm: tuple[tuple[str, int], ...] = ()
    try:
        if recipe.needs_embedder:
            embedder = open_embedder(recipe.embedder, policy.cache)
        if recipe.strategy.rewrites:
            from ragchunk.rewrite import open_rewriter

            rewriter = open_rewriter(recipe, policy.cache, dry_run=policy.dry_run)
        data = read_input(source, policy.max_bytes)
        content_hash = hashlib.sha256(data).hexdigest()
        if content_hash == known_hash:
            return FileResult(source, doc_id, content_hash=content_hash, unchanged=True)
        doc = parse_bytes(data, _request(source, doc_id, plan, diagnostics), format=recipe.format)
        del data  # the bytes of a large input need not live on beside its text and chunks
        chunks = chunk_document(doc, recipe, diagnostics, embedder=embedder, rewriter=rewriter)
        if rewriter is not None:
            llm = tuple(rewriter.snapshot().items())
        check = policy.check and not policy.dry_run
        violations = check_chunks(doc, chunks, recipe, rewriter=rewriter) if check else ()
    except BackendError as exc:  # the backend names itself; the input is named here
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=f"{source}: {exc}")
    except RagchunkError as exc:
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=str(exc))
    except MemoryError:
        error = f"{source}: ran out of memory (lower --max-bytes or --jobs)"
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=error)
    except Exception as exc:
        if policy.debug:
            raise
        reason = first_line(str(exc))
        message = f"{source}: internal error: {type(exc).__name__}: {reason}; rerun with --debug"
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=message)
    if recipe.hashes:
        chunks = [_with_hashes(chunk, content_hash) for chunk in chunks]
    if embedder is not None and embedder.problem is not None:
        diagnostics.append(Diagnostic(source, "cache", f"{source}: {embedder.problem}"))
    if rewriter is not None and rewriter.client.problem is not None:
        diagnostics.append(Diagnostic(source, "cache", f"{source}: {rewriter.client.problem}"))
    return FileResult(
        source,
        doc_id,
        tuple(chunks),
        tuple(diagnostics),
        document=doc if keep_document else None,
        content_hash=content_hash,
        chunk_count=len(chunks),
        violations=violations,
        embedded=0 if embedder is None else embedder.embedded,
        cached=0 if embedder is None else embedder.cached,
        llm=llm,
    )


def _request(source: str, doc_id: str, plan: Plan, diagnostics: list[Diagnostic]) -> ParseRequest:
    def warn(code: str, message: str) -> None:
        diagnostics.append(Diagnostic(source, code, message))

    return ParseRequest(
        source=source,
        doc_id=doc_id,
        password=plan.policy.password,
        language=plan.recipe.language,
        max_bytes=plan.policy.max_bytes,
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
    )


def check_chunks(
    doc: Document, chunks: Sequence[Chunk], recipe: Recipe[Any], *, rewriter: Rewriter | None = None
) -> tuple[str, ...]:
    """Return the violations of SPEC §3 in ``chunks``, a second run of the recipe included.

    This is ``--check``: the checker the test suite uses, run on the user's own documents.
    The second run of a rewriting strategy goes through ``rewriter`` (its cache answers).
    """
    from ragchunk.check import find_differences, find_violations

    found = find_violations(doc, chunks, limits_for(recipe))
    again = chunk_document(doc, recipe, rewriter=rewriter, diagnostics=[])
    found += find_differences(chunks, again)
    return tuple(found)


def first_line(text: str) -> str:
    """Return the first non-blank line of an exception's text (messages are one line)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _with_hashes(chunk: Chunk, doc_hash: str) -> Chunk:
    # surrogatepass: a PDF's text may hold lone surrogates; the hash must still be defined.
    text_hash = hashlib.sha256(chunk.text.encode("utf-8", "surrogatepass")).hexdigest()
    return dataclasses.replace(chunk, doc_hash=doc_hash, hash=text_hash)
