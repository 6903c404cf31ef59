"""Rendering a ``split`` run: where the JSONL goes, progress, the manifest, the failure summary.

``prepare`` does everything that can fail as bad usage (it runs inside ``usage_errors``);
``execute`` runs the pipeline and renders the results as they stream in, and returns the exit
code. stdout carries only data (JSONL, or the table/stats the user asked for); everything else
goes to stderr.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final

from ragchunk import workers
from ragchunk.cli._app import (
    EXIT_FAILED_INPUTS,
    EXIT_OK,
    one_line,
    stderr_console,
    stdout_console,
)
from ragchunk.inputs import STDIN, WalkOptions, absolute, find_inputs, make_globs

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ragchunk.config import RunSettings
    from ragchunk.engine import FileResult
    from ragchunk.inputs import Note
    from ragchunk.manifest import Entry, Manifest
    from ragchunk.plan import Plans
    from ragchunk.workers import Job
    from ragchunk.writers.stats import ChunkStats

EXIT_INTERRUPTED: Final = 130
"""128 + SIGINT, as shells report a run stopped with Ctrl-C."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Display:
    """What the user asked to see.

    Attributes:
        table: a table per input on stdout instead of JSONL.
        stats: a size summary on stdout.
        quiet: no progress, warnings or notes on stderr (failures still show).
        verbose: one line per input and a closing summary on stderr.
    """

    table: bool = False
    stats: bool = False
    quiet: bool = False
    verbose: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Batch:
    """A validated run: its jobs, where each output goes, and what the walk left out."""

    jobs: tuple[Job, ...]
    outputs: tuple[Path | None, ...]
    notes: tuple[Note, ...]
    refused: tuple[FileResult, ...]
    roots: tuple[str, ...]
    output_file: Path | None = None
    output_dir: Path | None = None
    manifest: Manifest | None = None
    workers: int = 1
    fail_fast: bool = False


def is_directory_output(output: str) -> bool:
    """Return whether ``-o`` names a directory: a trailing slash, or an existing directory."""
    return output.endswith(("/", os.sep)) or Path(output).is_dir()


def prepare(paths: list[str], plans: Plans, run: RunSettings, *, output: str | None) -> Batch:
    """Find the inputs and decide each one's plan, output file and manifest state.

    Raises:
        UsageError: a bad glob, ``--jobs`` below 1, an unreadable manifest.
    """
    output_dir = Path(output) if output and is_directory_output(output) else None
    output_file = Path(output) if output and output_dir is None else None
    manifest = _load_manifest(run.manifest)
    own = [output_dir, output_file, manifest.path if manifest else None]
    skip = frozenset(absolute(p) for p in own if p is not None)
    walk = WalkOptions(
        include=make_globs(run.include or ()),
        exclude=make_globs(run.exclude or ()),
        gitignore=run.gitignore is not False,
        skip=skip,
    )
    count = workers.default_jobs() if run.jobs is None else run.jobs
    workers.check_workers(count)
    found = find_inputs(paths, walk)
    jobs, outputs, refused = _route(workers.make_jobs(found.inputs, plans), output_dir, manifest)
    return Batch(
        jobs=tuple(jobs),
        outputs=tuple(outputs),
        notes=found.notes,
        refused=tuple(refused),
        roots=tuple(p for p in paths if p != STDIN and Path(p).is_dir()),
        output_file=output_file,
        output_dir=output_dir,
        manifest=manifest,
        workers=count,
        fail_fast=bool(run.fail_fast),
    )


def _load_manifest(path: str | None) -> Manifest | None:
    if path is None:
        return None
    from ragchunk.manifest import load_manifest

    return load_manifest(Path(path))


def _route(
    jobs: list[Job], output_dir: Path | None, manifest: Manifest | None
) -> tuple[list[Job], list[Path | None], list[FileResult]]:
    """Give each job its output path and known hash; refuse jobs whose output is unsafe."""
    from ragchunk.engine import FileResult
    from ragchunk.errors import InputError
    from ragchunk.writers.tree import mirror_path

    routed: list[Job] = []
    outputs: list[Path | None] = []
    refused: list[FileResult] = []
    claimed: dict[Path, str] = {}
    for job in jobs:
        target = None
        if output_dir is not None:
            try:
                target = mirror_path(output_dir, job.doc_id)
            except InputError as exc:
                message = f"{job.source}: {exc}"
                refused.append(FileResult(job.source, job.doc_id, error=message))
                continue
            if target in claimed:
                message = f"{job.source}: its output {target} is already that of {claimed[target]}"
                refused.append(FileResult(job.source, job.doc_id, error=message))
                continue
            claimed[target] = job.source
        if manifest is not None:
            from ragchunk.manifest import settings_digest

            known = manifest.known_hash(job.source, settings_digest(job.plan.recipe), target)
            job = dataclasses.replace(job, known_hash=known)
        routed.append(job)
        outputs.append(target)
    return routed, outputs, refused


