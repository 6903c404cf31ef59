"""Rendering a ``split`` run: progress, notes, warnings, tables, the summaries, exit codes.

``ragchunk.runs.batch.prepare`` does everything that can fail as bad usage (it runs inside
``usage_errors``); ``execute`` runs the batch (``ragchunk.runs.loop.run_batch``) and renders the
results as they stream in, and returns the exit code. stdout carries only data (JSONL, or the
table the user asked for); everything else goes to stderr, the ``--stats`` summary included,
so that ``split --stats | …`` still pipes the chunks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.cli._app import (
    EXIT_FAILED_INPUTS,
    EXIT_OK,
    one_line,
    stderr_console,
)
from ragchunk.cli._progress import progress_bar, shows_progress
from ragchunk.errors import EngineError
from ragchunk.model import CHAT_SKIPPED
from ragchunk.pipeline.results import LARGE_CHUNK
from ragchunk.runs.inputs import describe_skipped
from ragchunk.runs.loop import Extra, run_batch
from ragchunk.runs.tally import Tally

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ragchunk.pipeline.results import FileResult
    from ragchunk.runs.batch import Batch
    from ragchunk.sinks.stats import ChunkStats

_ONCE_PER_RUN: Final = frozenset({LARGE_CHUNK, CHAT_SKIPPED})
"""Warnings about the run's settings rather than one input: said for the first input only."""
EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT, as shells report a run stopped with Ctrl-C."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Display:
    """What the user asked to see.

    Attributes:
        table: a table per input on stdout instead of JSONL.
        stats: a size summary on stderr (stdout keeps the JSONL, or the table).
        quiet: no progress, warnings or notes on stderr (failures still show).
        verbose: one line per input and a closing summary on stderr.
        dry_run: write no chunks; report what the chat model would be asked (``--dry-run``).
    """

    table: bool = False
    stats: bool = False
    quiet: bool = False
    dry_run: bool = False
    verbose: bool = False


@dataclass(slots=True, eq=False, repr=False)
class _Run:
    """One run as the user sees it: the tally, the console."""

    tally: Tally
    display: Display
    stats: ChunkStats | None = None
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

    def finished(self, result: FileResult) -> None:
        """Render one result once it is written and counted: failures, stats, violations."""
        if result.error is not None:
            self.say(f"error: {result.error}")
            return
        if result.unchanged:
            return
        self.render(result)
        for violation in result.violations:  # even with --quiet: --check asked for them
            self.say(f"violation: {result.source}: {violation}")
        for failure in result.failed_parts:  # the container's other documents were written
            self.say(f"error: {failure}")

    def stops_at(self, result: FileResult) -> bool:
        """Return whether the run stops after ``result`` (``--fail-fast``)."""
        failed = result.error is not None or bool(result.failed_parts)
        return failed and self.tally.batch.fail_fast

    @property
    def duplicate_fate(self) -> str:
        """Return what ``--dedupe`` does with a duplicate: dropped, or marked."""
        dedupe = self.tally.batch.dedupe
        return "marked" if dedupe is not None and dedupe.mark else "dropped"

    def render(self, result: FileResult) -> None:
        """Add one input's chunks to the stats the user asked for (the table is a sink)."""
        if self.stats is not None:
            from ragchunk.sinks.stats import ChunkFacts

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
                from ragchunk.sinks.stats_tables import describe_dropped

                what += f", {describe_dropped(result.dropped)}"
            if result.duplicates:
                what += f", {_count(result.duplicates, 'duplicate')} {self.duplicate_fate}"
            self.say(f"{result.source}: {what}")


def execute(batch: Batch, display: Display) -> int:
    """Run the batch, render results as they arrive, and return the exit code."""
    run = _Run(Tally.start(batch), display)
    if display.stats:
        from ragchunk.sinks.stats import ChunkStats

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
        from ragchunk.sinks.atomic import remove_temporaries

        remove_temporaries()
        done = f"{run.tally.done} of {_count(len(batch.jobs), 'input')}"
        run.say(f"interrupted after {done}; no partial output was left behind")
        return EXIT_INTERRUPTED
    except EngineError as exc:  # the Ray cluster failed: the run cannot go on
        from ragchunk.sinks.atomic import remove_temporaries

        remove_temporaries()
        done = f"{run.tally.done} of {_count(len(batch.jobs), 'input')}"
        run.say(f"error: {exc}; stopped after {done}; no partial output was left behind")
        return EXIT_FAILED_INPUTS
    except BrokenPipeError:
        # The reader of stdout went away (`| head`): stop quietly, like a well-behaved filter.
        # stdout now points at /dev/null so that no later flush can raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
        return EXIT_OK
    except OSError as exc:  # -o FILE or the manifest cannot be written: disk full, read-only
        from ragchunk.sinks.atomic import describe, remove_temporaries

        remove_temporaries()
        done = f"{run.tally.done} of {_count(len(batch.jobs), 'input')}"
        if exc.filename is None:  # no file named: the data on standard output could not go
            run.say(f"error: standard output: {describe(exc)}; stopped after {done}")
        else:
            left = "no partial output was left behind"
            run.say(f"error: {describe(exc)}; stopped after {done}; {left}")
        return EXIT_FAILED_INPUTS
    if run.stats is not None:
        _print_stats(run.console, run.stats)
    _summarise(run, time.monotonic() - started)
    failed = run.tally.failures or run.tally.violations or _no_answer(run)
    return EXIT_FAILED_INPUTS if failed else EXIT_OK


