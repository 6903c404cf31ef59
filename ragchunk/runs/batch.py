"""Runs over many inputs: where each output goes, what the manifest records, what is removed.

``prepare`` finds the inputs and routes them (everything that can fail as bad usage happens
there, before any input is read), the sink included (``ragchunk.sinks.choose``). ``results``
runs them on the chosen engine: this machine's worker processes (``ragchunk.runs.workers``) or
a Ray cluster (``ragchunk.runs.ray_jobs``), with the same results either way;
``ragchunk.runs.loop`` writes them to the sinks and ``ragchunk.runs.tally`` counts what becomes
of each input. Nothing here
prints: the command line renders (``ragchunk.cli._batch``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragchunk import sinks
from ragchunk.defaults import STDIN, Engine
from ragchunk.errors import OptionError, UsageError
from ragchunk.pipeline.results import FileResult
from ragchunk.runs import workers
from ragchunk.runs.globs import make_globs
from ragchunk.runs.inputs import WalkOptions, absolute, find_inputs

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.pipeline.scopes import Plans
    from ragchunk.runs.config import Config
    from ragchunk.runs.dedupe import DedupeOptions, Deduper
    from ragchunk.runs.inputs import Input, Note, Skipped
    from ragchunk.runs.manifest import Manifest
    from ragchunk.runs.workers import Job
    from ragchunk.settings import Run
    from ragchunk.sinks._spec import Renderer

DEDUPE_GROUP: Final = 2000
"""``--dedupe`` checks the chunks of consecutive results in groups of about this many."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class Batch:
    """A validated run: its jobs, where each output goes, and what the walk left out.

    Attributes:
        jobs: the inputs with their plans, in input order.
        outputs: each job's output file under ``-o DIR/`` (None: the shared stream).
        notes: what the walk left out, one sentence each.
        skipped: how many entries the walk skipped, by reason.
        refused: inputs whose output would be unsafe, as failures.
        roots: the directories named on the command line (walked).
        output_file: ``-o FILE``: one output file for every input.
        output_dir: ``-o DIR/``: one output file per input, mirroring the tree.
        output_url: ``-o URL``: one store for every input (``sqlite:///index.db``).
        output_format: the sink ``-o`` writes (``ragchunk.sinks``; standard output gets
            the default sink).
        manifest: the loaded ``--manifest``.
        workers: worker processes (on Ray: the local cluster's CPUs, or at most this many
            tasks at once on an existing cluster).
        fail_fast: stop at the first input that fails.
        engine: where the inputs are chunked: ``local`` processes or a ``ray`` cluster.
        ray_address: the Ray cluster to join (``auto``, ``ray://HOST:PORT``...); None starts
            a local one.
        dedupe: ``--dedupe``: remove chunks that repeat earlier ones of the run.
    """

    jobs: tuple[Job, ...]
    outputs: tuple[Path | None, ...]
    notes: tuple[Note, ...]
    refused: tuple[FileResult, ...]
    roots: tuple[str, ...]
    skipped: tuple[Skipped, ...] = ()
    output_file: Path | None = None
    output_dir: Path | None = None
    output_url: str | None = None
    output_format: str = sinks.DEFAULT_SINK
    manifest: Manifest | None = None
    workers: int = 1
    fail_fast: bool = False
    engine: Engine = "local"
    ray_address: str | None = None
    dedupe: DedupeOptions | None = None

    @property
    def destination(self) -> str | None:
        """Return the output every input shares (``-o FILE`` or ``-o URL``), if any."""
        return self.output_url or (str(self.output_file) if self.output_file else None)

    @property
    def has_output(self) -> bool:
        """Return whether ``-o`` was given: else the records go to standard output, if any."""
        return self.destination is not None or self.output_dir is not None


def is_directory_output(output: str) -> bool:
    """Return whether ``-o`` names a directory: a trailing slash, or an existing directory."""
    return output.endswith(("/", os.sep)) or Path(output).is_dir()


def prepare(
    paths: list[str],
    plans: Plans,
    run: Run,
    *,
    output: str | None,
    output_format: str | None = None,
    dedupe: DedupeOptions | None = None,
) -> Batch:
    """Find the inputs and decide each one's plan, output file and manifest state.

    Raises:
        UsageError: a bad glob, ``--jobs`` below 1, an unreadable manifest, a ``--root`` that
            is not a directory, an output format that does not fit ``-o``, an engine or format
            whose extra is not installed.
    """
    url = output if output and sinks.is_url(output) else None
    output_dir = Path(output) if output and not url and is_directory_output(output) else None
    output_file = Path(output) if output and not url and output_dir is None else None
    chosen = sinks.choose(output, output_format, is_directory=output_dir is not None)
    engine = run.engine
    _check_engine(engine, run.ray_address)
    manifest = _load_manifest(run.manifest)
    own = [output_dir, output_file, manifest.path if manifest else None]
    skip = frozenset(absolute(p) for p in own if p is not None)
    root = run.root or "."
    if not Path(root).is_dir():
        raise UsageError(f"--root {root}: not a directory")
    walk = WalkOptions(
        include=make_globs(run.include),
        exclude=make_globs(run.exclude),
        gitignore=run.gitignore,
        skip=skip,
        root=root,
    )
    count = workers.default_jobs() if run.jobs is None else run.jobs
    workers.check_workers(count)
    found = find_inputs(paths, walk)
    # With --dedupe, what an input keeps depends on every input before it: none is skipped.
    known = None if dedupe is not None else manifest
    routed = _route(workers.make_jobs(found.inputs, plans), output_dir, known, chosen)
    jobs, outputs, refused = routed
    notes = found.notes + _unmatched_globs(plans.config, found.inputs)
    if dedupe is not None and manifest is not None:
        from ragchunk.runs.inputs import Note

        why = "--dedupe reads every input again: what an input keeps depends on those before it"
        notes += (Note(str(manifest.path), "dedupe-manifest", why),)
    return Batch(
        jobs=tuple(jobs),
        outputs=tuple(outputs),
        notes=notes,
        skipped=found.skipped,
        refused=tuple(refused),
        roots=tuple(p for p in paths if p != STDIN and Path(p).is_dir()),
        output_file=output_file,
        output_dir=output_dir,
        output_url=url,
        output_format=chosen,
        manifest=manifest,
        workers=count,
        fail_fast=run.fail_fast,
        engine=engine,
        ray_address=run.ray_address,
        dedupe=dedupe,
    )