@dataclass(slots=True)
class _Run:
    """One run's state: where things go and what happened so far, for the summaries."""

    batch: Batch
    display: Display
    stats: ChunkStats | None = None
    stream: IO[str] | None = None
    done: int = 0
    chunked: int = 0
    chunks: int = 0
    unchanged: int = 0
    removed: int = 0
    violations: int = 0
    violating: int = 0
    failures: list[FileResult] = field(default_factory=list)
    entries: dict[str, Entry] = field(default_factory=dict)
    stderr: Console | None = None

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
        self.done += 1
        self.show(result)
        manifest = self.batch.manifest
        key = manifest.key(job.source) if manifest is not None else None
        if result.error is not None:
            self.failures.append(result)
            self.say(f"error: {result.error}")
            if key is not None:
                self.entries.pop(key, None)  # so that the next run tries it again
            return not self.batch.fail_fast
        if result.unchanged:
            self.unchanged += 1
            return True
        self.write(result, target)
        self.chunked += 1
        self.chunks += result.chunk_count
        self.report_violations(result)
        if manifest is not None and key is not None and job.source != STDIN:
            from ragchunk.manifest import Entry, settings_digest

            self.entries[key] = Entry(
                hash=result.content_hash or "",
                settings=settings_digest(job.plan.recipe),
                output=manifest.output_key(target),
                chunks=result.chunk_count,
            )
        return True

    def report_violations(self, result: FileResult) -> None:
        """Print one line per violation ``--check`` found (even with ``--quiet``: asked for)."""
        if not result.violations:
            return
        self.violations += len(result.violations)
        self.violating += 1
        for violation in result.violations:
            self.say(f"violation: {result.source}: {violation}")

    def write(self, result: FileResult, target: Path | None) -> None:
        """Write one input's chunks to its file or the stream; add them to table and stats."""
        from ragchunk.writers import jsonl

        pieces = (jsonl.lines(result.chunks),) if result.rendered is None else result.rendered
        if target is not None:
            with jsonl.atomic_writer(target) as handle:
                handle.writelines(pieces)
        elif self.stream is not None:
            self.stream.writelines(pieces)
        if self.display.table:
            from ragchunk.writers.table import build

            title = f"{one_line(result.doc_id)} · {_count(result.chunk_count, 'chunk')}"
            stdout_console().print(build(result.chunks, title))
        if self.stats is not None:
            from ragchunk.writers.stats import ChunkFacts

            for chunk in result.chunks:
                self.stats.add(ChunkFacts.of(chunk))

    def show(self, result: FileResult) -> None:
        """Print the warnings of one input and, with ``--verbose``, what became of it."""
        if self.display.quiet:
            return
        for diagnostic in result.diagnostics:
            self.say(f"warning: {diagnostic.message}")
        if self.display.verbose and result.error is None:
            what = "unchanged, skipped" if result.unchanged else _count(result.chunk_count, "chunk")
            self.say(f"{result.source}: {what}")

    def remove_gone(self) -> None:
        """Drop the entries of inputs that are gone, and their outputs under ``-o DIR/``."""
        manifest, output_dir = self.batch.manifest, self.batch.output_dir
        if manifest is None:
            return
        kept = set(self.batch.outputs)
        sources = (job.source for job in self.batch.jobs)
        for key, entry in manifest.gone(self.batch.roots, sources).items():
            self.entries.pop(key, None)
            self.removed += 1
            if entry.output is None or output_dir is None:
                continue
            output = manifest.resolve(entry.output)
            if output not in kept and _is_inside(output, output_dir):
                output.unlink(missing_ok=True)
                _remove_empty_parents(output.parent, output_dir)


