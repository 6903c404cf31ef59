"""The run loop: a batch's inputs through the engine into its sinks, in input order.

``run`` is the library's batch entry point (``ragchunk.run``): it finds the inputs, chunks them
on worker processes (or Ray), removes duplicates with ``dedupe``, writes the records to the
sink ``output`` chooses, keeps the manifest, and returns the ``Tally`` of what it did; it is
``ragchunk split`` without the printing. ``run_batch`` runs a ``Batch`` that
``ragchunk.runs.batch.prepare`` made: the command line prepares, prints the notes, then calls it
with callbacks that print each result's warnings and failures as it comes.

Sinks are chosen through the table of ``ragchunk.sinks`` and never named here. A sink that
takes rendered bytes gets them from the workers when every sink of the run takes the same
bytes and nothing else needs the chunks; otherwise the chunks come back and are rendered here,
a block of chunks at a time.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, TypeAlias

from ragchunk import sinks
from ragchunk.errors import RagchunkError
from ragchunk.pipeline.results import FileResult
from ragchunk.runs.batch import prepare, results
from ragchunk.runs.tally import Tally
from ragchunk.runs.worker import RENDER_BLOCK, render_failed

if TYPE_CHECKING:
    from pathlib import Path

    from ragchunk.runs.batch import Batch
    from ragchunk.runs.config import Config
    from ragchunk.runs.dedupe import DedupeOptions
    from ragchunk.runs.workers import Job
    from ragchunk.settings import Settings
    from ragchunk.sinks._spec import Destination, Renderer, Sink, SinkSpec

OnResult: TypeAlias = "Callable[[FileResult], None]"
"""Called with each input's result, in input order."""
Extra: TypeAlias = "tuple[str | SinkSpec, Destination]"
"""A sink besides the batch's own ``-o`` output: its name (or spec) and where it writes."""


def run(
    inputs: Sequence[str],
    *,
    output: str | IO[str] | None = None,
    output_format: str | None = None,
    settings: Settings | None = None,
    config: Config | None = None,
    dedupe: DedupeOptions | None = None,
    on_result: OnResult | None = None,
) -> Tally:
    """Chunk every input (files, directories walked, ``-`` for standard input) into ``output``.

    ``output`` is what ``split -o`` takes: a file (its suffix chooses the sink), a directory
    ending in ``/`` (one file per input), a store's URL; or a text stream, written as
    ``output_format`` (JSONL unless said); None writes nothing (``on_result`` still gets each
    result, chunks included). ``settings`` is the settings tree (``ragchunk.Settings``: how to
    chunk, and ``run``: ``jobs``, ``manifest``, ``include``...), over the scopes of ``config``
    (a configuration file, ``ragchunk.runs.config.load_config``) as the command line's flags
    are; None: the library's defaults. The returned tally counts what became of each input;
    ``tally.failures`` holds the inputs that failed. When no input succeeded, a previous
    ``output`` file is left as it was (``tally.output_kept``).

    Raises:
        OSError: ``output`` (or the manifest) cannot be written; ``filename`` names it. Under a
            directory, an output file that cannot be written fails its input instead.
        UsageError: bad usage, found before any input is read (``OptionError`` names the
            option), or an engine that could not start.
        EngineError: the Ray cluster failed during the run.
    """
    from ragchunk.pipeline.scopes import make_plans
    from ragchunk.runs.config import Config
    from ragchunk.settings import Settings, merge

    config = Config() if config is None else config
    settings = Settings() if settings is None else settings
    plans = make_plans(config, settings)
    batch = prepare(
        list(inputs),
        plans,
        merge(settings, config.defaults).run,
        output=output if isinstance(output, str) else None,
        output_format=output_format,
        dedupe=dedupe,
    )
    extra: list[Extra] = []
    if output is not None and not isinstance(output, str):
        extra.append((batch.output_format, output))
    return run_batch(batch, extra=extra, on_result=on_result, chunks=output is None)


