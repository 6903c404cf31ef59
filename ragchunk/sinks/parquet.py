r"""Parquet: the chunk records as columns, for data pipelines (SPEC §2), written with pyarrow.

One row per chunk, in the order a JSONL file holds them, with this schema (``schema()``):

=================================  ==============================  ===========================
column                             Arrow type                      null when
=================================  ==============================  ===========================
``id``, ``doc_id``, ``source``     string                          never
``index``                          int64                           never
``text``                           string                          never
``start``, ``end``                 int64                           never
``page_start``, ``page_end``       int64                           the input has no pages
``timestamp_start``, ``_end``      float64: seconds                the input is not timed
``line_start``, ``line_end``       int64                           the input has no lines
``headings``                       list<string>                    never (may be empty)
``strategy``                       string                          never
``chars``                          int64                           never
``tokens``                         int64                           tokens are not counted
``metadata``                       string: a JSON object           never (``{}`` when empty)
``boxes``                          list<struct<page,x0,y0,x1,y1>>  not a PDF read by PDFium
``parent_id``                      string                          no ``--parents``, or a parent
``context``                        string                          no ``--contextualize``
``doc_hash``, ``hash``             string                          no ``--hashes``
``embedding`` (only if any)        fixed_size_list<float32>[N]     the record has none
=================================  ==============================  ===========================

A column is null exactly where the JSONL record leaves its field out, so each row reads back as
the same record. ``metadata`` is the JSON text the JSONL record holds, not a struct: its keys
vary by strategy and format (``language``, ``symbol``, ``kind``, ``oversize_split``...), and a
struct would give each input a schema of its own that readers could not concatenate; DuckDB
reads it with ``metadata->>'$.language'``, pandas with ``json.loads``. ``embedding`` is there
only when the records carry vectors, all of one size.

Strings in Parquet are UTF-8, which cannot hold a lone surrogate: a name (``doc_id``,
``source``) holding one (a file name that is not UTF-8) is written with the ``\udcXX`` escapes
JSONL uses, and text holding one (only possible through the library API) with U+FFFD, one for
one, so offsets still hold.

Files are compressed with zstd and written atomically. Row groups, the unit that DuckDB, Ray and
Spark read in parallel, hold up to ``ROW_GROUP_ROWS`` rows or about ``ROW_GROUP_BYTES`` of data,
whichever comes first, whatever the number of inputs: small inputs are gathered, a large one is
cut. Nothing more than one row group is kept in memory.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from ragchunk.errors import UsageError
from ragchunk.model import BOX_FIELDS
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks.atomic import atomic_binary_writer
from ragchunk.sinks.jsonl import escape_surrogates

if TYPE_CHECKING:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from ragchunk.model import Chunk
    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

SCHEMA_VERSION: Final = "1"
"""Written to every file's key-value metadata as ``ragchunk.schema``."""
ROW_GROUP_ROWS: Final = 100_000
ROW_GROUP_BYTES: Final = 64 * 1024 * 1024
"""A row group's size in Arrow's in-memory bytes (the file holds it compressed)."""
COMPRESSION: Final = "zstd"
NAME_COLUMNS: Final = ("doc_id", "source")
TEXT_COLUMNS: Final = ("text", "context", "metadata")
INTEGER_COLUMNS: Final = (
    "index",
    "start",
    "end",
    "page_start",
    "page_end",
    "line_start",
    "line_end",
    "chars",
    "tokens",
)
FLOAT_COLUMNS: Final = ("timestamp_start", "timestamp_end")
EMBEDDING: Final = "embedding"
_REQUIRED: Final = frozenset(
    {"id", "doc_id", "source", "index", "text", "start", "end", "headings", "strategy", "chars"}
    | {"metadata"}
)
_ORDER: Final = (
    "id",
    "doc_id",
    "source",
    "index",
    "text",
    "start",
    "end",
    "page_start",
    "page_end",
    "timestamp_start",
    "timestamp_end",
    "line_start",
    "line_end",
    "headings",
    "strategy",
    "chars",
    "tokens",
    "metadata",
    "boxes",
    "parent_id",
    "context",
    "doc_hash",
    "hash",
)
"""The columns, in the order of a JSONL record's fields (``embedding`` comes last)."""
_DICTIONARY: Final = ["doc_id", "source", "strategy", "metadata", "doc_hash"]
"""Columns whose values repeat from row to row (dictionary-encoded)."""
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def missing_pyarrow() -> str | None:
    """Return what to install when pyarrow is missing, else None (checked without importing)."""
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        return "Parquet output needs pyarrow: pip install 'ragchunk[parquet]'"
    return None