def execute(batch: Batch, display: Display) -> int:
    """Run the batch, render results as they arrive, and return the exit code."""
    run = _Run(batch, display, failures=list(batch.refused))
    if batch.manifest is not None:
        run.entries = dict(batch.manifest.entries)
    if display.stats:
        from ragchunk.writers.stats import ChunkStats

        run.stats = ChunkStats()
    if not display.quiet:
        for note in batch.notes:
            run.say(f"note: {note.message}")
    for failure in batch.refused:
        run.say(f"error: {failure.error}")
    if not batch.jobs and not batch.refused and not display.quiet:
        run.say(f"note: nothing to chunk: no input files under {', '.join(batch.roots)}")
    started = time.monotonic()
    try:
        _consume(run)
    except KeyboardInterrupt:
        from ragchunk.writers.jsonl import remove_temporaries

        remove_temporaries()
        done = f"{run.done} of {_count(len(batch.jobs), 'input')}"
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
        _print_stats(run.stats)
    _summarise(run, time.monotonic() - started)
    return EXIT_FAILED_INPUTS if run.failures or run.violations else EXIT_OK


def _consume(run: _Run) -> None:
    """Consume the results in order; the manifest is saved even when this is cut short."""
    from ragchunk.writers.jsonl import lines

    batch = run.batch
    jobs = batch.jobs
    if not (run.display.table or run.display.stats):
        # JSONL is rendered where the chunks are made: only text crosses between processes.
        jobs = tuple(dataclasses.replace(job, render=lines) for job in jobs)
    complete = False
    try:
        with (
            _terminate_as_interrupt(),
            _stream(batch, run.display) as run.stream,
            _progress(run, len(batch.jobs)) as advance,
            contextlib.closing(workers.run_jobs(jobs, workers=batch.workers)) as results,
        ):
            # results first: zip then runs the pipeline to its end, and it shuts down cleanly.
            for result, job, target in zip(results, batch.jobs, batch.outputs, strict=True):
                if not run.record(job, target, result):
                    break
                advance(result.chunk_count)
        complete = True
    finally:
        # Per-input files are complete once renamed into place, so a run cut short still
        # records them; one shared output file is discarded then, so nothing is recorded.
        if batch.manifest is not None and (complete or batch.output_dir is not None):
            from ragchunk.manifest import save_manifest

            if complete:
                run.remove_gone()
            save_manifest(batch.manifest.path, run.entries)


@contextlib.contextmanager
def _stream(batch: Batch, display: Display) -> Iterator[IO[str] | None]:
    """Yield where JSONL goes when it is one stream: the ``-o`` file, stdout, or nowhere."""
    if batch.output_file is not None:
        from ragchunk.writers.jsonl import atomic_writer

        with atomic_writer(batch.output_file) as handle:
            yield handle
    elif batch.output_dir is not None or display.table or display.stats:
        yield None
    else:
        yield sys.stdout


def _remove_empty_parents(directory: Path, top: Path) -> None:
    """Remove ``directory`` and its parents up to ``top`` (excluded) while they are empty."""
    while _is_inside(directory, top) and directory.resolve() != top.resolve():
        try:
            directory.rmdir()
        except OSError:  # not empty (or not ours to remove): stop climbing
            return
        directory = directory.parent


def _is_inside(path: Path, directory: Path) -> bool:
    base = os.path.realpath(directory)
    return os.path.commonpath([os.path.realpath(path), base]) == base


def _summarise(run: _Run, seconds: float) -> None:
    batch = run.batch
    if batch.fail_fast and run.failures and run.done < len(batch.jobs):
        left = len(batch.jobs) - run.done
        run.say(f"stopped at the first failure (--fail-fast); {_count(left, 'input')} left")
    if len(run.failures) > 1:
        _print_failure_table(run.console, run.failures, len(batch.jobs) + len(batch.refused))
    if any(job.plan.policy.check for job in batch.jobs) and not run.display.quiet:
        _say_checked(run)
    if batch.manifest is not None and not run.display.quiet:
        run.say(
            f"manifest {batch.manifest.path}: {_count(run.chunked, 'input')} processed, "
            f"{run.unchanged} unchanged and skipped, {run.removed} removed"
        )
    if run.display.verbose:
        run.say(
            f"{_count(run.done, 'input')}: {run.chunked} chunked into "
            f"{_count(run.chunks, 'chunk')}, {run.unchanged} unchanged, "
            f"{len(run.failures)} failed, {len(batch.notes)} left out by the walk; "
            f"{seconds:.1f} s"
        )


def _say_checked(run: _Run) -> None:
    """Sum up ``--check``: the violations found, or none in how many inputs and chunks."""
    checked = f"{_count(run.chunked, 'input')} ({_count(run.chunks, 'chunk')})"
    if run.violations:
        found = _count(run.violations, "violation")
        run.say(f"check: {found} in {run.violating} of {checked}")
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


def _print_stats(stats: ChunkStats) -> None:
    from ragchunk.writers.stats import build_sizes

    stdout_console().print(build_sizes(stats))


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
