r"""Ray Data: chunking on a Ray cluster, with the engine and the records of local runs.

In a pipeline of your own, start from a dataset of files (their paths, or their bytes as
``ray.data.read_binary_files(..., include_paths=True)`` reads them from any filesystem pyarrow
understands: local paths, ``s3://``, ``gs://``, ``abfs://``... with your environment's
credentials) and turn it into a dataset of chunk records::

    import ray
    from ragchunk.integrations.ray import chunk_files
    from ragchunk.plan import make_plan

    files = ray.data.read_binary_files("s3://bucket/docs/", include_paths=True)
    chunks = chunk_files(files, make_plan("markdown", size=600), root="bucket/docs")
    chunks.write_parquet("s3://bucket/chunks/")

``chunk_files(files, plan)`` is ``files.map_batches(ChunkFiles(plan), batch_format="pyarrow")``:

- a batch in is a table of files: ``path`` (string) and, optionally, ``bytes`` (the content;
  without it the file is read from ``path``, a local path or a URI) and ``doc_id`` (string;
  by default ``path`` relative to ``root``, else ``path`` itself);
- a batch out is a table of their chunk records in the schema of ``ragchunk.writers.parquet``:
  the records, ids and spans a local run gives, ``metadata`` as JSON text.

``ChunkFile(plan)`` does the same for one row, for ``files.flat_map``. The plan is validated
once, in the driver; it travels inside the function Ray ships to its workers, once per task,
and is never rebuilt per row (each worker process loads its tokenizer once). A file that
cannot be chunked raises ``InputError`` naming it (``on_error="raise"``) or is left out
(``"skip"``).

``run_jobs`` is ``ragchunk split --engine ray``: the jobs of a local run on a Ray cluster (a
local one, or one already running), yielding for each input, in input order, the
``FileResult`` that ``ragchunk.workers.run_jobs`` gives, warnings and failures included.
Memory is bounded by Ray's streaming executor: results are taken as they come and nothing is
materialised in the driver. The workers read the inputs themselves, by absolute path: on a
cluster of several machines the inputs must be on a filesystem all of them share.
"""

from __future__ import annotations

import contextlib
import logging
import os
import posixpath
import sys
import warnings
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from ragchunk.engine import Diagnostic, FileResult, first_line, process
from ragchunk.errors import EngineError, InputError, OptionError, UsageError
from ragchunk.inputs import STDIN, absolute

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

    from ragchunk.model import Chunk
    from ragchunk.plan import Plan
    from ragchunk.workers import Job

FILES_PER_TASK: Final = 4
"""Files one Ray task chunks: few enough to spread a run over the workers and to lose little
when a task's worker dies, enough to pay Ray's overhead per task only once for them."""
TASK_RETRIES: Final = 2
"""Times a task whose worker died is retried before its files are failed (Ray's default, -1,
would retry forever a file that kills its worker every time)."""
JOIN_TIMEOUT: Final = 10.0
"""Seconds to wait for a cluster's address to answer before giving up on joining it."""
OnError = Literal["raise", "skip"]
_SINGLE_NODE: Final = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def missing_ray() -> str | None:
    """Return what to install when Ray Data is missing, else None (checked without importing)."""
    import importlib.util

    if importlib.util.find_spec("ray") is None or importlib.util.find_spec("pyarrow") is None:
        return "--engine ray needs Ray Data: pip install 'ragchunk[ray]'"
    return None


