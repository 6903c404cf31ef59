"""The Parquet writer: the documented schema, rows that read back as the JSONL records, readers.

pandas and DuckDB read the files as a user would; the round trip is compared record by record
with the JSONL writer's output for the same chunks.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from ragchunk.api import chunk_file, chunk_text
from ragchunk.errors import UsageError
from ragchunk.model import Chunk, Document
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.sinks import jsonl
from tests.conftest import FIXTURES

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
parquet = pytest.importorskip("ragchunk.sinks.parquet")

DOCUMENTED = {
    "id": ("string", False),
    "doc_id": ("string", False),
    "source": ("string", False),
    "index": ("int64", False),
    "text": ("string", False),
    "start": ("int64", False),
    "end": ("int64", False),
    "page_start": ("int64", True),
    "page_end": ("int64", True),
    "timestamp_start": ("double", True),
    "timestamp_end": ("double", True),
    "line_start": ("int64", True),
    "line_end": ("int64", True),
    "headings": ("list<element: string>", False),
    "strategy": ("string", False),
    "chars": ("int64", False),
    "tokens": ("int64", True),
    "metadata": ("string", False),
    "boxes": (
        "list<element: struct<page: int32 not null, x0: double not null, y0: double not null, "
        "x1: double not null, y1: double not null> not null>",
        True,
    ),
    "parent_id": ("string", True),
    "context": ("string", True),
    "doc_hash": ("string", True),
    "hash": ("string", True),
}
"""The schema as the module docstring and docs/output.md document it."""


def as_record(row: dict[str, Any]) -> dict[str, Any]:
    """Return a Parquet row as its JSONL record: null columns left out, metadata decoded."""
    record = {name: value for name, value in row.items() if value is not None}
    record["metadata"] = json.loads(row["metadata"])
    if row["boxes"] is not None:
        record["boxes"] = [dict(box) for box in row["boxes"]]
    return record


def jsonl_records(chunks: list[Chunk]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in jsonl.lines(chunks).splitlines()]


def varied_chunks() -> list[Chunk]:
    """Chunks with pages, timestamps, lines, headings, metadata, tokens, contexts and hashes."""
    pdf = chunk_file(str(FIXTURES / "pdf" / "report-outline.pdf"), size=400)
    talk = chunk_file(str(FIXTURES / "transcripts" / "talk.vtt"), size=300)
    markdown = chunk_file(str(FIXTURES / "markdown" / "station-guide.md"), strategy="markdown")
    code = chunk_file(str(FIXTURES / "code" / "inventory.py"), strategy="code", size=300)
    family = chunk_file(str(FIXTURES / "docx" / "report.docx"), size=200, parents="800")
    plan = make_plan(
        shortcuts(
            {
                "size": 200,
                "overlap": 20,
                "count_tokens": True,
                "hashes": True,
                "contextualize": True,
            }
        )
    )
    from ragchunk.pipeline.engine import process

    rich = process(str(FIXTURES / "markdown" / "git-readme.md"), "git-readme.md", plan).chunks
    return [*pdf, *talk, *markdown, *code, *family, *rich]


def test_the_schema_is_the_documented_one() -> None:
    written = parquet.schema()
    assert {f.name: (str(f.type), f.nullable) for f in written} == DOCUMENTED
    assert written.names == list(DOCUMENTED)
    assert written.metadata == {b"ragchunk.schema": b"1"}
    vectors = parquet.schema(embedding_size=3).field("embedding")
    assert (str(vectors.type), vectors.nullable) == ("fixed_size_list<element: float>[3]", True)


def test_every_chunk_field_has_a_column() -> None:
    # A field added to Chunk needs its column here (and in the schema of docs/output.md) too.
    fields = {f.name for f in dataclasses.fields(Chunk)}
    assert fields - set(DOCUMENTED) <= {"embedding"}


def test_rows_read_back_as_the_jsonl_records(tmp_path: Path) -> None:
    chunks = varied_chunks()
    assert {c.page_start is None for c in chunks} == {True, False}
    assert {c.boxes is None for c in chunks} == {True, False}
    for name in ("context", "hash", "tokens", "metadata"):
        assert any(getattr(c, name) for c in chunks), name
    path = tmp_path / "chunks.parquet"
    parquet.write_parquet(path, chunks)
    table = pq.read_table(path)
    assert table.schema.equals(parquet.schema())
    assert [as_record(row) for row in table.to_pylist()] == jsonl_records(chunks)
    assert jsonl.lines(parquet.chunks_from_table(table)) == jsonl.lines(chunks)


def test_duckdb_and_pandas_read_the_file(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    pd = pytest.importorskip("pandas")
    chunks = varied_chunks()
    path = tmp_path / "chunks.parquet"
    parquet.write_parquet(path, chunks)
    connection = duckdb.connect()
    rows = connection.execute(
        "SELECT doc_id, index, start, \"end\", len(headings), metadata->>'$.language', tokens "
        "FROM read_parquet(?) ORDER BY doc_id, index",
        [str(path)],
    ).fetchall()
    expected = sorted(
        (c.doc_id, c.index, c.start, c.end, len(c.headings), c.metadata.get("language"), c.tokens)
        for c in chunks
    )
    assert rows == expected
    described = connection.execute("DESCRIBE SELECT * FROM read_parquet(?)", [str(path)])
    types = {row[0]: row[1] for row in described.fetchall()}
    assert (types["headings"], types["metadata"]) == ("VARCHAR[]", "VARCHAR")
    assert (types["start"], types["page_start"]) == ("BIGINT", "BIGINT")
    frame = pd.read_parquet(path)
    assert list(frame.columns) == list(DOCUMENTED)
    assert frame["text"].tolist() == [c.text for c in chunks]
    assert [list(h) for h in frame["headings"]] == [list(c.headings) for c in chunks]


def write_then_fail(path: Path, chunks: list[Chunk], error: BaseException) -> None:
    with parquet.parquet_writer(path) as sink:
        sink.write_chunks(chunks)
        sink.write_chunks(chunks)
        raise error


def test_an_interrupted_write_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 10)  # row groups already in the file
    path = tmp_path / "chunks.parquet"
    path.write_bytes(b"old")
    chunks = chunk_text("A sentence. " * 400, size=100)
    assert len(chunks) > 10
    for error in (KeyboardInterrupt(), OSError("disk full")):
        with pytest.raises(type(error)):
            write_then_fail(path, chunks, error)
        assert [p.name for p in tmp_path.iterdir()] == ["chunks.parquet"]
        assert path.read_bytes() == b"old"


def test_row_groups_gather_small_inputs_and_cut_large_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 50)
    small = [chunk_text("Words here. " * 30, size=40, doc_id=f"s{k}") for k in range(20)]
    large = chunk_text("More words. " * 1000, size=40, doc_id="large")
    path = tmp_path / "chunks.parquet"
    with parquet.parquet_writer(path) as sink:
        for chunks in [*small, large]:
            sink.write_chunks(chunks)
    total = sum(map(len, small)) + len(large)
    metadata = pq.ParquetFile(path).metadata
    sizes = [metadata.row_group(k).num_rows for k in range(metadata.num_row_groups)]
    assert sum(sizes) == total == sink.rows_written
    assert max(sizes) <= 50
    assert len(sizes) <= -(-total // 50) + 2  # small inputs share row groups


def test_row_groups_are_bounded_in_bytes_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parquet, "ROW_GROUP_BYTES", 20_000)
    chunks = chunk_text("x" * 100_000, size=1000)  # 100 chunks of ~1 KB of text each
    path = tmp_path / "chunks.parquet"
    parquet.write_parquet(path, chunks)
    metadata = pq.ParquetFile(path).metadata
    assert metadata.num_row_groups >= 5
    assert metadata.num_rows == len(chunks)


def test_an_empty_run_writes_a_valid_file_with_the_schema(tmp_path: Path) -> None:
    path = tmp_path / "chunks.parquet"
    parquet.write_parquet(path, [])
    table = pq.read_table(path)
    assert (table.num_rows, table.schema.equals(parquet.schema())) == (0, True)


def embedded(chunks: list[Chunk], vectors: list[tuple[float, ...] | None]) -> list[Chunk]:
    return [dataclasses.replace(c, embedding=v) for c, v in zip(chunks, vectors, strict=True)]


def test_embeddings_are_fixed_size_float32_lists(tmp_path: Path) -> None:
    chunks = chunk_text("One sentence. Two sentences. " * 20, size=60)
    vectors = [(0.5, -0.25, float(k)) if k % 3 else None for k in range(len(chunks))]
    path = tmp_path / "chunks.parquet"
    with parquet.parquet_writer(path) as sink:
        sink.write_chunks(embedded(chunks, vectors))
        sink.write_chunks(chunk_text("Later, without vectors.", doc_id="later"))
    table = pq.read_table(path)
    assert str(table.schema.field("embedding").type) == "fixed_size_list<element: float>[3]"
    read = table.column("embedding").to_pylist()
    assert read == [None if v is None else list(v) for v in vectors] + [None]


def test_embeddings_after_rows_without_them_or_of_another_size_are_refused() -> None:
    chunks = chunk_text("One sentence. Two sentences. " * 20, size=60)
    with pytest.raises(UsageError, match="embeddings of different sizes"):
        parquet.record_table(embedded(chunks[:2], [(1.0,), (1.0, 2.0)]))
    first = parquet.record_table(chunks)
    later = parquet.record_table(embedded(chunks, [(1.0, 2.0)] * len(chunks)))
    with pytest.raises(UsageError, match="cannot follow records without them"):
        parquet.conform(later, first.schema, name="out.parquet")
    other = parquet.record_table(embedded(chunks, [(1.0,)] * len(chunks)))
    with pytest.raises(UsageError, match="embeddings of size 1 cannot join embeddings of size 2"):
        parquet.conform(other, later.schema, name="out.parquet")
    with pytest.raises(UsageError, match="not a table of chunk records"):
        parquet.conform(pa.table({"x": [1]}), first.schema, name="out.parquet")


def test_names_and_text_that_utf8_cannot_hold_are_written_readably(tmp_path: Path) -> None:
    plan = make_plan(shortcuts({"size": 50}))
    doc = Document(text="caf\udce9 au lait. " * 5, source="caf\udce9.txt", doc_id="caf\udce9.txt")
    chunks = chunk_document(doc, plan.recipe)
    path = tmp_path / "chunks.parquet"
    parquet.write_parquet(path, chunks)
    table = pq.read_table(path)
    assert set(table.column("doc_id").to_pylist()) == {"caf\\udce9.txt"}
    texts = table.column("text").to_pylist()
    assert texts == [c.text.replace("\udce9", "\ufffd") for c in chunks]
    assert [len(t) for t in texts] == [c.end - c.start for c in chunks]
