"""``split --engine ray``: a batch's jobs on a Ray cluster, with the results of local runs.

``run_jobs`` yields for each input, in input order, the ``FileResult`` that
``ragchunk.runs.workers.run_jobs`` gives, warnings and failures included. The jobs travel as Arrow
tables of a few files each (``FILES_PER_TASK``), the plans once with the task function; a task
reads its files by absolute path (or takes standard input's bytes from the driver), chunks them
with ``worker.work`` and returns one outcome row per file: its JSONL pieces, or its records in
the Parquet schema, and the rest of its ``FileResult``. Ray Data keeps their order and bounds
the memory with its streaming executor; nothing is materialised in the driver. A task that
fails for good (its worker killed) has its files run again one per task, so only the file
that kills its worker fails. Ray is imported only when a run starts.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ragchunk.defaults import STDIN
from ragchunk.errors import EngineError, InputError
from ragchunk.pipeline.results import Diagnostic, FileResult, first_line
from ragchunk.runs.inputs import absolute

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

    from ragchunk.model import Chunk
    from ragchunk.pipeline.plan import Plan
    from ragchunk.runs.workers import Job

FILES_PER_TASK: Final = 16
"""The most files one Ray task chunks: enough to pay Ray's overhead per task (tens of ms) once
for several files, few enough to lose little when a task's worker dies. A run with few files
per CPU gives each task fewer, so that every CPU gets at least ``TASKS_PER_CPU`` tasks."""
TASKS_PER_CPU: Final = 4
TASK_RETRIES: Final = 2
"""Times a task whose worker died is retried before its files run again one per task (Ray's
default, -1, would retry forever a file that kills its worker every time)."""


def missing_ray() -> str | None:
    """Return what to install when Ray Data is missing, else None (checked without importing)."""
    import importlib.util

    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("pyarrow") is None:
        return "--engine ray needs Ray Data: pip install 'ragchunk[ray]'"
    return None


def prepare_worker() -> None:
    """Prepare this Ray worker process once: tokenizers use one thread (tasks use every CPU)."""
    from ragchunk.measure import use_one_encoding_thread

    use_one_encoding_thread()


def run_jobs(
    jobs: Sequence[Job],
    *,
    address: str | None = None,
    workers: int | None = None,
    progress: bool = False,
) -> Generator[FileResult, None, None]:
    """Yield one result per job, in job order, chunked on a Ray cluster.

    ``address`` is the cluster to join (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``); None
    joins the one ``RAY_ADDRESS`` names, else starts a local one with ``workers`` CPUs (all
    cores when None), stopped at the end. A cluster joined runs as many tasks at once as it
    has CPUs. A Ray session already initialised in this process is used as it is.
    ``progress`` shows Ray Data's progress bars on stderr (Ray draws them only when stdout is
    a terminal too). A task whose worker died is retried; if it fails for good, its inputs
    run again one per task, and only one that fails alone fails.

    Raises:
        UsageError: the cluster cannot be started or reached (on the first result).
        EngineError: the cluster failed while the jobs ran.
    """
    if not jobs:
        return
    from ragchunk.runs.ray_session import connected, execution_options, logs_quiet

    debug = any(job.plan.policy.debug for job in jobs)
    with connected(address, workers), logs_quiet():
        import ray

        try:
            with execution_options(progress=progress, debug=debug):
                resources: Callable[[], dict[str, float]] = ray.cluster_resources  # untyped in Ray
                cpus = float(resources().get("CPU", 1.0))
                yield from _stream(jobs, per_task=files_per_task(len(jobs), cpus))
        except ray.exceptions.RayError as exc:
            if debug:  # --debug: the error as Ray gives it, with the worker's traceback
                raise
            raise EngineError(f"the Ray cluster failed: {first_line(str(exc))}") from None


def files_per_task(files: int, cpus: float) -> int:
    """Return how many files each task gets: at most ``FILES_PER_TASK``.

    Fewer when the run has too few files for ``TASKS_PER_CPU`` tasks per CPU.
    """
    spread = math.floor(files / max(1.0, cpus * TASKS_PER_CPU))
    return max(1, min(FILES_PER_TASK, spread))


def _stream(jobs: Sequence[Job], *, per_task: int) -> Iterator[FileResult]:
    """Run the jobs as a Ray dataset and yield their results in job order.

    The jobs of a task that failed for good are run again one per task, so that only an
    input that kills its worker every time fails (as with local worker processes).
    """
    expected = 0
    for position, result in _outcomes(jobs, per_task=per_task):
        if position > expected:  # a gap: the block of those jobs was dropped
            yield from _rerun(jobs[expected:position], per_task=per_task)
        yield result
        expected = position + 1
    if expected < len(jobs):
        yield from _rerun(jobs[expected:], per_task=per_task)


def _rerun(lost: Sequence[Job], *, per_task: int) -> Iterator[FileResult]:
    if per_task == 1:
        yield from (_lost(job) for job in lost)
    else:
        yield from _stream(lost, per_task=1)


def _outcomes(jobs: Sequence[Job], *, per_task: int) -> Iterator[tuple[int, FileResult]]:
    """Yield ``(position, result)`` for the jobs Ray chunked, in order (gaps for lost ones)."""
    import ray

    plans = list({id(job.plan): job.plan for job in jobs}.values())
    index = {id(plan): k for k, plan in enumerate(plans)}
    blocks = [
        _job_table(jobs, start, min(start + per_task, len(jobs)), index)
        for start in range(0, len(jobs), per_task)
    ]
    worker = _ChunkJobs(tuple(plans), render=jobs[0].render)
    files = ray.data.from_arrow(blocks)
    with warnings.catch_warnings():
        # Ray 2.60 deprecates remote arguments given to map_batches without naming another
        # way to bound a task's retries, which must be bounded here (TASK_RETRIES).
        warnings.filterwarnings("ignore", message=".*ray_remote_args.* is deprecated")
        outcomes = files.map_batches(
            worker,
            batch_format="pyarrow",
            batch_size=None,
            **_retries(files),
        )
    for block in outcomes.iter_batches(batch_format="pyarrow", batch_size=None):
        yield from _decode(block, jobs)


def _retries(dataset: Dataset) -> dict[str, Any]:
    """Return ``map_batches``'s argument bounding task retries, where this Ray takes one."""
    import inspect

    parameters = inspect.signature(dataset.map_batches).parameters
    takes = "max_retries" in parameters or any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
    )
    return {"max_retries": TASK_RETRIES} if takes else {}


