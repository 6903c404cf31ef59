"""Runs over many inputs: where each output goes, what the manifest records, what is removed.

``prepare`` finds the inputs and routes them (everything that can fail as bad usage happens
there, before any input is read). A ``Tally`` then counts what becomes of each input and keeps
the manifest's entries; ``Tally.recording`` saves the manifest when the run ends, even cut
short, and removes the outputs of inputs that are gone. Nothing here prints: the command line
renders (``ragchunk.cli._batch``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ragchunk import workers
from ragchunk.engine import FileResult
from ragchunk.errors import UsageError
from ragchunk.globs import make_globs
from ragchunk.inputs import STDIN, WalkOptions, absolute, find_inputs

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from ragchunk.config import Config, RunSettings
    from ragchunk.inputs import Input, Note, Skipped
    from ragchunk.manifest import Entry, Manifest
    from ragchunk.plan import Plans
    from ragchunk.workers import Job


@dataclass(frozen=True, slots=True, kw_only=True)
class Batch:
    """A validated run: its jobs, where each output goes, and what the walk left out.

    Attributes:
        jobs: the inputs with their plans, in input order.
        outputs: each job's output file under ``-o DIR/`` (None: the shared stream).
        notes: what the walk left out, one sentence each.
        skipped: how many entries the walk skipped, by reason.
        refused: inputs whose output would be unsafe, as failures.
        roots: the directories named on the command line (walked).
        output_file: ``-o FILE``: one JSONL file for every input.
        output_dir: ``-o DIR/``: one JSONL file per input, mirroring the tree.
        manifest: the loaded ``--manifest``.
        workers: worker processes.
        fail_fast: stop at the first input that fails.
    """

    jobs: tuple[Job, ...]
    outputs: tuple[Path | None, ...]
    notes: tuple[Note, ...]
    refused: tuple[FileResult, ...]
    roots: tuple[str, ...]
    skipped: tuple[Skipped, ...] = ()
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
        UsageError: a bad glob, ``--jobs`` below 1, an unreadable manifest, a ``--root`` that
            is not a directory.
    """
    output_dir = Path(output) if output and is_directory_output(output) else None
    output_file = Path(output) if output and output_dir is None else None
    manifest = _load_manifest(run.manifest)
    own = [output_dir, output_file, manifest.path if manifest else None]
    skip = frozenset(absolute(p) for p in own if p is not None)
    root = run.root or "."
    if not Path(root).is_dir():
        raise UsageError(f"--root {root}: not a directory")
    walk = WalkOptions(
        include=make_globs(run.include or ()),
        exclude=make_globs(run.exclude or ()),
        gitignore=run.gitignore is not False,
        skip=skip,
        root=root,
    )
    count = workers.default_jobs() if run.jobs is None else run.jobs
    workers.check_workers(count)
    found = find_inputs(paths, walk)
    jobs, outputs, refused = _route(workers.make_jobs(found.inputs, plans), output_dir, manifest)
    return Batch(
        jobs=tuple(jobs),
        outputs=tuple(outputs),
        notes=found.notes + _unmatched_globs(plans.config, found.inputs),
        skipped=found.skipped,
        refused=tuple(refused),
        roots=tuple(p for p in paths if p != STDIN and Path(p).is_dir()),
        output_file=output_file,
        output_dir=output_dir,
        manifest=manifest,
        workers=count,
        fail_fast=bool(run.fail_fast),
    )