def _unmatched_globs(config: Config | None, inputs: Sequence[Input]) -> tuple[Note, ...]:
    """Return a note per ``[files."GLOB"]`` section of the configuration that no input matches.

    Its globs are relative to the configuration file's directory, not to where the run starts
    or to the folders named, which is easy to forget: the note says which directory it is.
    """
    if config is None or config.path is None or not config.rules or not inputs:
        return ()
    from ragchunk.runs.inputs import Note

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


def _check_engine(engine: Engine, address: str | None) -> None:
    if engine not in ("local", "ray"):
        raise OptionError("--engine", f"must be one of local, ray (got {engine!r})")
    if address is not None and engine != "ray":
        raise OptionError("--ray-address", "needs --engine ray")
    if engine == "ray":
        from ragchunk.runs.ray_jobs import missing_ray

        if (missing := missing_ray()) is not None:
            raise UsageError(missing)


def _load_manifest(path: str | None) -> Manifest | None:
    if path is None:
        return None
    from ragchunk.runs.manifest import load_manifest

    return load_manifest(Path(path))


def _route(
    jobs: list[Job], output_dir: Path | None, manifest: Manifest | None, output_format: str
) -> tuple[list[Job], list[Path | None], list[FileResult]]:
    """Give each job its output path and known hash; refuse jobs whose output is unsafe."""
    from ragchunk.errors import InputError
    from ragchunk.sinks.tree import mirror_path

    suffix = sinks.file_suffix(output_format)

    routed: list[Job] = []
    outputs: list[Path | None] = []
    refused: list[FileResult] = []
    claimed: dict[Path, str] = {}
    for job in jobs:
        target = None
        if output_dir is not None:
            try:
                target = mirror_path(output_dir, job.doc_id, suffix)
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
            from ragchunk.runs.manifest import settings_digest

            known = manifest.known_hash(job.source, settings_digest(job.plan.recipe), target)
            job = dataclasses.replace(job, known_hash=known)
        routed.append(job)
        outputs.append(target)
    return routed, outputs, refused


@contextlib.contextmanager
def results(
    batch: Batch, *, render: Renderer | None = None, progress: bool = False
) -> Iterator[Iterator[tuple[Job, Path | None, FileResult]]]:
    """Yield ``(job, output, result)`` per input, in input order, as the results come in.

    With ``render`` (a sink's renderer), the chunks are rendered where they are made
    (``result.rendered``): only bytes cross between processes. The workers are shut down when
    the block ends. ``progress`` shows Ray's own progress bars (the local engine's is the
    caller's to show).

    Raises:
        UsageError: the Ray cluster cannot be started or reached.
    """
    jobs = batch.jobs
    if render is not None:
        jobs = tuple(dataclasses.replace(job, render=render) for job in jobs)
    if batch.engine == "ray":
        from ragchunk.runs import ray_jobs

        made = ray_jobs.run_jobs(
            jobs, address=batch.ray_address, workers=batch.workers, progress=progress
        )
    else:
        made = workers.run_jobs(jobs, workers=batch.workers)
    if batch.dedupe is not None:  # in input order, in this process: the same with any --jobs
        from ragchunk.runs.dedupe import Deduper

        made = _deduplicated(made, Deduper(batch.dedupe))
    with contextlib.closing(made):
        # The results first: zip then runs the pipeline to its end, and it shuts down cleanly.
        yield (
            (job, target, result)
            for result, job, target in zip(made, batch.jobs, batch.outputs, strict=True)
        )


def _deduplicated(
    made: Generator[FileResult, None, None], deduper: Deduper
) -> Generator[FileResult, None, None]:
    """Yield the results of ``made`` through ``deduper``; closing this closes ``made``.

    Results are checked a group at a time (``DEDUPE_GROUP`` chunks or more), still in order:
    one batch of many small inputs costs less than each on its own.
    """
    group: list[FileResult] = []
    chunks = 0
    with contextlib.closing(made):
        for result in made:
            group.append(result)
            chunks += result.chunk_count
            if chunks >= DEDUPE_GROUP:
                yield from deduper.apply_all(group)
                group, chunks = [], 0
        yield from deduper.apply_all(group)