def _lost(job: Job) -> FileResult:
    message = (
        f"{job.source}: the Ray task chunking it failed {TASK_RETRIES + 1} times (its worker "
        "killed, perhaps out of memory); the Ray logs say why"
    )
    return FileResult(job.source, job.doc_id, error=message)


def _job_table(jobs: Sequence[Job], start: int, end: int, plans: dict[int, int]) -> pa.Table:
    """Return the jobs ``start:end`` as a table: what a task needs to know of each."""
    import pyarrow as pa

    from ragchunk.pipeline.reading import read_input

    chosen = jobs[start:end]
    data: list[bytes | None] = [None] * len(chosen)
    errors: list[str | None] = [None] * len(chosen)
    for k, job in enumerate(chosen):
        if job.source == STDIN:  # the workers cannot read this process's standard input
            try:
                data[k] = read_input(STDIN, job.plan.policy.max_bytes)
            except InputError as exc:
                errors[k] = str(exc)
    return pa.table(
        {
            "position": pa.array(range(start, end), pa.int64()),
            "source": [job.source for job in chosen],
            "path": [None if job.source == STDIN else absolute(job.source) for job in chosen],
            "doc_id": [job.doc_id for job in chosen],
            "plan": pa.array([plans[id(job.plan)] for job in chosen], pa.int32()),
            "known_hash": pa.array([job.known_hash for job in chosen], pa.string()),
            "data": pa.array(data, pa.large_binary()),
            "error": pa.array(errors, pa.string()),
        }
    )