def schema(embedding_size: int | None = None) -> pa.Schema:
    """Return the Arrow schema of the records (see the module docstring).

    ``embedding_size`` adds the ``embedding`` column of vectors of that many float32.
    """
    import pyarrow as pa

    types = {name: pa.int64() for name in INTEGER_COLUMNS}
    # "element": the name Parquet readers give list items, so a file read back has this schema.
    types.update(dict.fromkeys(FLOAT_COLUMNS, pa.float64()))
    types["headings"] = pa.list_(pa.field("element", pa.string()))
    box = [pa.field("page", pa.int32(), nullable=False)]
    box += [pa.field(name, pa.float64(), nullable=False) for name in BOX_FIELDS[1:]]
    types["boxes"] = pa.list_(pa.field("element", pa.struct(box), nullable=False))
    fields = [
        pa.field(name, types.get(name, pa.string()), nullable=name not in _REQUIRED)
        for name in _ORDER
    ]
    if embedding_size is not None:
        fields.append(
            pa.field(EMBEDDING, pa.list_(pa.field("element", pa.float32()), embedding_size))
        )
    return pa.schema(fields, metadata={"ragchunk.schema": SCHEMA_VERSION})


def record_table(chunks: Sequence[Chunk]) -> pa.Table:
    """Return the records of ``chunks`` as an Arrow table with the module's schema.

    The table has an ``embedding`` column when any chunk carries an embedding.

    Raises:
        UsageError: the chunks' embeddings differ in size.
    """
    import pyarrow as pa

    from ragchunk.sinks.jsonl import metadata_text

    columns: dict[str, Any] = {name: [getattr(c, name) for c in chunks] for name in _ORDER}
    columns["metadata"] = [metadata_text(c.metadata) for c in chunks]
    columns["boxes"] = [
        c.boxes and [dict(zip(BOX_FIELDS, b, strict=True)) for b in c.boxes] for c in chunks
    ]
    vectors = [getattr(c, EMBEDDING, None) for c in chunks]
    size = _embedding_size(vectors)
    table_schema = schema(size)
    arrays = [_array(name, columns[name], table_schema.field(name).type) for name in _ORDER]
    if size is not None:
        arrays.append(_vectors(vectors, size))
    return pa.Table.from_arrays(arrays, schema=table_schema)


def _array(name: str, values: list[Any], kind: pa.DataType) -> pa.Array:
    import pyarrow as pa

    try:
        return pa.array(values, kind)
    except UnicodeEncodeError:  # a lone surrogate, which UTF-8 cannot hold (module docstring)
        if name in NAME_COLUMNS:
            return pa.array([_SURROGATE.sub(_escape, v) for v in values], kind)
        if name == "headings":
            return pa.array([[_replace(h) for h in v] for v in values], kind)
        return pa.array([None if v is None else _replace(v) for v in values], kind)