def chunk_files(
    dataset: Dataset,
    plan: Plan | None = None,
    *,
    root: str | None = None,
    on_error: OnError = "raise",
    files_per_task: int = FILES_PER_TASK,
    num_cpus: float | None = None,
    num_gpus: float | None = None,
    concurrency: int | None = None,
) -> Dataset:
    """Return a dataset of the chunk records of a dataset of files (see the module docstring).

    ``plan`` is ``ragchunk.plan.make_plan``'s (the default plan when None). ``num_cpus``,
    ``num_gpus`` and ``concurrency`` go to ``map_batches``: what each task reserves, and how
    many run at once (GPU workers for strategies that embed, for example).

    Raises:
        UsageError: ``on_error`` or ``files_per_task`` is not valid.
    """
    if files_per_task < 1:
        raise OptionError("files_per_task", f"must be at least 1 (got {files_per_task})")
    if plan is None:
        from ragchunk.plan import make_plan

        plan = make_plan()
    chunker = ChunkFiles(plan, root=root, on_error=on_error)
    return dataset.map_batches(
        chunker,
        batch_format="pyarrow",
        batch_size=files_per_task,
        num_cpus=num_cpus,
        num_gpus=num_gpus,
        concurrency=concurrency,
    )


@dataclass(frozen=True, slots=True)
class ChunkFiles:
    """For ``map_batches(..., batch_format="pyarrow")``: a table of files to their records.

    Attributes:
        plan: the validated plan every file is chunked with.
        root: ``doc_id`` is a file's ``path`` relative to this (when the table has no
            ``doc_id`` column and the path lies under it).
        on_error: ``raise`` an ``InputError`` for a file that cannot be chunked, or ``skip`` it.
    """

    plan: Plan
    root: str | None = None
    on_error: OnError = "raise"

    def __post_init__(self) -> None:
        if self.on_error not in ("raise", "skip"):
            raise OptionError("on_error", f"must be raise or skip (got {self.on_error!r})")

    def __call__(self, batch: pa.Table) -> pa.Table:
        """Return the records of the files in ``batch``, file after file."""
        import pyarrow as pa

        from ragchunk.writers.parquet import record_table

        _prepare_worker()
        names = batch.column_names
        paths = batch.column("path").to_pylist()
        contents = batch.column("bytes").to_pylist() if "bytes" in names else [None] * len(paths)
        given = batch.column("doc_id").to_pylist() if "doc_id" in names else [None] * len(paths)
        doc_ids = [
            _doc_id(path, self.root) if doc_id is None else doc_id
            for path, doc_id in zip(paths, given, strict=True)
        ]
        tables = []
        for path, data, doc_id in zip(paths, contents, doc_ids, strict=True):
            result = chunk_one(path, doc_id, self.plan, data=data)
            if result.error is not None and self.on_error == "raise":
                raise InputError(result.error)
            if result.chunks:
                tables.append(record_table(result.chunks))
        if not tables:
            return record_table([])
        return pa.concat_tables(tables, promote_options="default")


@dataclass(frozen=True, slots=True)
class ChunkFile:
    """For ``flat_map``: one file (a row with ``path``, maybe ``bytes``, ``doc_id``) to records.

    Each record is a dict with the columns of ``ragchunk.writers.parquet`` (``metadata`` as
    JSON text). Attributes as ``ChunkFiles``.
    """

    plan: Plan
    root: str | None = None
    on_error: OnError = "raise"

    def __post_init__(self) -> None:
        if self.on_error not in ("raise", "skip"):
            raise OptionError("on_error", f"must be raise or skip (got {self.on_error!r})")

    def __call__(self, row: dict[str, Any]) -> list[dict[str, Any]]:
        """Return the records of the file in ``row``."""
        import pyarrow as pa

        batch = pa.Table.from_pylist([row])
        records: list[dict[str, Any]] = ChunkFiles(self.plan, self.root, self.on_error)(
            batch
        ).to_pylist()
        return records


def chunk_one(source: str, doc_id: str, plan: Plan, *, data: bytes | None = None) -> FileResult:
    """Chunk one file of a dataset: its ``data``, else read from ``source`` (a path or a URI)."""
    if data is None and _is_uri(source):
        try:
            data = _read_uri(source, plan.policy.max_bytes)
        except InputError as exc:
            return FileResult(source, doc_id, error=str(exc))
    return process(source, doc_id, plan, data=data)


