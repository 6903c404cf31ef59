"""The engine: one input read, parsed, chunked and checked; a failure never escapes as a crash.

``chunk_document`` runs a recipe over a parsed document: the strategy's spans (and the spans a
template drops, reported), then the optional passes (``ragchunk.pipeline.passes``; with an embedder,
``ragchunk.pipeline.embedding``), then the records.
``process`` does the whole of one input under its policy (byte cap, deadline, ``--check``) and
returns a ``FileResult``: its chunks, or the one-line error that stopped it, plus warnings; a
container input (an mbox) gives the chunks of each document in it, and names those that failed.
Running many inputs, in this process or in workers, is ``ragchunk.runs.workers``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragchunk import parsers
from ragchunk.defaults import STDIN
from ragchunk.errors import BackendError, RagchunkError
from ragchunk.model import Dropped
from ragchunk.parsers._budget import TextBudget
from ragchunk.parsers._spec import ParseRequest
from ragchunk.pipeline.chunks import assemble, gc_paused
from ragchunk.pipeline.cutting import cut_spans
from ragchunk.pipeline.deadline import TimedOut, time_limit, timeout_message
from ragchunk.pipeline.plan import limits_for
from ragchunk.pipeline.reading import (
    check_not_empty,
    check_size,
    choose_format,
    parse_member,
    read_input,
)
from ragchunk.pipeline.results import Diagnostic, FileResult, first_line

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ragchunk.backends.cache import CachedEmbedder
    from ragchunk.model import Chunk, Document, Span
    from ragchunk.parsers._spec import Member
    from ragchunk.pipeline.plan import Plan, Recipe
    from ragchunk.pipeline.rewrite import Rewriter


@gc_paused()
def chunk_document(
    doc: Document,
    recipe: Recipe,
    diagnostics: list[Diagnostic] | None = None,
    dropped: list[Dropped] | None = None,
    *,
    embedder: CachedEmbedder | None = None,
    rewriter: Rewriter | None = None,
) -> list[Chunk]:
    """Run the recipe's strategy and passes over one parsed document; return its records.

    A strategy that picks another per document (``auto``) runs the recipe of its choice. The
    spans a template drops on purpose are appended to ``dropped`` (in document order).
    ``embedder`` serves the strategies and passes that need one; when None and one is needed,
    one is made that caches in memory only. ``rewriter`` asks the chat model of a rewriting
    strategy (proposition, resume); when None and one is needed, one is made without a disk
    cache.

    Raises:
        BackendError: the embedder failed.
    """
    recipe = recipe.for_document(doc)
    sink = [] if diagnostics is None else diagnostics
    drops: list[Dropped] = [] if dropped is None else dropped
    if embedder is None and recipe.needs_embedder:
        from ragchunk.backends import open_embedder

        embedder = open_embedder(recipe.embedder, None)

    def warn(code: str, message: str) -> None:
        sink.append(Diagnostic(doc.source, code, message))

    if rewriter is None and recipe.strategy.rewrites:
        from ragchunk.pipeline.rewrite import open_rewriter

        rewriter = open_rewriter(recipe, None)
    counted = recipe.count_tokens or recipe.capacity.unit == "tokens"
    if recipe.parents is not None:
        from ragchunk.pipeline.family import chunk_family

        def cut(part: Document, part_drops: list[Dropped]) -> list[Span]:
            return cut_spans(part, recipe, warn, part_drops, embedder, rewriter)[0]

        chunks = chunk_family(doc, recipe, cut, warn=warn, dropped=drops, counted=counted)
    else:
        spans, tokens = cut_spans(doc, recipe, warn, drops, embedder, rewriter)
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
        from ragchunk.pipeline.embedding import embed_chunks

        chunks = embed_chunks(chunks, embedder)
    return chunks


def process(
    source: str,
    doc_id: str,
    plan: Plan,
    *,
    keep_document: bool = False,
    known_hash: str | None = None,
    path: str | None = None,
    data: bytes | None = None,
) -> FileResult:
    """Read, parse and chunk one input; an error becomes the result's ``error``.

    When the SHA-256 of the input's bytes equals ``known_hash``, nothing is parsed and the
    result says ``unchanged``. The work stops at the policy's timeout (``deadline``). The
    input is read from ``path`` when given (``source`` still names it, as in messages), and
    not at all when ``data`` holds its bytes already (read by a distributed reader).
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
                path=path,
                data=data,
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
    path: str | None,
    data: bytes | None,
) -> FileResult:
    recipe, policy = plan.recipe, plan.policy
    content_hash = None
    embedder: CachedEmbedder | None = None
    rewriter: Rewriter | None = None
    try:
        if recipe.needs_embedder:
            from ragchunk.backends import open_embedder

            embedder = open_embedder(recipe.embedder, policy.cache)
        if recipe.strategy.rewrites:
            from ragchunk.pipeline.rewrite import open_rewriter

            rewriter = open_rewriter(recipe, policy.cache, dry_run=policy.dry_run)
        if data is None:
            data = read_input(source, policy.max_bytes, path=path)
        else:
            data = check_size(data, source, policy.max_bytes)
        content_hash = hashlib.sha256(data).hexdigest()
        if content_hash == known_hash:
            return FileResult(source, doc_id, content_hash=content_hash, unchanged=True)
        request = parse_request(source, doc_id, plan, diagnostics)
        fmt = parsers.get(choose_format(data, request, format=_format(source, recipe)))
        if fmt.members is not None:
            members = fmt.members(data, request)
            models = (embedder, rewriter)
            return _process_members(members, request, plan, diagnostics, content_hash, *models)
        doc = fmt.parse(data, request)
        del data  # the bytes of a large input need not live on beside its text and chunks
        done = _chunk_checked(doc, plan, diagnostics, embedder, rewriter)
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
        message = _internal_error(source, exc)
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=message)
    if embedder is not None and embedder.problem is not None:
        diagnostics.append(Diagnostic(source, "cache", f"{source}: {embedder.problem}"))
    if rewriter is not None and rewriter.client.problem is not None:
        diagnostics.append(Diagnostic(source, "cache", f"{source}: {rewriter.client.problem}"))
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
        embedded=0 if embedder is None else embedder.embedded,
        cached=0 if embedder is None else embedder.cached,
        dimensions=_dimensions(done.chunks),
        llm=tuple(done.llm.items()),
    )


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class _Chunked:
    """One document's chunks, dropped spans, checker's findings and chat model's counts.

    The counts leave out ``--check``'s second run, which the cache answers.
    """

    chunks: list[Chunk]
    dropped: list[Dropped]
    violations: tuple[str, ...]
    llm: Counter[str]