def _box(struct: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(struct[name] for name in BOX_FIELDS)


def _escape(match: re.Match[str]) -> str:
    return escape_surrogates(match.group())


def _replace(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def _embedding_size(vectors: Sequence[Sequence[float] | None]) -> int | None:
    sizes = {len(v) for v in vectors if v is not None}
    if len(sizes) > 1:
        raise UsageError(f"embeddings of different sizes ({sorted(sizes)}) in one Parquet table")
    return sizes.pop() if sizes else None


def _vectors(vectors: Sequence[Sequence[float] | None], size: int) -> pa.Array:
    """Return the embeddings as one fixed-size list array (null where a chunk has none)."""
    import pyarrow as pa

    zeros = [0.0] * size
    values = pa.array(
        [x for v in vectors for x in (zeros if v is None else v)], pa.float32(), from_pandas=False
    )
    mask = pa.array([v is None for v in vectors], pa.bool_())
    return pa.FixedSizeListArray.from_arrays(values, size, mask=mask)


def conform(table: pa.Table, target: pa.Schema, *, name: str) -> pa.Table:
    """Return ``table`` in ``target``'s schema: a missing ``embedding`` is added as nulls.

    Raises:
        UsageError: the table is not one of chunk records, or its embeddings do not fit the
            target (``name`` is the output, for the message).
    """
    import pyarrow as pa

    if table.schema.equals(target, check_metadata=False):
        return table
    has, wants = EMBEDDING in table.column_names, EMBEDDING in target.names
    if has and not wants:
        raise UsageError(
            f"{name}: records with embeddings cannot follow records without them in one "
            "Parquet file; write them to separate files"
        )
    if has and table.schema.field(EMBEDDING).type != target.field(EMBEDDING).type:
        raise UsageError(
            f"{name}: embeddings of size {table.schema.field(EMBEDDING).type.list_size} cannot "
            f"join embeddings of size {target.field(EMBEDDING).type.list_size} in one file"
        )
    if wants and not has:
        nulls = pa.nulls(table.num_rows, target.field(EMBEDDING).type)
        table = table.append_column(target.field(EMBEDDING), nulls)
    try:
        return table.select(target.names).cast(target)
    except (KeyError, ValueError, pa.ArrowException) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise UsageError(f"{name}: not a table of chunk records ({reason})") from None


class ParquetSink:
    """Records streamed into one Parquet file, a row group at a time (see the module docstring).

    The schema is fixed by the first row group: it has the ``embedding`` column when those
    records carry embeddings. Call ``close`` to write the file's footer; a sink closed with
    nothing written leaves a valid file with no rows.
    """

    def __init__(self, handle: IO[bytes], *, name: str) -> None:
        self._handle = handle
        self._name = name
        self._writer: pq.ParquetWriter | None = None
        self._pending: list[pa.Table] = []
        self._rows = 0
        self._bytes = 0
        self.rows_written = 0

    def write(self, result: FileResult) -> None:
        """Add the records of one input (the ``Sink`` protocol)."""
        self.write_chunks(result.chunks)

    def write_chunks(self, chunks: Sequence[Chunk]) -> None:
        """Add the records of ``chunks``."""
        if chunks:
            self.write_table(record_table(chunks))

    def write_table(self, table: pa.Table) -> None:
        """Add records already in the module's schema (``record_table``, a Ray dataset's)."""
        if table.num_rows == 0:
            return
        self._pending.append(table)
        self._rows += table.num_rows
        self._bytes += table.nbytes
        if self._rows >= ROW_GROUP_ROWS or self._bytes >= ROW_GROUP_BYTES:
            self._flush()

    def close(self) -> None:
        """Write what is pending and the file's footer."""
        self._flush()
        if self._writer is None:
            self._writer = self._open(schema())
        self._writer.close()

    def discard(self) -> None:
        """Stop writing without finishing the file (its owner removes it): nothing is flushed."""
        import pyarrow as pa

        self._pending = []
        if self._writer is not None:
            # The footer goes into a file about to be removed; a failure to write it (the
            # reason the file is being discarded, perhaps) is no news.
            with contextlib.suppress(OSError, ValueError, pa.ArrowException):
                self._writer.close()

    def _flush(self) -> None:
        import pyarrow as pa

        if not self._pending:
            return
        if self._writer is None:
            sized = [t for t in self._pending if EMBEDDING in t.column_names]
            self._writer = self._open(sized[0].schema if sized else schema())
        target = self._writer.schema
        tables = [conform(t, target, name=self._name) for t in self._pending]
        whole = pa.concat_tables(tables)
        # One row group per ROW_GROUP_ROWS rows or ROW_GROUP_BYTES, whichever is fewer rows.
        per_row = max(whole.nbytes // max(whole.num_rows, 1), 1)
        rows = max(1, min(ROW_GROUP_ROWS, ROW_GROUP_BYTES // per_row))
        self._writer.write_table(whole, row_group_size=rows)
        self.rows_written += whole.num_rows
        self._pending, self._rows, self._bytes = [], 0, 0

    def _open(self, file_schema: pa.Schema) -> pq.ParquetWriter:
        import pyarrow.parquet as pq

        return pq.ParquetWriter(
            self._handle,
            file_schema,
            compression=COMPRESSION,
            use_dictionary=_DICTIONARY,
        )


@contextlib.contextmanager
def parquet_writer(path: Path) -> Iterator[ParquetSink]:
    """Yield a sink writing ``path`` atomically: the file appears only if the block succeeds."""
    with atomic_binary_writer(path) as handle:
        sink = ParquetSink(handle, name=str(path))
        try:
            yield sink
        except BaseException:
            sink.discard()
            raise
        sink.close()


@contextlib.contextmanager
def open_sink(to: Destination) -> Iterator[ParquetSink]:
    """Yield the Parquet sink of the file ``to`` (never a text stream: ``SINK.stream``)."""
    if not isinstance(to, str):
        raise UsageError("Parquet is written to a file, never to a text stream")
    with parquet_writer(Path(to)) as sink:
        yield sink


SINK = SinkSpec(
    name="parquet",
    summary="The records as columns (the schema above), to -o FILE or DIR/; needs pyarrow.",
    open=open_sink,
    stream=False,
    missing=missing_pyarrow,
)


def write_parquet(path: Path, chunks: Sequence[Chunk]) -> None:
    """Write the records of ``chunks`` to ``path`` as one Parquet file, atomically."""
    with parquet_writer(path) as sink:
        sink.write_chunks(chunks)


def chunks_from_table(table: pa.Table) -> list[Chunk]:
    """Return the chunk records a table of the module's schema holds, as ``Chunk`` objects.

    The inverse of ``record_table`` (names and text written with escapes or U+FFFD excepted):
    each chunk's JSONL line is the one its record had.
    """
    import dataclasses
    from types import MappingProxyType

    from ragchunk.model import EMPTY_METADATA, Chunk

    names = [*_ORDER]
    if EMBEDDING in table.column_names and EMBEDDING in {f.name for f in dataclasses.fields(Chunk)}:
        names.append(EMBEDDING)
    columns = {name: table.column(name).to_pylist() for name in names}
    columns["headings"] = [tuple(h) for h in columns["headings"]]
    columns["metadata"] = [
        EMPTY_METADATA if text == "{}" else MappingProxyType(json.loads(text))
        for text in columns["metadata"]
    ]
    columns["boxes"] = [None if v is None else tuple(map(_box, v)) for v in columns["boxes"]]
    if EMBEDDING in columns:
        columns[EMBEDDING] = [None if v is None else tuple(v) for v in columns[EMBEDDING]]
    rows = zip(*columns.values(), strict=True)
    return [Chunk(**dict(zip(names, row, strict=True))) for row in rows]
