"""Files → parse → strategy → chunks. A failed file never stops the others; nothing is printed.

``make_plan`` validates every option and loads the tokenizer before the first file is read
(SPEC §4); ``run`` then yields one ``FileResult`` per input, in input order.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragchunk import parsers, strategies
from ragchunk.chunks import assemble, heading_lookup
from ragchunk.code.languages import check_language
from ragchunk.errors import InputError, OptionError, RagchunkError
from ragchunk.measure import DEFAULT_TOKENIZER, load_tokenizer, measure_for
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
    from collections.abc import Callable

    from ragchunk.measure import Sizer
    from ragchunk.model import Chunk, Document, Span
    from ragchunk.options import Unit
    from ragchunk.strategies._spec import Strategy
    from ragchunk.text.pack import Window

STDIN = "-"


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
    contextualize: bool = False
    min_size: int = 0
    size_given: bool = True
    fingerprint: str = field(init=False)

    def __post_init__(self) -> None:
        key = f"{self.strategy.name}\0{self.options!r}\0{self.tokenizer}"
        if self.contextualize:
            key += "\0contextualize"
        if self.min_size:
            key += f"\0min_size={self.min_size}"
        digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
        object.__setattr__(self, "fingerprint", digest)


@dataclass(frozen=True, slots=True)
class FileResult:
    """The outcome for one input: its chunks, or the error that stopped it, plus warnings."""

    source: str
    doc_id: str
    chunks: tuple[Chunk, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    error: str | None = None
    document: Document | None = None


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
    contextualize: bool = False,
    min_size: int | None = None,
) -> Plan:
    """Validate every option and return the plan; loads the tokenizer when one is needed.

    Raises:
        UsageError: an unknown strategy, format, language or tokenizer, or a bad option value.
    """
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
        contextualize=contextualize,
        min_size=min_size or 0,
        size_given=size is not None,
    )


def _check_min_size(min_size: int | None, budget: Budget, *, size_given: bool) -> None:
    if min_size is None:
        return
    if min_size < 1:
        raise OptionError("--min-size", f"must be at least 1 (got {min_size})")
    if size_given and min_size > budget.size:
        raise OptionError("--min-size", f"must not exceed --size (got {min_size} > {budget.size})")


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
    """Return the hard size limit, or None for a strategy unbounded by design without --size."""
    return plan.options.budget.size if plan.strategy.bounded or plan.size_given else None


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
        source=source, doc_id=doc_id, password=plan.password, language=plan.language, warn=warn
    )
    return parsers.get(name).parse(data, request)


def read_input(source: str) -> bytes:
    """Return the bytes of a file, or of standard input for ``-``.

    Raises:
        InputError: the file cannot be read.
    """
    if source == STDIN:
        return sys.stdin.buffer.read()
    try:
        return Path(source).read_bytes()
    except IsADirectoryError:
        raise InputError(f"{source}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None


def process(source: str, doc_id: str, plan: Plan, *, keep_document: bool = False) -> FileResult:
    """Read, parse and chunk one input; an error becomes the result's ``error``."""
    diagnostics: list[Diagnostic] = []
    try:
        doc = parse_bytes(read_input(source), source, doc_id, plan, diagnostics)
        chunks = chunk_document(doc, plan, diagnostics)
    except RagchunkError as exc:
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=str(exc))
    except Exception as exc:
        if plan.debug:
            raise
        message = f"{source}: internal error: {type(exc).__name__}: {exc}; rerun with --debug"
        return FileResult(source, doc_id, diagnostics=tuple(diagnostics), error=message)
    return FileResult(
        source,
        doc_id,
        tuple(chunks),
        tuple(diagnostics),
        document=doc if keep_document else None,
    )


def expand(paths: Sequence[str]) -> list[tuple[str, str]]:
    """Return ``(source, doc_id)`` for every input: files as given, directories walked.

    A directory yields its non-hidden files in sorted order, each with its path relative to the
    directory as ``doc_id``.
    """
    inputs: list[tuple[str, str]] = []
    for path in paths:
        if path != STDIN and Path(path).is_dir():
            inputs.extend(_walk(Path(path)))
        else:
            inputs.append((path, path if path == STDIN else Path(path).as_posix()))
    return inputs


def _walk(root: Path) -> Iterator[tuple[str, str]]:
    for directory, subdirs, files in os.walk(root):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
        for name in sorted(files):
            if not name.startswith("."):
                path = Path(directory, name)
                yield str(path), path.relative_to(root).as_posix()


def run(paths: Sequence[str], plan: Plan) -> Iterator[FileResult]:
    """Yield one result per input, in input order."""
    for source, doc_id in expand(paths):
        yield process(source, doc_id, plan)