def _no_answer(run: _Run) -> bool:
    """Say so and return True when the chat model was asked and not one call succeeded."""
    llm = run.tally.llm
    if llm["cached"] or llm["calls"] > llm["failures"] or not llm["failures"] + llm["skipped"]:
        return False
    run.say(
        f"error: every call to the chat model failed ({llm['failures']} failed, "
        f"{llm['skipped']} skipped): every record is a fallback"
    )
    return True


def _consume(run: _Run) -> None:
    """Run the batch, rendering the results in order; the manifest is saved even if cut short."""
    batch = run.tally.batch
    # A table replaces the records on stdout; stats go to stderr, so stdout keeps the data.
    extra: list[Extra] = []
    if run.display.table:
        extra.append(("table", sys.stdout))
    elif not batch.has_output and not run.display.dry_run:
        extra.append((batch.output_format, sys.stdout))
    # On Ray, Ray Data draws the progress, if it can: it needs stdout to be a terminal too.
    ray_bars = batch.engine == "ray" and sys.stdout.isatty()
    with (
        _terminate_as_interrupt(),
        progress_bar(
            lambda: run.console,
            len(batch.jobs),
            quiet=run.display.quiet,
            embeds=_embeds(batch),
            shown=not ray_bars,
        ) as advance,
    ):

        def finished(result: FileResult) -> None:
            run.finished(result)
            if not run.stops_at(result):
                advance(result)

        run_batch(
            batch,
            extra=extra,
            arrived=run.show,
            on_result=finished,
            chunks=run.stats is not None,  # the stats read the chunks
            progress=ray_bars and shows_progress(quiet=run.display.quiet, total=len(batch.jobs)),
            tally=run.tally,
        )


def _summarise(run: _Run, seconds: float) -> None:
    tally, batch = run.tally, run.tally.batch
    if run.display.dry_run:
        _say_planned(run)
    elif tally.llm and not run.display.quiet:
        _say_model(run)
    if batch.fail_fast and tally.failures and tally.done < len(batch.jobs):
        left = len(batch.jobs) - tally.done
        run.say(f"stopped at the first failure (--fail-fast); {_count(left, 'input')} left")
    if tally.output_kept and batch.output_file is not None:  # said even with --quiet
        kept = "left as it was" if batch.output_file.exists() else "not written"
        run.say(f"note: no input succeeded: {batch.output_file} was {kept}")
    if len(tally.failures) > 1:
        _print_failure_table(run.console, tally.failures, len(batch.jobs) + len(batch.refused))
    if any(job.plan.policy.check for job in batch.jobs) and not run.display.quiet:
        _say_checked(run)
    if batch.dedupe is not None and not run.display.quiet:
        run.say(
            f"dedupe {batch.dedupe.describe()}: {tally.duplicates} of "
            f"{_count(tally.compared, 'chunk')} "
            f"repeat an earlier chunk, {run.duplicate_fate}"
        )
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
        if _embeds(batch):
            run.say(f"embeddings: {tally.embedded} computed, {tally.cached} from the cache")


def _say_planned(run: _Run) -> None:
    """``--dry-run``: the calls and prompt tokens the run would make (shown even with -q)."""
    llm = run.tally.llm
    run.say(
        f"dry run: {_count(llm['planned_calls'], 'call')} to the chat model, about "
        f"{llm['planned_tokens']} prompt tokens; {llm['planned_cached']} answered by the "
        f"cache; {_count(llm['passages'], 'passage')}; nothing was written"
    )


def _say_model(run: _Run) -> None:
    """The end-of-run summary of a rewriting strategy: what the chat model cost and made."""
    llm = run.tally.llm
    run.say(
        f"chat model: {_count(llm['calls'], 'call')} ({llm['failures']} failed"
        + (f", {llm['skipped']} skipped" if llm["skipped"] else "")
        + "), "
        f"{llm['cached']} answered by the cache, {llm['tokens_in']} tokens in, "
        f"{llm['tokens_out']} out"
    )
    if llm["passages"]:
        run.say(
            f"chat model: {_count(llm['propositions'], 'proposition')} from "
            f"{_count(llm['passages'], 'passage')}; dropped {llm['over_max']} over "
            f"max_propositions, {llm['ungrounded']} ungrounded and "
            f"{_count(llm['fragments'], 'fragment')}; "
            f"{_count(llm['fallbacks'], 'fallback')} to verbatim text"
        )
    else:
        run.say(
            f"chat model: {_count(llm['fields'], 'résumé field')}; "
            f"{_count(llm['fallbacks'], 'document')} chunked by recursive instead"
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
    from ragchunk.sinks.stats_tables import build_dropped, build_sizes

    console.print(build_sizes(stats))
    dropped = build_dropped(stats)
    if dropped is not None:
        console.print(dropped)


def _embeds(batch: Batch) -> bool:
    """Return whether any input of the batch is embedded (semantic, late, --refine, --embed)."""
    return any(job.plan.recipe.needs_embedder for job in batch.jobs)


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
