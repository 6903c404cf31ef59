"""Files → parse → strategy → chunks. A failed file never stops the others; nothing is printed.

``make_plan`` validates every option and loads the tokenizer before the first file is read
(SPEC §4); ``make_plans`` does so for a configuration file's every scope. ``run_jobs`` then yields
one ``FileResult`` per input, in input order, from this process or from a pool of worker
processes (``--jobs``): the only concurrency in ragchunk lives here (STYLE §2.9).

Resource caps (SPEC §6): an input larger than ``Plan.max_bytes`` is refused before it is read
whole, and parsers hold decompressed parts to the same cap. ``Plan.timeout`` limits the time one
input may take: in this process an interval timer interrupts the work (POSIX, main thread only),
and a worker process that does not answer a little after its deadline (stuck inside C code) is
killed and replaced; either way the input fails with one line and the others go on.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import os
import sys
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from ragchunk import parsers, strategies
from ragchunk.chunks import assemble, gc_paused, heading_lookup
from ragchunk.code.languages import check_language
from ragchunk.defaults import DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT, DEFAULT_TOKENIZER
from ragchunk.errors import InputError, LimitExceededError, OptionError, RagchunkError, UsageError
from ragchunk.inputs import STDIN, find_inputs
from ragchunk.measure import (
    load_tokenizer,
    measure_for,
    use_one_encoding_thread,
)
from ragchunk.options import Budget, build_options
from ragchunk.parsers._spec import ParseRequest
from ragchunk.strategies._spec import Context
from ragchunk.strategies.recursive import split_range
from ragchunk.text.breadcrumb import (
    PrefixedSizer,
    check_breadcrumbs,
    fit_contexts,
    format_breadcrumb,
)
from ragchunk.text.merge import heading_scopes, merge_small

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from types import MappingProxyType

    from ragchunk.config import Config, Settings
    from ragchunk.inputs import Glob, Input
    from ragchunk.measure import Sizer
    from ragchunk.model import Chunk, Document, Span
    from ragchunk.options import Unit
    from ragchunk.strategies._spec import Strategy
    from ragchunk.text.pack import Window

_IN_FLIGHT_PER_WORKER: Final = 4
"""Results a worker may have ready ahead of the reader: bounds memory, keeps workers busy."""
KILL_GRACE: Final = 2.0
"""Seconds past its deadline before a worker that has not answered is killed."""
RENDER_BLOCK: Final = 1000
"""Chunks rendered into one piece of ``FileResult.rendered``."""
RECYCLE_MIB: Final = 150
"""A worker that grew by this much since it started is replaced after its job (Linux)."""
_READ_BLOCK: Final = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A warning about one input: ``code`` is stable, ``message`` is one sentence."""

    path: str
    code: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """Everything decided before the first file is read. Build it with ``make_plan``.

    Attributes:
        strategy: the strategy to run.
        options: its validated options (``options.budget`` holds size, overlap and unit).
        tokenizer: the tokenizer name for token units and ``count_tokens``.
        count_tokens: give every chunk a ``tokens`` count even when the unit is chars.
        format: a format forced with ``--format``, or None to detect it per file.
        language: a code language forced with ``--language`` (implies the ``code`` format).
        password: the PDF password from ``--password``.
        debug: let unexpected exceptions propagate with their traceback.
        hashes: give every chunk ``doc_hash`` (SHA-256 of the input's bytes) and ``hash``
            (SHA-256 of its UTF-8 text).
        check: run the invariant checker on every input's chunks (``--check``); see
            ``FileResult.violations``.
        timeout: the most seconds one input may take (``--timeout``), or None for no limit.
        max_bytes: the largest input, and the most any decompressed part of it may expand to
            (``--max-bytes``).
        contextualize: give every chunk a ``context`` (heading breadcrumb + text) and count
            the breadcrumb within the size limit.
        min_size: merge chunks smaller than this (in the budget's unit) into a neighbour under
            the same heading; 0 turns merging off.
        size_given: whether ``--size`` was given (strategies unbounded by design use it).
    """

    strategy: Strategy
    options: Any
    tokenizer: str = DEFAULT_TOKENIZER
    count_tokens: bool = False
    format: str | None = None
    language: str | None = None
    password: str | None = None
    debug: bool = False
    hashes: bool = False
    timeout: float | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    check: bool = False
    contextualize: bool = False
    min_size: int = 0
    size_given: bool = True
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        key = f"{self.strategy.name}\0{self.options!r}\0{self.tokenizer}"
        if self.format or self.language:  # forcing a parse changes the chunks, so their ids
            key += f"\0{self.format}\0{self.language}"
        if self.contextualize:
            key += "\0contextualize"
        if self.min_size:
            key += f"\0min_size={self.min_size}"
        digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
        object.__setattr__(self, "fingerprint", digest)


