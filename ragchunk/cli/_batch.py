"""Rendering a ``split`` run: progress, notes, warnings, tables, the summaries, exit codes.

``ragchunk.batch.prepare`` does everything that can fail as bad usage (it runs inside
``usage_errors``); ``execute`` runs the batch and renders the results as they stream in, and
returns the exit code. stdout carries only data (JSONL, or the table the user asked for);
everything else goes to stderr, the ``--stats`` summary included, so that ``split --stats | …``
still pipes the chunks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Final

from ragchunk.batch import Batch, Tally, output_stream, results, write_output
from ragchunk.cli._app import (
    EXIT_FAILED_INPUTS,
    EXIT_OK,
    one_line,
    stderr_console,
    stdout_console,
)
from ragchunk.inputs import describe_skipped
from ragchunk.passes import LARGE_CHUNK

if TYPE_CHECKING:
    from pathlib import Path

    from rich.console import Console
    from rich.text import Text

    from ragchunk.engine import FileResult
    from ragchunk.workers import Job
    from ragchunk.writers.stats import ChunkStats

_ONCE_PER_RUN: Final = frozenset({LARGE_CHUNK})
"""Warnings about the run's settings rather than one input: said for the first input only."""
EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT, as shells report a run stopped with Ctrl-C."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Display:
    """What the user asked to see.

    Attributes:
        table: a table per input on stdout instead of JSONL.
        stats: a size summary on stderr (stdout keeps the JSONL, or the table).
        quiet: no progress, warnings or notes on stderr (failures still show).
        verbose: one line per input and a closing summary on stderr.
    """

    table: bool = False
    stats: bool = False
    quiet: bool = False
    verbose: bool = False


@dataclass(slots=True)
class _Run:
    """One run as the user sees it: the tally, the stream, the console."""

    tally: Tally
    display: Display
    stats: ChunkStats | None = None
    stream: IO[str] | None = None
    stderr: Console | None = None
    said: set[str] = field(default_factory=set)  # warnings said once per run, by code

    @property
    def console(self) -> Console:
        """Return the stderr console, made on first use (rich loads only when needed)."""
        if self.stderr is None:
            self.stderr = stderr_console()
        return self.stderr

    def say(self, message: str) -> None:
        """Print one line on stderr, literally (file names may hold ``[...]`` or line feeds)."""
        self.console.print(_text(one_line(message)))

    def record(self, job: Job, target: Path | None, result: FileResult) -> bool:
        """Render one result and count it; return False to stop (``--fail-fast``)."""
        self.show(result)
        if result.error is not None:
            self.tally.fail(job, result)
            self.say(f"error: {result.error}")
            return not self.tally.batch.fail_fast
        if result.unchanged:
            self.tally.skip()
            return True
        write_output(result, target, self.stream)
        self.render(result)
        self.tally.add(job, target, result)
        for violation in result.violations:  # even with --quiet: --check asked for them
            self.say(f"violation: {result.source}: {violation}")
        for failure in result.failed_parts:  # the container's other documents were written
            self.say(f"error: {failure}")
        return not (result.failed_parts and self.tally.batch.fail_fast)

    def render(self, result: FileResult) -> None:
        """Add one input's chunks to the table and the stats the user asked for."""
        if self.display.table:
            from ragchunk.writers.table import build

            title = f"{one_line(result.doc_id)} · {_count(result.chunk_count, 'chunk')}"
            console = stdout_console()
            console.print(build(result.chunks, title, console.width))
        if self.stats is not None:
            from ragchunk.writers.stats import ChunkFacts

            for chunk in result.chunks:
                self.stats.add(ChunkFacts.of(chunk))
            for doc_id, span in result.dropped:
                self.stats.add_dropped(doc_id, span)

    def show(self, result: FileResult) -> None:
        """Print the warnings of one input and, with ``--verbose``, what became of it."""
        if self.display.quiet:
            return
        for diagnostic in result.diagnostics:
            if diagnostic.code in _ONCE_PER_RUN:
                if diagnostic.code in self.said:
                    continue
                self.said.add(diagnostic.code)
            self.say(f"warning: {diagnostic.message}")
        if self.display.verbose and result.error is None:
            what = "unchanged, skipped" if result.unchanged else _count(result.chunk_count, "chunk")
            if result.dropped:
                from ragchunk.writers.stats import describe_dropped

                what += f", {describe_dropped(result.dropped)}"
            self.say(f"{result.source}: {what}")


def execute(batch: Batch, display: Display) -> int:
    """Run the batch, render results as they arrive, and return the exit code."""
    run = _Run(Tally.start(batch), display)
    if display.stats:
        from ragchunk.writers.stats import ChunkStats

        run.stats = ChunkStats()
    if not display.quiet:
        for note in batch.notes:
            run.say(f"note: {note.message}")
    for failure in batch.refused:
        run.say(f"error: {failure.error}")
    if _is_empty(batch) and not display.quiet:
        under = ", ".join(batch.roots)
        if batch.skipped:
            run.say(f"note: nothing to chunk under {under}: {describe_skipped(batch.skipped)}")
        else:
            run.say(f"note: nothing to chunk: no input files under {under}")
    started = time.monotonic()
    try:
        _consume(run)
    except KeyboardInterrupt:
        from ragchunk.writers.atomic import remove_temporaries

        remove_temporaries()
        done = f"{run.tally.done} of {_count(len(batch.jobs), 'input')}"
        run.say(f"interrupted after {done}; no partial output was left behind")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): stop quietly, like a well-behaved filter.
        # stdout now points at /dev/null so that no later flush can raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_OK
    if run.stats is not None:
        _print_stats(run.console, run.stats)
    _summarise(run, time.monotonic() - started)
    return EXIT_FAILED_INPUTS if run.tally.failures or run.tally.violations else EXIT_OK