def _unmatched_globs(config: Config | None, inputs: Sequence[Input]) -> tuple[Note, ...]:
    """Return a note per ``[files."GLOB"]`` section of the configuration that no input matches.

    Its globs are relative to the configuration file's directory, not to where the run starts
    or to the folders named, which is easy to forget: the note says which directory it is.
    """
    if config is None or config.path is None or not config.rules or not inputs:
        return ()
    from ragchunk.inputs import Note

    parts = [config.match_parts(item.source, item.doc_id) for item in inputs]
    directory = absolute(config.path.parent)
    return tuple(
        Note(
            str(config.path),
            "unmatched-glob",
            f"{rule.where}: the glob {rule.glob.text!r} matched none of the {len(inputs)} "
            f"inputs (globs are relative to {directory})",
        )
        for rule in config.rules
        if not any(rule.glob.matches(p) for p in parts)
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


@contextlib.contextmanager
def results(
    batch: Batch, *, jsonl: bool
) -> Iterator[Iterator[tuple[Job, Path | None, FileResult]]]:
    """Yield ``(job, output, result)`` per input, in input order, as the results come in.

    With ``jsonl``, the chunks are encoded as JSONL where they are made (``result.rendered``):
    only bytes cross between processes. The workers are shut down when the block ends.
    """
    from ragchunk.writers.jsonl import encode

    jobs = batch.jobs
    if jsonl:
        jobs = tuple(dataclasses.replace(job, render=encode) for job in jobs)
    with contextlib.closing(workers.run_jobs(jobs, workers=batch.workers)) as made:
        # The results first: zip then runs the pipeline to its end, and it shuts down cleanly.
        yield (
            (job, target, result)
            for result, job, target in zip(made, batch.jobs, batch.outputs, strict=True)
        )


@contextlib.contextmanager
def output_stream(batch: Batch, default: IO[str] | None) -> Iterator[IO[str] | None]:
    """Yield where JSONL goes when it is one stream: the ``-o`` file, ``default``, or nowhere.

    The ``-o`` file is written atomically: it appears only if the block ends normally.
    """
    if batch.output_file is not None:
        from ragchunk.writers.atomic import atomic_writer

        with atomic_writer(batch.output_file) as handle:
            yield handle
    elif batch.output_dir is not None:
        yield None
    else:
        yield default


def write_output(result: FileResult, target: Path | None, stream: IO[str] | None) -> None:
    """Write one input's JSONL to its own file (atomically), else to ``stream`` if any."""
    if target is None and stream is None:
        return
    from ragchunk.writers import jsonl

    pieces = (jsonl.encode(result.chunks),) if result.rendered is None else result.rendered
    if target is not None:
        from ragchunk.writers.atomic import atomic_writer

        with atomic_writer(target) as handle:
            _write_bytes(handle, pieces)
    elif stream is not None:
        _write_bytes(stream, pieces)


def _write_bytes(stream: IO[str], pieces: Iterable[bytes]) -> None:
    """Write UTF-8 ``pieces`` to a text stream: to its byte buffer when it has one."""
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text-only stream (io.StringIO)
        stream.writelines(piece.decode("utf-8") for piece in pieces)
        return
    stream.flush()  # what the text layer holds goes first
    buffer.writelines(pieces)


@dataclass(slots=True)
class Tally:
    """What a run did so far: counts for the summaries, and the manifest's entries.

    ``failures`` starts with the inputs ``prepare`` refused; ``entries`` with the manifest's.
    """

    batch: Batch
    done: int = 0
    chunked: int = 0
    chunks: int = 0
    unchanged: int = 0
    removed: int = 0
    violations: int = 0
    violating: int = 0
    failures: list[FileResult] = field(default_factory=list)
    entries: dict[str, Entry] = field(default_factory=dict)

    @classmethod
    def start(cls, batch: Batch) -> Tally:
        """Return the tally of a run that has not begun."""
        entries = dict(batch.manifest.entries) if batch.manifest is not None else {}
        return cls(batch, failures=list(batch.refused), entries=entries)

    def fail(self, job: Job, result: FileResult) -> None:
        """Count a failed input; its manifest entry goes, so that the next run tries it again."""
        self.done += 1
        self.failures.append(result)
        manifest = self.batch.manifest
        if manifest is not None:
            self.entries.pop(manifest.key(job.source), None)

    def skip(self) -> None:
        """Count an input the manifest knows unchanged (not parsed, nothing written)."""
        self.done += 1
        self.unchanged += 1

    def add(self, job: Job, target: Path | None, result: FileResult) -> None:
        """Count an input whose output is written, and record it in the manifest.

        The documents of a container that failed (``result.failed_parts``) count as failures.
        """
        self.done += 1
        self.chunked += 1
        self.chunks += result.chunk_count
        if result.violations:
            self.violations += len(result.violations)
            self.violating += 1
        # A container whose documents failed in part: they are failures too, and the input
        # is not recorded, so that the next run reads it again.
        self.failures += (
            FileResult(result.source, result.doc_id, error=failure)
            for failure in result.failed_parts
        )
        manifest = self.batch.manifest
        if manifest is not None and result.failed_parts:
            self.entries.pop(manifest.key(job.source), None)
        elif manifest is not None and job.source != STDIN:
            from ragchunk.manifest import Entry, settings_digest

            self.entries[manifest.key(job.source)] = Entry(
                hash=result.content_hash or "",
                settings=settings_digest(job.plan.recipe),
                output=manifest.output_key(target),
                chunks=result.chunk_count,
            )

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

    @contextlib.contextmanager
    def recording(self) -> Iterator[None]:
        """Save the manifest when the block ends, even when it is cut short.

        Per-input files are complete once renamed into place, so a run cut short still records
        them; one shared output file is discarded then, so nothing is recorded. Removals of
        gone inputs happen only when the run is complete.
        """
        complete = False
        try:
            yield
            complete = True
        finally:
            manifest = self.batch.manifest
            if manifest is not None and (complete or self.batch.output_dir is not None):
                from ragchunk.manifest import save_manifest

                if complete:
                    self.remove_gone()
                save_manifest(manifest.path, self.entries)


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
