r"""Ray Data: chunking on a Ray cluster, with the engine and the records of local runs.

In a pipeline of your own, start from a dataset of files (their paths, or their bytes as
``ray.data.read_binary_files(..., include_paths=True)`` reads them from any filesystem pyarrow
understands: local paths, ``s3://``, ``gs://``, ``abfs://``... with your environment's
credentials) and turn it into a dataset of chunk records::

    import ray
    from ragchunk.integrations.ray import chunk_files
    from ragchunk.pipeline.plan import make_plan
    from ragchunk.settings import Chunking, Settings

    plan = make_plan(Settings(chunking=Chunking(strategy="markdown", size=600)))
    files = ray.data.read_binary_files("s3://bucket/docs/", include_paths=True)
    chunks = chunk_files(files, plan, root="bucket/docs")
    chunks.write_parquet("s3://bucket/chunks/")

``chunk_files(files, plan)`` is ``files.map_batches(ChunkFiles(plan), batch_format="pyarrow")``:

- a batch in is a table of files: ``path`` (string) and, optionally, ``bytes`` (the content;
  without it the file is read from ``path``, a local path or a URI) and ``doc_id`` (string;
  by default ``path`` relative to ``root``, else ``path`` itself);
- a batch out is a table of their chunk records in the schema of ``ragchunk.sinks.parquet``:
  the records, ids and spans a local run gives, ``metadata`` as JSON text.

``ChunkFile(plan)`` does the same for one row, for ``files.flat_map``. The plan is validated
once, in the driver; it travels inside the function Ray ships to its workers, once per task,
and is never rebuilt per row (each worker process loads its tokenizer once). A file that
cannot be chunked raises ``InputError`` naming it (``on_error="raise"``) or is left out
(``"skip"``).

``run_jobs`` is ``ragchunk split --engine ray`` (``ragchunk.runs.ray_jobs``): the jobs
of a local run on a Ray cluster, with the results of a local run. Ray and pyarrow are imported
only when used.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from ragchunk.errors import InputError, OptionError
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.results import FileResult, first_line
from ragchunk.runs.ray_jobs import (
    FILES_PER_TASK,
    TASK_RETRIES,
    missing_ray,
    prepare_worker,
    run_jobs,
)
from ragchunk.runs.ray_session import JOIN_TIMEOUT

if TYPE_CHECKING:
    import pyarrow as pa
    from ray.data import Dataset

    from ragchunk.pipeline.plan import Plan

__all__ = [
    "FILES_PER_TASK",
    "JOIN_TIMEOUT",
    "TASK_RETRIES",
    "ChunkFile",
    "ChunkFiles",
    "chunk_files",
    "chunk_one",
    "missing_ray",
    "run_jobs",
]

OnError = Literal["raise", "skip"]


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

    ``plan`` is ``ragchunk.pipeline.plan.make_plan``'s (the default plan when None). ``num_cpus``,
    ``num_gpus`` and ``concurrency`` go to ``map_batches``: what each task reserves, and how
    many run at once (GPU workers for strategies that embed, for example).

    Raises:
        UsageError: ``on_error`` or ``files_per_task`` is not valid.
    """
    if files_per_task < 1:
        raise OptionError("files_per_task", f"must be at least 1 (got {files_per_task})")
    if plan is None:
        from ragchunk.pipeline.plan import make_plan

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

        from ragchunk.sinks.parquet import record_table

        prepare_worker()
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

    Each record is a dict with the columns of ``ragchunk.sinks.parquet`` (``metadata`` as
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

    from ragchunk.pipeline.reading import check_size

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