@dataclass(frozen=True, slots=True)
class _ChunkJobs:
    """The function of ``run_jobs``'s tasks: jobs in, one outcome row per job out.

    ``plans`` are shipped with the function, once per task; rows name theirs by index.
    ``render`` is the jobs' renderer (JSONL), applied where the chunks are made.
    """

    plans: tuple[Plan, ...]
    render: Callable[[Sequence[Chunk]], bytes] | None = None

    def __call__(self, batch: pa.Table) -> pa.Table:
        from ragchunk.runs.worker import Job, work

        prepare_worker()
        results = []
        for row in batch.to_pylist():
            if row["error"] is not None:  # standard input, which the driver failed to read
                results.append(FileResult(row["source"], row["doc_id"], error=row["error"]))
                continue
            job = Job(
                row["source"],
                row["doc_id"],
                self.plans[row["plan"]],
                known_hash=row["known_hash"],
                render=self.render,
            )
            results.append(work(job, path=row["path"], data=row["data"]))
        return _encode(batch.column("position").to_pylist(), results)


_DIAGNOSTIC_FIELDS: Final = ("path", "code", "message")


def _encode(positions: list[int], results: list[FileResult]) -> pa.Table:
    """Return one row per result: all of it but the source and doc_id, which the driver has.

    The chunks go as JSONL pieces (``rendered``) when they were rendered, else as a list of
    records in the Parquet schema (``records``).
    """
    import pyarrow as pa

    from ragchunk.sinks.parquet import record_table

    diagnostic = pa.struct([(name, pa.string()) for name in _DIAGNOSTIC_FIELDS])
    columns: dict[str, pa.Array] = {
        "position": pa.array(positions, pa.int64()),
        "error": pa.array([r.error for r in results], pa.string()),
        "diagnostics": pa.array(
            [
                [{n: getattr(d, n) for n in _DIAGNOSTIC_FIELDS} for d in r.diagnostics]
                for r in results
            ],
            pa.list_(diagnostic),
        ),
        "content_hash": pa.array([r.content_hash for r in results], pa.string()),
        "unchanged": pa.array([r.unchanged for r in results], pa.bool_()),
        "chunk_count": pa.array([r.chunk_count for r in results], pa.int64()),
        "violations": pa.array([list(r.violations) for r in results], pa.list_(pa.string())),
        "rendered": pa.array(
            [None if r.rendered is None else list(r.rendered) for r in results],
            pa.list_(pa.large_binary()),
        ),
    }
    # One table for the records of all the files, cut into one list per file.
    records = record_table([chunk for result in results for chunk in result.chunks])
    offsets = itertools.accumulate((len(r.chunks) for r in results), initial=0)
    columns["records"] = pa.ListArray.from_arrays(
        pa.array(offsets, pa.int32()), records.to_struct_array().combine_chunks()
    )
    return pa.table(columns)


def _decode(block: pa.Table, jobs: Sequence[Job]) -> Iterator[tuple[int, FileResult]]:
    """Yield ``(position, result)`` for each outcome row of ``block`` (see ``_encode``)."""
    import pyarrow as pa

    from ragchunk.sinks.parquet import chunks_from_table

    columns = {
        name: block.column(name).to_pylist() for name in block.column_names if name != "records"
    }
    records = block.column("records").combine_chunks()
    for k, position in enumerate(columns["position"]):
        job = jobs[position]
        rows = records[k].values
        chunks = chunks_from_table(pa.Table.from_struct_array(rows)) if len(rows) else []
        rendered = columns["rendered"][k]
        yield (
            position,
            FileResult(
                job.source,
                job.doc_id,
                chunks=tuple(chunks),
                diagnostics=tuple(
                    Diagnostic(d["path"], d["code"], d["message"])
                    for d in columns["diagnostics"][k]
                ),
                error=columns["error"][k],
                content_hash=columns["content_hash"][k],
                unchanged=columns["unchanged"][k],
                rendered=None if rendered is None else tuple(rendered),
                chunk_count=columns["chunk_count"][k],
                violations=tuple(columns["violations"][k]),
            ),
        )