def _is_uri(path: str) -> bool:
    scheme, sep, _ = path.partition("://")
    return bool(sep) and scheme.isidentifier()


def _read_uri(uri: str, max_bytes: int) -> bytes:
    """Return the bytes of a file that pyarrow's filesystems reach (``s3://``, ``file://``...).

    Raises:
        InputError: it cannot be read; LimitExceededError: it holds more than ``max_bytes``.
    """
    import pyarrow as pa
    from pyarrow import fs

    from ragchunk.reading import check_size

    try:
        filesystem, path = fs.FileSystem.from_uri(uri)
        with filesystem.open_input_stream(path) as stream:
            data = stream.read(max_bytes + 1)
    except (OSError, pa.ArrowException) as exc:
        raise InputError(f"{uri}: cannot read ({first_line(str(exc))})") from None
    return check_size(bytes(data), uri, max_bytes)


def _doc_id(path: str, root: str | None) -> str:
    if root is None:
        return path
    base = root.rstrip("/")
    if path.startswith(base + "/"):
        return posixpath.relpath(path, base)
    return path


def _prepare_worker() -> None:
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
    a terminal too). A task whose worker died is retried; if it
    fails for good, its inputs run again one per task, and only one that fails alone fails.

    Raises:
        UsageError: the cluster cannot be started or reached (on the first result).
        EngineError: the cluster failed while the jobs ran.
    """
    if not jobs:
        return
    if _starts_local(address) and "ray" not in sys.modules:
        # Ray's single-node mode, read when ray is imported: every socket of the cluster
        # listens on 127.0.0.1 (otherwise its GCS and raylet listen on every interface).
        os.environ.setdefault(_SINGLE_NODE, "0")
    import ray
    import ray.data  # sets up Ray Data's loggers, which _ray_logs_quiet then quiets

    debug = any(job.plan.policy.debug for job in jobs)
    with _ray_logs_quiet():
        started = _connect(address, workers)
        try:
            with _execution_options(progress=progress, debug=debug):
                yield from _stream(jobs)
        except ray.exceptions.RayError as exc:
            if debug:  # --debug: the error as Ray gives it, with the worker's traceback
                raise
            raise EngineError(f"the Ray cluster failed: {first_line(str(exc))}") from None
        finally:
            if started:
                ray.shutdown()


def _connect(address: str | None, workers: int | None) -> bool:
    """Join or start the cluster; return whether this call started Ray (and must stop it).

    Without an address, the cluster named by ``RAY_ADDRESS`` is joined (as in a job that
    ``ray job submit`` started), else a new local one is started: never one that happens to
    run on the machine.

    Raises:
        UsageError: it cannot be started or reached.
    """
    import ray

    if ray.is_initialized():
        return False
    if _starts_local(address):
        # A local cluster of this run's own, on the loopback interface, without a dashboard.
        options: dict[str, Any] = {
            "address": "local",
            "num_cpus": workers,
            "include_dashboard": False,
            "_node_ip_address": "127.0.0.1",
        }
    else:
        options = {"address": address}
        joined = address or os.environ["RAY_ADDRESS"]
        if (reason := _unreachable(joined)) is not None:
            raise _join_error(address, f"{joined}: cannot join ({reason})")
    try:
        ray.init(logging_level=logging.ERROR, **options)
    except (ConnectionError, RuntimeError, ValueError, OSError, TimeoutError) as exc:
        reason = first_line(str(exc)) or type(exc).__name__
        if _starts_local(address):
            raise UsageError(f"cannot start a local Ray cluster ({reason})") from None
        joined = address or os.environ["RAY_ADDRESS"]
        raise _join_error(address, f"{joined}: cannot join ({reason})") from None
    return True


def _join_error(address: str | None, message: str) -> UsageError:
    """Name the flag, or the environment variable, that gave the address."""
    if address is not None:
        return OptionError("--ray-address", message)
    return UsageError(f"RAY_ADDRESS {message}")


def _unreachable(address: str) -> str | None:
    """Return why nothing answers at ``HOST:PORT`` (or ``ray://HOST:PORT``), else None.

    Ray itself keeps trying an address where nothing listens, for minutes; other forms
    (``auto``) are left to Ray, which fails fast on them.
    """
    import socket

    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not port.isdigit() or not host:
        return None
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=JOIN_TIMEOUT):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def _starts_local(address: str | None) -> bool:
    """Return whether ``run_jobs`` starts a local cluster (no address, no ``RAY_ADDRESS``)."""
    return address is None and not os.environ.get("RAY_ADDRESS")


@contextlib.contextmanager
def _execution_options(*, progress: bool, debug: bool) -> Iterator[None]:
    """Set Ray Data's options for one run, and put them back afterwards.

    Order is preserved (the output is the same as a local run's, byte for byte); a block whose
    task failed for good is dropped instead of stopping the run (``_stream`` runs its inputs
    again), except with ``--debug``, where the failure stops the run; progress bars only when
    asked.
    """
    from ray.data import DataContext

    context = DataContext.get_current()
    saved = (
        context.execution_options.preserve_order,
        context.max_errored_blocks,
        context.enable_progress_bars,
        context.print_on_execution_start,
        context.use_ray_tqdm,
        context.enable_rich_progress_bars,
    )
    context.execution_options.preserve_order = True
    context.max_errored_blocks = 0 if debug else -1
    context.enable_progress_bars = progress
    context.print_on_execution_start = False
    # The bars are drawn here, in the driver, by rich on stderr (Ray Data's own choice, too,
    # needs stdout to be a terminal).
    context.use_ray_tqdm = False
    context.enable_rich_progress_bars = True
    try:
        yield
    finally:
        (
            context.execution_options.preserve_order,
            context.max_errored_blocks,
            context.enable_progress_bars,
            context.print_on_execution_start,
            context.use_ray_tqdm,
            context.enable_rich_progress_bars,
        ) = saved


@contextlib.contextmanager
def _ray_logs_quiet() -> Iterator[None]:
    """Keep Ray Data's informational lines off the terminal during a run.

    They still go to the session's log files; its warnings about a failed task are replaced
    by the failures of the inputs concerned.
    """
    logger = logging.getLogger("ray.data")
    consoles = [
        handler
        for handler in logger.handlers
        if isinstance(handler, logging.StreamHandler)
        and not isinstance(handler, logging.FileHandler)
    ]
    levels = [handler.level for handler in consoles]
    for handler in consoles:
        handler.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for handler, level in zip(consoles, levels, strict=True):
            handler.setLevel(level)


def _stream(jobs: Sequence[Job], *, per_task: int = FILES_PER_TASK) -> Iterator[FileResult]:
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

    from ragchunk.reading import read_input

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
    render: Callable[[Sequence[Chunk]], str] | None = None

    def __call__(self, batch: pa.Table) -> pa.Table:
        from ragchunk.workers import Job, work

        _prepare_worker()
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

    from ragchunk.writers.parquet import record_table

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
            pa.list_(pa.large_string()),
        ),
    }
    tables = [record_table(r.chunks) for r in results]
    records = pa.concat_tables(tables, promote_options="default")
    offsets = [0]
    for table in tables:
        offsets.append(offsets[-1] + table.num_rows)
    columns["records"] = pa.ListArray.from_arrays(
        pa.array(offsets, pa.int32()), records.to_struct_array().combine_chunks()
    )
    return pa.table(columns)


def _decode(block: pa.Table, jobs: Sequence[Job]) -> Iterator[tuple[int, FileResult]]:
    """Yield ``(position, result)`` for each outcome row of ``block`` (see ``_encode``)."""
    import pyarrow as pa

    from ragchunk.writers.parquet import chunks_from_table

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