def run_batch(
    batch: Batch,
    *,
    extra: Sequence[Extra] = (),
    arrived: OnResult | None = None,
    on_result: OnResult | None = None,
    chunks: bool = False,
    progress: bool = False,
    tally: Tally | None = None,
) -> Tally:
    """Run ``batch``: write each input's records to its sinks, in input order; return the tally.

    The sinks are the batch's ``-o`` output (one file or store, or a file per input) and
    ``extra`` (standard output, a preview table...). ``arrived`` is called with each result
    before it is written, ``on_result`` once it is written and counted (a failure too); with
    ``chunks`` they find the chunks in ``result.chunks`` even when every sink takes bytes.
    The run stops after the first failure with ``fail_fast``. ``progress`` shows Ray's
    progress bars. ``tally`` is the one to count in (the caller keeps what a run cut short
    counted); the manifest is saved even then, and outputs in progress are discarded. With
    ``-o FILE``, a run in which no input succeeded leaves the previous file as it was (the
    one being written is discarded) and sets ``tally.output_kept``.

    Raises:
        OSError: the ``-o`` output or the manifest cannot be written; ``filename`` names it.
        UsageError: the Ray cluster cannot be started or reached.
        EngineError: the Ray cluster failed during the run.
    """
    tally = Tally.start(batch) if tally is None else tally
    own = sinks.get(batch.output_format)
    opened: list[tuple[SinkSpec, Destination]] = []
    if batch.destination is not None:
        opened.append((own, batch.destination))
    opened += [(sinks.get(sink) if isinstance(sink, str) else sink, to) for sink, to in extra]
    per_input = own if batch.output_dir is not None else None
    specs = [spec for spec, _ in opened] + ([per_input] if per_input is not None else [])
    render = None if chunks else _common_renderer(batch, specs)
    with contextlib.suppress(_KeepOutput), tally.recording(), contextlib.ExitStack() as stack:
        shared = [(spec, stack.enter_context(spec.open(to))) for spec, to in opened]
        outcomes = stack.enter_context(results(batch, render=render, progress=progress))
        for job, target, result in outcomes:
            if arrived is not None:
                arrived(result)
            go_on, taken = _take(tally, job, target, result, shared, per_input)
            if on_result is not None:
                on_result(taken)
            if not go_on:
                break
        if batch.output_file is not None and tally.failures and not tally.chunked:
            # Every input failed: the previous output is worth more than an empty one. The
            # exception discards the file being written (and the manifest stays as it was).
            tally.output_kept = True
            raise _KeepOutput
    return tally


class _KeepOutput(Exception):  # noqa: N818 - a signal within run_batch, never seen outside
    """Raised in ``run_batch`` to discard the ``-o`` file being written: no input succeeded."""


def _take(
    tally: Tally,
    job: Job,
    target: Path | None,
    result: FileResult,
    shared: Sequence[tuple[SinkSpec, Sink]],
    per_input: SinkSpec | None,
) -> tuple[bool, FileResult]:
    """Write one result and count it; return False to stop (``fail_fast``), and the result.

    An output file under ``-o DIR/`` that cannot be written (no space left, a read-only
    folder) fails its input alone: the result returned is then that failure. So does a
    failure to render it for a sink (a record past the sink's cap, no memory), and vectors of
    another size than those the run wrote before (workers each check their own): then nothing
    of it is written.
    """
    fail_fast = tally.batch.fail_fast
    if result.error is not None:
        tally.fail(job, result)
        return not fail_fast, result
    if result.unchanged:
        tally.skip()
        return True, result
    if result.dimensions and tally.dimensions and result.dimensions != tally.dimensions:
        error = (
            f"{result.source}: its vectors have {result.dimensions} dimensions, those written "
            f"before in this run {tally.dimensions} (the embedder changed its size: run again "
            "for vectors of one size)"
        )
        failed = FileResult(result.source, result.doc_id, error=error)
        tally.fail(job, failed)
        return not fail_fast, failed
    tally.dimensions = tally.dimensions or result.dimensions
    try:  # every form first: a record past a sink's cap, or no memory, fails the input alone
        forms = [_in_form(result, spec) for spec, _ in shared]
        own = None if target is None or per_input is None else _in_form(result, per_input)
    except (RagchunkError, MemoryError) as exc:
        failed = render_failed(result, exc)
        tally.fail(job, failed)
        return not fail_fast, failed
    for (_, sink), form in zip(shared, forms, strict=True):
        sink.write(form)
    if target is not None and per_input is not None and own is not None:
        try:
            with per_input.open(str(target)) as sink:
                sink.write(own)
        except OSError as exc:
            from ragchunk.sinks.atomic import describe

            error = f"{job.source}: {describe(exc)}"
            failed = FileResult(result.source, result.doc_id, error=error)
            tally.fail(job, failed)
            return not fail_fast, failed
    tally.add(job, target, result)
    return not (result.failed_parts and fail_fast), result


def _in_form(result: FileResult, spec: SinkSpec) -> FileResult:
    """Return ``result`` as ``spec`` takes it: rendered by its renderer, or with its chunks."""
    if spec.render is None or result.rendered is not None:
        return result
    chunks, size, render = result.chunks, RENDER_BLOCK, spec.render
    # Blocks of chunks, as a worker renders them: never one large string.
    pieces = tuple(render(chunks[k : k + size]) for k in range(0, len(chunks), size))
    return dataclasses.replace(result, rendered=pieces)


def _common_renderer(batch: Batch, specs: Sequence[SinkSpec]) -> Renderer | None:
    """Return the renderer the workers may apply: the one every sink of the run takes.

    None when a sink takes chunks, when sinks differ, or when ``--dedupe`` needs the chunks:
    it reads them in this process, as objects when they are made here, else as the JSONL the
    workers made (decoding that costs less than pickling chunks).
    """
    renders = {spec.render for spec in specs}
    if not specs or len(renders) != 1:
        return None
    render = renders.pop()
    if render is not None and batch.dedupe is not None:
        from ragchunk.runs.dedupe import reads_rendered

        in_process = batch.engine == "local" and min(batch.workers, len(batch.jobs)) <= 1
        if in_process or not reads_rendered(render):
            return None
    return render