def _chunk_checked(
    doc: Document,
    plan: Plan,
    diagnostics: list[Diagnostic],
    embedder: CachedEmbedder | None = None,
    rewriter: Rewriter | None = None,
) -> _Chunked:
    if not plan.policy.allow_empty:
        check_not_empty(doc)
    dropped: list[Dropped] = []
    models: dict[str, Any] = {"embedder": embedder, "rewriter": rewriter}
    before = Counter(rewriter.snapshot() if rewriter else {})
    chunks = chunk_document(doc, plan.recipe, diagnostics, dropped, **models)
    llm = Counter(rewriter.snapshot() if rewriter else {}) - before
    check = plan.policy.check and not plan.policy.dry_run  # a dry run's chunks are no output
    violations = check_chunks(doc, chunks, plan.recipe, dropped, **models) if check else ()
    return _Chunked(chunks, dropped, violations, llm)


def _process_members(
    members: Iterator[Member],
    request: ParseRequest,
    plan: Plan,
    diagnostics: list[Diagnostic],
    content_hash: str,
    embedder: CachedEmbedder | None,
    rewriter: Rewriter | None,
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
    llm: Counter[str] = Counter()
    for member in members:
        name = request.source + member.name
        try:
            doc = parse_member(member, request)
            done = _chunk_checked(doc, plan, diagnostics, embedder, rewriter)
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
        llm += done.llm
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
        embedded=0 if embedder is None else embedder.embedded,
        cached=0 if embedder is None else embedder.cached,
        dimensions=_dimensions(chunks),
        llm=tuple(llm.items()),
    )


def _dimensions(chunks: Sequence[Chunk]) -> int:
    """Return the size of the first vector among ``chunks`` (0 when none has one)."""
    return next((len(c.embedding) for c in chunks if c.embedding is not None), 0)


def _internal_error(source: str, exc: Exception) -> str:
    reason = first_line(str(exc))
    return f"{source}: internal error: {type(exc).__name__}: {reason}; rerun with --debug"


def _hashed(chunks: list[Chunk], recipe: Recipe, content_hash: str) -> tuple[Chunk, ...]:
    if recipe.hashes:
        return tuple(_with_hashes(chunk, content_hash) for chunk in chunks)
    return tuple(chunks)


def _format(source: str, recipe: Recipe) -> str | None:
    """Return the format to parse ``source`` as, or None to detect it.

    That is ``--format``, else for standard input the format its strategy reads it as (the
    code strategy: code), unless ``--language`` already implies code.
    """
    if recipe.format is not None or source != STDIN or recipe.language is not None:
        return recipe.format
    return recipe.strategy.stdin_format


def parse_request(
    source: str, doc_id: str, plan: Plan, diagnostics: list[Diagnostic]
) -> ParseRequest:
    """Return what a parser is told of one input: its plan's limits and options.

    Its warnings go into ``diagnostics``.
    """

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
        budget=TextBudget(plan.policy.max_text),
    )


def check_chunks(
    doc: Document,
    chunks: Sequence[Chunk],
    recipe: Recipe,
    dropped: Sequence[Dropped] = (),
    *,
    embedder: CachedEmbedder | None = None,
    rewriter: Rewriter | None = None,
) -> tuple[str, ...]:
    """Return the violations of SPEC §3 in ``chunks``, a second run of the recipe included.

    ``dropped`` are the spans the strategy reported leaving out: exactly those may be missing;
    the second run asks ``embedder`` (its cache answers what the first run computed).
    This is ``--check``: the checker the test suite uses, run on the user's own documents.
    The second run of a rewriting strategy goes through ``rewriter`` (its cache answers).
    """
    from ragchunk.pipeline.check import find_differences, find_violations

    recipe = recipe.for_document(doc)
    if recipe.parents is not None:
        from ragchunk.pipeline.family import find_family_violations

        found = find_family_violations(doc, chunks, recipe, dropped)
    else:
        found = find_violations(doc, chunks, limits_for(recipe), dropped)
    again: list[Dropped] = []
    rerun = chunk_document(doc, recipe, [], again, embedder=embedder, rewriter=rewriter)
    found += find_differences(chunks, rerun)
    if again != list(dropped):
        found.append("a second run dropped other spans than the first")
    return tuple(found)


def _with_hashes(chunk: Chunk, doc_hash: str) -> Chunk:
    # surrogatepass: a PDF's text may hold lone surrogates; the hash must still be defined.
    text_hash = hashlib.sha256(chunk.text.encode("utf-8", "surrogatepass")).hexdigest()
    return dataclasses.replace(chunk, doc_hash=doc_hash, hash=text_hash)