def _consume(run: _Run) -> None:
    """Render the results in order; the manifest is saved even when this is cut short."""
    batch = run.tally.batch
    # Tables and stats need the chunks; plain JSONL is rendered where the chunks are made.
    # A table replaces the JSONL on stdout; stats go to stderr, so stdout keeps the data.
    wants_chunks = run.display.table or run.display.stats
    with (
        run.tally.recording(),
        _terminate_as_interrupt(),
        output_stream(batch, None if run.display.table else sys.stdout) as run.stream,
        _progress(run, len(batch.jobs)) as advance,
        results(batch, jsonl=not wants_chunks) as outcomes,
    ):
        for job, target, result in outcomes:
            if not run.record(job, target, result):
                break
            advance(result.chunk_count)


def _summarise(run: _Run, seconds: float) -> None:
    tally, batch = run.tally, run.tally.batch
    if batch.fail_fast and tally.failures and tally.done < len(batch.jobs):
        left = len(batch.jobs) - tally.done
        run.say(f"stopped at the first failure (--fail-fast); {_count(left, 'input')} left")
    if len(tally.failures) > 1:
        _print_failure_table(run.console, tally.failures, len(batch.jobs) + len(batch.refused))
    if any(job.plan.policy.check for job in batch.jobs) and not run.display.quiet:
        _say_checked(run)
    if batch.manifest is not None and not run.display.quiet:
        run.say(
            f"manifest {batch.manifest.path}: {_count(tally.chunked, 'input')} processed, "
            f"{tally.unchanged} unchanged and skipped, {tally.removed} removed"
        )
    if run.display.verbose and batch.skipped and not _is_empty(batch):
        run.say(f"skipped by the walk: {describe_skipped(batch.skipped)}")
    if run.display.verbose:
        run.say(
            f"{_count(tally.done, 'input')}: {tally.chunked} chunked into "
            f"{_count(tally.chunks, 'chunk')}, {tally.unchanged} unchanged, "
            f"{len(tally.failures)} failed, {len(batch.notes)} left out by the walk; "
            f"{seconds:.1f} s"
        )


def _is_empty(batch: Batch) -> bool:
    """Return whether the run has nothing to chunk (and no refused input to report)."""
    return not batch.jobs and not batch.refused


def _say_checked(run: _Run) -> None:
    """Sum up ``--check``: the violations found, or none in how many inputs and chunks."""
    tally = run.tally
    checked = f"{_count(tally.chunked, 'input')} ({_count(tally.chunks, 'chunk')})"
    if tally.violations:
        found = _count(tally.violations, "violation")
        run.say(f"check: {found} in {tally.violating} of {checked}")
    else:
        run.say(f"check: no violations in {checked}")


def _print_failure_table(console: Console, failures: list[FileResult], total: int) -> None:
    from rich.table import Table

    table = Table(title=_text(f"{len(failures)} of {total} inputs failed"), title_justify="left")
    table.add_column("input", overflow="fold")
    table.add_column("cause", overflow="fold")
    for failure in failures:
        cause = (failure.error or "").removeprefix(f"{failure.source}: ")
        table.add_row(_text(one_line(failure.source)), _text(one_line(cause)))
    console.print(table)


def _print_stats(console: Console, stats: ChunkStats) -> None:
    """Print the ``--stats`` summary on stderr: stdout carries data only (a pipeline's input)."""
    from ragchunk.writers.stats import build_dropped, build_sizes

    console.print(build_sizes(stats))
    dropped = build_dropped(stats)
    if dropped is not None:
        console.print(dropped)


@contextlib.contextmanager
def _progress(run: _Run, total: int) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(chunks)``, which counts one finished input.

    A bar is shown on stderr for multi-file runs, and only when stderr is a terminal.
    """
    if run.display.quiet or total < 2 or not sys.stderr.isatty():
        yield _ignore
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    progress = Progress(
        TextColumn("chunking"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[chunks]} chunks · {task.fields[rate]} files/s ·"),
        TimeElapsedColumn(),
        TextColumn("· eta"),
        TimeRemainingColumn(),
        console=run.console,
        transient=True,
        # No refresh thread (worker processes may be forked while it would run), and hands off
        # sys.stdout: it carries the JSONL.
        auto_refresh=False,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    started, counts = time.monotonic(), [0, 0]

    def advance(chunks: int) -> None:
        counts[0] += 1
        counts[1] += chunks
        rate = f"{counts[0] / max(time.monotonic() - started, 1e-6):.1f}"
        progress.update(task, advance=1, chunks=counts[1], rate=rate, refresh=True)

    with progress:
        task = progress.add_task("chunking", total=total, chunks=0, rate="–")
        progress.refresh()
        yield advance


def _ignore(chunks: int) -> None:
    """Count nothing (no progress bar)."""


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM like Ctrl-C for the run, so outputs in progress are cleaned up."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _text(message: str) -> Text:
    """Wrap user text so rich prints it literally (file names and errors hold ``[...]``)."""
    from rich.text import Text

    return Text(message)