@dataclass(frozen=True, slots=True)
class FileResult:
    """The outcome for one input: its chunks, or the error that stopped it, plus warnings.

    ``content_hash`` is the SHA-256 of the input's bytes once they were read; ``unchanged``
    says the input was skipped because that hash equals the one a manifest recorded. When the
    job had a renderer, ``rendered`` holds its output, in pieces of at most ``RENDER_BLOCK``
    chunks (never one large string beside its parts), and ``chunks`` is empty; ``chunk_count``
    counts the chunks either way. With ``Plan.check``, ``violations`` lists what the invariant
    checker found (SPEC §3), one sentence each; the chunks are kept all the same.
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


@dataclass(frozen=True, slots=True)
class Job:
    """One input and the plan it is chunked with.

    Attributes:
        source: the path to read (``-`` for standard input).
        doc_id: the document's id in the output.
        plan: the validated plan for this input.
        known_hash: skip the input (``FileResult.unchanged``) when its content hash is this.
        render: turns the chunks into output text where they are made (in the worker
            process), so that only text crosses between processes; a module-level function.
    """

    source: str
    doc_id: str
    plan: Plan
    known_hash: str | None = None
    render: Callable[[Sequence[Chunk]], str] | None = None


@dataclass(frozen=True, slots=True)
class Plans:
    """The plan of every scope of a configuration file, flags applied; see ``make_plans``.

    Attributes:
        default: the plan for inputs no rule matches.
        rules: ``(glob, plan)`` per ``[files."GLOB"]`` section, in file order; first match wins.
        config: the configuration they come from (for matching paths relative to it).
    """

    default: Plan
    rules: tuple[tuple[Glob, Plan], ...] = ()
    config: Config | None = None

    def for_input(self, source: str, doc_id: str) -> Plan:
        """Return the plan of the first rule whose glob matches the input, else the default."""
        if not self.rules or self.config is None:
            return self.default
        parts = self.config.match_parts(source, doc_id)
        for glob, plan in self.rules:
            if glob.matches(parts):
                return plan
        return self.default


def make_plan(
    strategy: str = strategies.DEFAULT_STRATEGY,
    *,
    size: int | None = None,
    overlap: int | None = None,
    unit: Unit | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    options: Mapping[str, object] | None = None,
    count_tokens: bool = False,
    format: str | None = None,
    language: str | None = None,
    password: str | None = None,
    debug: bool = False,
    hashes: bool = False,
    timeout: float | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    check: bool = False,
    contextualize: bool = False,
    min_size: int | None = None,
) -> Plan:
    """Validate every option and return the plan; loads the tokenizer when one is needed.

    ``timeout`` None (the library's default) sets no time limit: only the command line arms
    a timer unless asked, since it takes over ``SIGALRM`` while an input is processed.

    Raises:
        UsageError: an unknown strategy, format, language or tokenizer, or a bad option value.
    """
    check_limits(timeout=timeout, max_bytes=max_bytes)
    chosen = strategies.get(strategy)
    default_budget: Budget = chosen.options().budget
    budget = default_budget.with_flags(size=size, overlap=overlap, unit=unit)
    built = build_options(chosen.options, budget, dict(options or {}), strategy=chosen.name)
    _check_min_size(min_size, budget, size_given=size is not None or chosen.bounded)
    if format is not None:
        parsers.check_name(format)
    if language is not None:
        check_language(language)
    if budget.unit == "tokens" or count_tokens or chosen.name == "token":
        load_tokenizer(tokenizer)
    return Plan(
        strategy=chosen,
        options=built,
        tokenizer=tokenizer,
        count_tokens=count_tokens,
        format=format,
        language=language,
        password=password,
        debug=debug,
        hashes=hashes,
        timeout=timeout,
        max_bytes=max_bytes,
        check=check,
        contextualize=contextualize,
        min_size=min_size or 0,
        size_given=size is not None,
    )


def check_limits(*, timeout: float | None, max_bytes: int) -> None:
    """Raise ``OptionError`` unless ``--timeout`` and ``--max-bytes`` are positive."""
    if timeout is not None and not 0 < timeout < math.inf:  # refuses NaN and inf too
        raise OptionError("--timeout", f"must be a positive number of seconds (got {timeout})")
    if max_bytes < 1:
        raise OptionError("--max-bytes", f"must be at least 1 (got {max_bytes})")


def make_plans(
    config: Config,
    flags: Settings,
    *,
    password: str | None = None,
    debug: bool = False,
    check: bool = False,
) -> Plans:
    """Return the plans of every scope of ``config`` with ``flags`` on top (flags win).

    Every scope of the file is first validated on its own, so a mistake in the file is reported
    with the file's name even when a flag overrides it; no input has been read yet.

    Raises:
        UsageError: a bad value in the file (named with the file and section) or in the flags.
    """
    for where, scope in config.scopes():
        try:
            plan_from_settings(scope)
        except UsageError as exc:
            raise UsageError(f"{where}: {exc}") from None
    default = plan_from_settings(
        flags.over(config.defaults), password=password, debug=debug, check=check
    )
    rules = []
    for rule in config.rules:
        settings = flags.over(rule.settings.over(config.defaults))
        try:
            plan = plan_from_settings(settings, password=password, debug=debug, check=check)
        except UsageError as exc:  # the flags do not fit this section (an -O of another strategy)
            raise UsageError(f"{exc} (for the inputs of {rule.where})") from None
        rules.append((rule.glob, plan))
    return Plans(default, tuple(rules), config)


def plan_from_settings(
    settings: Settings,
    *,
    password: str | None = None,
    debug: bool = False,
    check: bool = False,
) -> Plan:
    """Return the validated plan for merged settings (unset ones take their defaults).

    These are the command line's defaults: an unset timeout is ``DEFAULT_TIMEOUT``.

    Raises:
        UsageError: an unknown strategy, format or tokenizer, or a bad option value.
    """
    return make_plan(
        settings.strategy or strategies.DEFAULT_STRATEGY,
        size=settings.size,
        overlap=settings.overlap,
        unit=settings.unit,
        tokenizer=settings.tokenizer or DEFAULT_TOKENIZER,
        options=settings.options,
        count_tokens=bool(settings.count_tokens),
        format=settings.format,
        language=settings.language,
        password=password,
        debug=debug,
        check=check,
        hashes=bool(settings.hashes),
        timeout=DEFAULT_TIMEOUT if settings.timeout is None else settings.timeout,
        max_bytes=DEFAULT_MAX_BYTES if settings.max_bytes is None else settings.max_bytes,
        contextualize=bool(settings.contextualize),
        min_size=settings.min_size,
    )


def _check_min_size(min_size: int | None, budget: Budget, *, size_given: bool) -> None:
    if min_size is None:
        return
    if min_size < 1:
        raise OptionError("--min-size", f"must be at least 1 (got {min_size})")
    if size_given and min_size > budget.size:
        raise OptionError("--min-size", f"must not exceed --size (got {min_size} > {budget.size})")


@gc_paused()
def chunk_document(
    doc: Document, plan: Plan, diagnostics: list[Diagnostic] | None = None
) -> list[Chunk]:
    """Run the plan's strategy over one parsed document and return its chunk records."""
    sink = [] if diagnostics is None else diagnostics
    budget: Budget = plan.options.budget
    measure = measure_for(budget.unit, plan.tokenizer)
    sizer = measure.prepare(doc.text)

    def warn(code: str, message: str) -> None:
        sink.append(Diagnostic(doc.source, code, message))

    ctx = Context(
        measure=measure,
        sizer=sizer,
        tokenizer=plan.tokenizer,
        warn=warn,
        size_given=plan.size_given,
    )
    if plan.contextualize:
        ctx = _contextualized(doc, ctx, plan)
    spans = plan.strategy.split(doc, plan.options, ctx)
    if plan.min_size:
        spans = _merge_small(doc, spans, ctx, sizer, plan)
    if plan.contextualize and _limit(plan) is not None:
        spans = _fit_contexts(doc, spans, ctx, sizer, plan)
    tokens = None
    if plan.count_tokens or budget.unit == "tokens":
        tokens = (
            sizer if budget.unit == "tokens" else load_tokenizer(plan.tokenizer).prepare(doc.text)
        )
    return assemble(
        doc,
        spans,
        strategy=plan.strategy.name,
        fingerprint=plan.fingerprint,
        tokens=tokens,
        contextualize=plan.contextualize,
    )


def _limit(plan: Plan) -> int | None:
    """Return the hard size limit, or None when unbounded by design and no --size was given.

    A strategy is unbounded by design (hierarchical), or its options say so for a mode
    (sentence-count mode: ``options.bounded`` is False).
    """
    bounded = plan.strategy.bounded and getattr(plan.options, "bounded", True)
    return plan.options.budget.size if bounded or plan.size_given else None


def _contextualized(doc: Document, ctx: Context, plan: Plan) -> Context:
    """Return ``ctx`` whose sizer counts each chunk's heading breadcrumb (``--contextualize``).

    Raises:
        InputError: a breadcrumb alone leaves no room for text within the size limit.
    """
    headings_at = heading_lookup(doc)

    def breadcrumb(start: int) -> str:
        return format_breadcrumb(headings_at(start))

    limit = _limit(plan)
    if limit is not None:
        paths = (section.headings for section in doc.sections)
        check_breadcrumbs(doc.source, paths, ctx.measure, limit)
    sizer = PrefixedSizer(
        doc.text,
        ctx.sizer,
        count=ctx.measure.count,
        prefix_at=breadcrumb,
        additive=plan.options.budget.unit == "chars",
    )
    return replace(ctx, sizer=sizer, breadcrumb=breadcrumb, contextualize=True)


def _fit_contexts(
    doc: Document, spans: list[Span], ctx: Context, sizer: Sizer, plan: Plan
) -> list[Span]:
    """SPEC §3.3 with --contextualize: split any span whose context the strategy undercounted."""
    budget: Budget = plan.options.budget
    limit = budget.size
    no_overlap = replace(budget, overlap=0)

    def refine(start: int, end: int, lead_sizer: Sizer) -> list[Window]:
        return split_range(doc.text, start, end, sizer=lead_sizer, budget=no_overlap)

    return fit_contexts(
        doc.text,
        spans,
        sizer=sizer,
        count=ctx.measure.count,
        additive=budget.unit == "chars",
        limit=limit,
        headings_at=heading_lookup(doc),
        refine=refine,
    )


def _merge_small(
    doc: Document, spans: list[Span], ctx: Context, sizer: Sizer, plan: Plan
) -> list[Span]:
    """Merge chunks smaller than ``--min-size`` into a neighbour under the same heading."""
    size_as_chunk: Callable[[int, int], int] = ctx.sizer.size
    return merge_small(
        spans,
        min_size=plan.min_size,
        max_size=_limit(plan),
        size_alone=sizer.size,
        size_as_chunk=size_as_chunk,
        scope=heading_scopes(doc.sections),
        headings_at=heading_lookup(doc),
    )


def parse_bytes(
    data: bytes, source: str, doc_id: str, plan: Plan, diagnostics: list[Diagnostic]
) -> Document:
    """Detect the format of ``data`` (unless forced) and parse it into a Document.

    Raises:
        InputError: the data cannot be parsed.
    """

    def warn(code: str, message: str) -> None:
        diagnostics.append(Diagnostic(source, code, message))

    name = plan.format or ("code" if plan.language else parsers.detect(source, data[:8], data))
    request = ParseRequest(
        source=source,
        doc_id=doc_id,
        password=plan.password,
        language=plan.language,
        max_bytes=plan.max_bytes,
        warn=warn,
    )
    return parsers.get(name).parse(data, request)


def read_input(source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Return the bytes of a file, or of standard input for ``-``, refusing more than a cap.

    A regular file's size is checked before reading; anything else (standard input, a pipe,
    a device) is read up to one byte past the cap, so an endless stream cannot fill memory.

    Raises:
        InputError: the file cannot be read.
        LimitExceededError: it holds more than ``max_bytes`` bytes.
    """
    if source == STDIN:
        return _read_capped(sys.stdin.buffer, source, max_bytes)
    try:
        with Path(source).open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise _too_large(source, max_bytes, size)
            return _read_capped(handle, source, max_bytes)
    except IsADirectoryError:
        raise InputError(f"{source}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None


def _read_capped(handle: BinaryIO, source: str, max_bytes: int) -> bytes:
    blocks: list[bytes] = []
    total = 0
    while total <= max_bytes and (block := handle.read(min(_READ_BLOCK, max_bytes + 1 - total))):
        blocks.append(block)
        total += len(block)
    if total > max_bytes:
        raise _too_large(source, max_bytes)
    return b"".join(blocks)


def _too_large(source: str, max_bytes: int, size: int | None = None) -> LimitExceededError:
    if size is None:
        return LimitExceededError(f"{source}: refused: more than --max-bytes {max_bytes} bytes")
    return LimitExceededError(f"{source}: refused: {size} bytes, more than --max-bytes {max_bytes}")


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
    result says ``unchanged``. The work stops at ``plan.timeout`` (see ``time_limit``).
    """
    diagnostics: list[Diagnostic] = []
    try:
        with time_limit(plan.timeout):
            return _process(
                source,
                doc_id,
                plan,
                diagnostics,
                keep_document=keep_document,
                known_hash=known_hash,
            )
    except TimedOut:
        error = timeout_message(source, plan.timeout)
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
    content_hash = None
    try:
        data = read_input(source, plan.max_bytes)
        content_hash = hashlib.sha256(data).hexdigest()
        if content_hash == known_hash:
            return FileResult(source, doc_id, content_hash=content_hash, unchanged=True)
        doc = parse_bytes(data, source, doc_id, plan, diagnostics)
        del data  # the bytes of a large input need not live on beside its text and chunks
        chunks = chunk_document(doc, plan, diagnostics)
        violations = check_chunks(doc, chunks, plan) if plan.check else ()
    except RagchunkError as exc:
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=str(exc))
    except MemoryError:
        error = f"{source}: ran out of memory (lower --max-bytes or --jobs)"
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=error)
    except Exception as exc:
        if plan.debug:
            raise
        reason = first_line(str(exc))
        message = f"{source}: internal error: {type(exc).__name__}: {reason}; rerun with --debug"
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=message)
    if plan.hashes:
        chunks = [_with_hashes(chunk, content_hash) for chunk in chunks]
    return FileResult(
        source,
        doc_id,
        tuple(chunks),
        tuple(diagnostics),
        document=doc if keep_document else None,
        content_hash=content_hash,
        chunk_count=len(chunks),
        violations=violations,
    )


def check_chunks(doc: Document, chunks: Sequence[Chunk], plan: Plan) -> tuple[str, ...]:
    """Return the violations of SPEC §3 in ``chunks``, a second run of the plan included.

    This is ``--check``: the checker the test suite uses, run on the user's own documents.
    """
    from ragchunk.check import find_differences, find_violations, limits_for

    found = find_violations(doc, chunks, limits_for(plan))
    found += find_differences(chunks, chunk_document(doc, plan))
    return tuple(found)


def first_line(text: str) -> str:
    """Return the first non-blank line of an exception's text (messages are one line)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class TimedOut(BaseException):
    """Raised inside the work when ``time_limit`` expires.

    A ``BaseException``, like ``KeyboardInterrupt``: third-party code that catches
    ``Exception`` to repair damaged files must not swallow it.
    """


def timeout_message(source: str, seconds: float | None) -> str:
    """Return the one-line failure of an input that ran out of time."""
    return f"{source}: timed out after {seconds:g} s (--timeout)"


@contextlib.contextmanager
def time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``TimedOut`` inside the block once ``seconds`` have passed (None: no limit).

    Uses ``SIGALRM`` and an interval timer, so only on POSIX, in the main thread, and when any
    ``SIGALRM`` handler was set from Python; elsewhere the block runs unlimited (worker
    processes are limited by their parent as well). The timer fires again every second past
    the deadline, in case some code swallowed the first.
    Code inside C extensions is interrupted when it next returns to Python. A timer armed
    before (a test runner's) is suspended meanwhile and re-armed with the time it had left.
    """
    import signal
    import threading
    import time

    if seconds is None or not hasattr(signal, "setitimer"):
        yield
        return
    # Only the main thread may set handlers; one installed outside Python (None) could not be
    # put back afterwards, so it is left alone.
    if threading.current_thread() is not threading.main_thread() or (
        signal.getsignal(signal.SIGALRM) is None
    ):
        yield
        return

    started = time.monotonic()

    def expire(_signum: int, _frame: object) -> None:
        # An alarm of the timer armed before (still pending as this one was set) may arrive
        # here: only our own deadline counts. The outer timer is re-armed below.
        if time.monotonic() - started >= seconds * 0.999:
            raise TimedOut

    previous = signal.signal(signal.SIGALRM, expire)
    outer, outer_interval = signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # someone else's timer (a test runner's): give it back what time it has left
            left = max(outer - (time.monotonic() - started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, outer_interval)


def _with_hashes(chunk: Chunk, doc_hash: str) -> Chunk:
    # surrogatepass: a PDF's text may hold lone surrogates; the hash must still be defined.
    text_hash = hashlib.sha256(chunk.text.encode("utf-8", "surrogatepass")).hexdigest()
    return dataclasses.replace(chunk, doc_hash=doc_hash, hash=text_hash)


def expand(paths: Sequence[str]) -> list[tuple[str, str]]:
    """Return ``(source, doc_id)`` for every input: files as given, directories walked.

    The walk uses the defaults of ``ragchunk.inputs.find_inputs`` (hidden, ignored and binary
    files skipped); ``doc_id`` is the path relative to the walked directory.
    """
    return [(item.source, item.doc_id) for item in find_inputs(paths).inputs]


def run(paths: Sequence[str], plan: Plan) -> Iterator[FileResult]:
    """Yield one result per input, in input order, in this process."""
    return run_jobs([Job(source, doc_id, plan) for source, doc_id in expand(paths)])


def make_jobs(inputs: Iterable[Input], plans: Plans) -> list[Job]:
    """Return one job per input, each with the plan its configuration scope gives it."""
    return [Job(i.source, i.doc_id, plans.for_input(i.source, i.doc_id)) for i in inputs]


def default_jobs() -> int:
    """Return the number of CPU cores this process may use (the default of ``--jobs``)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def check_workers(workers: int) -> None:
    """Raise ``UsageError`` unless ``workers`` (``--jobs``) is at least 1."""
    if workers < 1:
        raise UsageError(f"--jobs must be at least 1 (got {workers})")


def run_jobs(jobs: Sequence[Job], *, workers: int = 1) -> Generator[FileResult, None, None]:
    """Yield one result per job, in job order, as soon as each is ready.

    With ``workers`` > 1 and more than one job, jobs run in worker processes; at most a few
    results per worker wait in memory, so memory does not grow with the number of files, and
    the output is the same as with one worker. A worker that dies (killed, out of memory) fails
    only the input it was working on. Closing the iterator early (``--fail-fast``, a closed
    pipe, Ctrl-C) stops the workers at once. With ``debug`` plans everything runs in this
    process, so that an unexpected exception arrives with its traceback.

    Raises:
        UsageError: ``workers`` is below 1.
    """
    check_workers(workers)
    count = min(workers, len(jobs))
    if count <= 1 or any(job.plan.debug for job in jobs):
        return (_work(job) for job in jobs)
    return _run_pool(jobs, count)


def _work(job: Job) -> FileResult:
    result = process(job.source, job.doc_id, job.plan, known_hash=job.known_hash)
    if job.render is None or not result.chunks:
        return result
    chunks, render = result.chunks, job.render
    pieces = (render(chunks[k : k + RENDER_BLOCK]) for k in range(0, len(chunks), RENDER_BLOCK))
    return dataclasses.replace(result, chunks=(), rendered=tuple(pieces))


def _run_pool(jobs: Sequence[Job], workers: int) -> Generator[FileResult, None, None]:
    """Feed jobs to worker processes, one at a time each, and yield results in job order."""
    from multiprocessing.connection import wait

    pool = [_Worker() for _ in range(workers)]
    window = workers * _IN_FLIGHT_PER_WORKER
    ready: dict[int, FileResult] = {}
    submitted = yielded = 0
    finished = False
    try:
        while yielded < len(jobs):
            for worker in pool:
                if worker.index is None and submitted < len(jobs) and submitted < yielded + window:
                    worker.give(submitted, jobs[submitted])
                    submitted += 1
            if yielded in ready:
                yield ready.pop(yielded)
                yielded += 1
                continue
            busy = [worker for worker in pool if worker.index is not None]
            answered = wait([worker.connection for worker in busy], _time_to_deadline(busy))
            for worker in busy:
                if worker.connection in answered:
                    index, result = worker.take()
                    ready[index] = result
                elif worker.is_overdue():
                    index, result = worker.kill_overdue()
                    ready[index] = result
        finished = True
    finally:
        for worker in pool:
            worker.stop(gracefully=finished)


class _Worker:
    """One worker process and the pipe to it; it chunks one job at a time.

    Each worker has a pipe of its own, read only by this process, so a worker that is killed
    (by us on Ctrl-C, or by the system) can never leave a shared queue half-written.
    """

    def __init__(self) -> None:
        self.index: int | None = None
        self.job: Job | None = None
        self.deadline: float | None = None
        self._start()

    def _start(self) -> None:
        import multiprocessing

        ours, theirs = multiprocessing.Pipe()
        self.process = multiprocessing.Process(target=_serve, args=(theirs,), daemon=True)
        with _stop_signals_blocked():  # until the worker has set its own handlers
            self.process.start()
        theirs.close()
        self.connection = ours

    def give(self, index: int, job: Job) -> None:
        """Send a job; a worker found dead on the way is replaced first.

        With a timeout, the worker stops the job itself at the deadline (``time_limit``);
        ``KILL_GRACE`` later the parent kills it, in case it is stuck where no signal reaches.
        """
        import time

        self.index, self.job = index, job
        timeout = job.plan.timeout
        self.deadline = None if timeout is None else time.monotonic() + timeout + KILL_GRACE
        try:
            self.connection.send(job)
        except OSError:
            self._restart()
            self.connection.send(job)

    def take(self) -> tuple[int, FileResult]:
        """Return the index and result of the job given; a dead worker fails it and restarts."""
        index, job = self._release()
        try:
            result, retiring = self.connection.recv()
        except (EOFError, OSError):
            message = f"{job.source}: the worker process chunking it died ({self._death()})"
            result = FileResult(job.source, job.doc_id, error=message)
            self._restart()
            return index, result
        if retiring:  # it grew large on this input: a fresh process for the next one
            self.process.join(timeout=5)
            self._restart()
        return index, result

    def is_overdue(self) -> bool:
        """Return whether the job given has run past its deadline and kill grace."""
        import time

        return self.deadline is not None and time.monotonic() >= self.deadline

    def kill_overdue(self) -> tuple[int, FileResult]:
        """Kill the worker, fail its job as timed out, and start a fresh worker."""
        index, job = self._release()
        self.process.kill()  # SIGKILL: whatever the worker is stuck in, it cannot hold this off
        self.process.join()
        self.connection.close()
        self._start()
        error = timeout_message(job.source, job.plan.timeout)
        return index, FileResult(job.source, job.doc_id, error=error)

    def _release(self) -> tuple[int, Job]:
        index, job = self.index, self.job
        self.index = self.job = self.deadline = None
        if index is None or job is None:
            raise RuntimeError("no job was given")  # a bug in _run_pool, not bad input
        return index, job

    def stop(self, *, gracefully: bool) -> None:
        """End the worker: asked to, once all is done; terminated, when cut short."""
        if gracefully:
            with contextlib.suppress(OSError):
                self.connection.send(None)
            self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join()
        self.connection.close()

    def _restart(self) -> None:
        self.stop(gracefully=False)
        self._start()

    def _death(self) -> str:
        import signal

        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name
            return f"killed by {name}, perhaps out of memory" if name == "SIGKILL" else f"{name}"
        return f"exit code {code}"


def _time_to_deadline(busy: Sequence[_Worker]) -> float | None:
    """Return the seconds until the first busy worker is overdue, or None without deadlines."""
    import time

    deadlines = [worker.deadline for worker in busy if worker.deadline is not None]
    return max(0.0, min(deadlines) - time.monotonic()) if deadlines else None


def _serve(connection: Connection) -> None:
    """Run in a worker process: chunk each job received until told to stop (``None``).

    Each answer is ``(result, retiring)``: a worker that grew by ``RECYCLE_MIB`` since it
    started retires after its answer and the parent starts a fresh one, since memory freed
    after a large input is seldom given back to the system and would sit beside the next.
    """
    _init_worker()
    baseline = _resident_mib()
    with contextlib.suppress(EOFError):  # the parent went away
        while (job := connection.recv()) is not None:
            result = _work(job)
            now = _resident_mib()
            grown = now - baseline if now is not None and baseline is not None else 0.0
            retiring = grown > RECYCLE_MIB
            connection.send((result, retiring))
            if retiring:
                return


def _resident_mib() -> float | None:
    """Return this process's resident memory in MiB (Linux), else None."""
    try:
        fields = Path("/proc/self/statm").read_text(encoding="ascii").split()
    except OSError:
        return None
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


_STOP_SIGNALS: Final = ("SIGINT", "SIGTERM")


@contextlib.contextmanager
def _stop_signals_blocked() -> Iterator[None]:
    """Hold back SIGINT and SIGTERM: a worker must not get them before it set its handlers."""
    import signal

    if not hasattr(signal, "pthread_sigmask"):  # not POSIX: nothing to hold back
        yield
        return
    stops = {getattr(signal, name) for name in _STOP_SIGNALS}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, stops)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _init_worker() -> None:
    """Prepare a worker process: Ctrl-C is the parent's to handle, results must pickle."""
    import copyreg
    import signal
    import types

    # The terminal sends SIGINT to the whole process group; the parent stops the workers, with
    # SIGTERM, whose default action is wanted even if the parent handled it otherwise. Both
    # were blocked across the fork (see _Worker._start); pending ones arrive on unblocking.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        stops = {getattr(signal, name) for name in _STOP_SIGNALS}
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stops)
    copyreg.pickle(types.MappingProxyType, _reduce_mapping)
    use_one_encoding_thread()  # the workers already use every core


def _reduce_mapping(mapping: MappingProxyType[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    # Chunk metadata is a read-only mapping proxy, which pickle cannot handle by itself.
    return _restore_mapping, (dict(mapping),)


def _restore_mapping(values: dict[str, Any]) -> Mapping[str, Any]:
    from types import MappingProxyType

    from ragchunk.model import EMPTY_METADATA

    return MappingProxyType(values) if values else EMPTY_METADATA
