"""The sink table: every sink loads by name, ``-o`` chooses by suffix or URL, the run routes.

This module is also a sink (``SINK`` below: a store reached by ``memo://NAME`` URLs, and a
sink of rendered bytes), registered in the tests that use it with one table line.
"""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from typer.testing import CliRunner

import ragchunk
from ragchunk import sinks
from ragchunk.cli import app
from ragchunk.errors import OptionError
from ragchunk.pipeline.scopes import make_plans
from ragchunk.runs.batch import prepare
from ragchunk.runs.config import Config
from ragchunk.runs.dedupe import DedupeOptions
from ragchunk.runs.loop import run_batch
from ragchunk.settings import scope
from ragchunk.sinks import SinkLine
from ragchunk.sinks._spec import SinkSpec
from ragchunk.sinks.jsonl import encode

if TYPE_CHECKING:
    from ragchunk.model import Chunk
    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

PARAGRAPH = "A sentence about retrieval. Another about chunks, overlap and size.\n\n"
STORES: dict[str, list[tuple[str, str]]] = {}
"""What the ``memo`` store holds, by URL: ``(doc_id, chunk id)`` in write order."""
runner = CliRunner()


class MemoStore:
    def __init__(self, url: str) -> None:
        self._rows = STORES.setdefault(url, [])

    def write(self, result: FileResult) -> None:
        self._rows.extend((result.doc_id, chunk.id) for chunk in result.chunks)


@contextlib.contextmanager
def open_memo(to: Destination) -> Iterator[MemoStore]:
    assert isinstance(to, str)
    yield MemoStore(to)


SINK = SinkSpec(name="memo", summary="A store in memory.", open=open_memo, files=False)


def ids(chunks: Sequence[Chunk]) -> bytes:
    """A renderer other than JSONL's: each chunk's id on a line."""
    return b"".join(f"{chunk.id}\n".encode() for chunk in chunks)


class IdLines:
    def __init__(self, stream: io.StringIO) -> None:
        self._stream = stream

    def write(self, result: FileResult) -> None:
        assert not result.chunks or result.rendered is not None
        self._stream.write(b"".join(result.rendered or ()).decode())


@contextlib.contextmanager
def open_ids(to: Destination) -> Iterator[IdLines]:
    assert isinstance(to, io.StringIO)
    yield IdLines(to)


ID_LINES = SinkSpec(name="ids", summary="Chunk ids.", open=open_ids, render=ids, files=False)


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    for name, copies in (("a.txt", 3), ("b.txt", 3), ("c.txt", 2)):
        (tmp_path / name).write_text(PARAGRAPH * copies, encoding="utf-8")
    return tmp_path


def test_every_sink_loads_under_its_name() -> None:
    assert sinks.names() == ("jsonl", "lancedb", "milvus", "parquet", "qdrant", "table")
    for name in sinks.names():
        assert sinks.get(name).name == name
    assert sinks.get("jsonl").render is encode  # bytes from the workers
    assert sinks.get("parquet").render is None  # chunks
    assert not sinks.get("parquet").stream
    assert not sinks.get("table").files
    assert sinks.output_formats() == ("jsonl", "parquet", "qdrant", "lancedb", "milvus")
    assert sinks.file_suffix("parquet") == ".parquet"
    with pytest.raises(OptionError, match=r"'jsnl' is unknown .*did you mean 'jsonl'"):
        sinks.get("jsnl")


def test_the_table_sink_is_not_an_output_format() -> None:
    result = runner.invoke(app, ["split", "-", "--output-format", "table"], input="text")
    assert result.exit_code == 2
    message = "--output-format must be one of jsonl, parquet, qdrant, lancedb, milvus (got 'table')"
    assert message in result.stderr


def test_a_url_chooses_its_store_by_scheme(monkeypatch: pytest.MonkeyPatch) -> None:
    choices = r"\(choose from lancedb://, milvus://, qdrant://\)"
    with pytest.raises(OptionError, match=rf"memo://box: no sink writes memo:// {choices}"):
        sinks.choose("memo://box", None)
    monkeypatch.setitem(sinks.SINKS, "memo", SinkLine(__name__, schemes=("memo",)))
    assert sinks.choose("memo://box", None) == "memo"
    assert sinks.choose("MEMO://box", None) == "memo"
    assert "memo" in sinks.output_formats()
    with pytest.raises(OptionError, match=r"jsonl does not fit -o memo://box"):
        sinks.choose("memo://box", "jsonl")
    with pytest.raises(OptionError, match=r"memo does not fit -o box\.jsonl"):
        sinks.choose("box.jsonl", "memo")


def test_a_store_gets_every_input_in_order_through_the_library(
    docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sinks.SINKS, "memo", SinkLine(__name__, schemes=("memo",)))
    url = f"memo://{docs}"
    settings = scope({"size": 80, "jobs": 2, "root": str(docs)})
    tally = ragchunk.run([str(docs)], output=url, settings=settings)
    stored = STORES.pop(url)
    assert [doc_id for doc_id, _ in stored] == ["a.txt"] * 3 + ["b.txt"] * 3 + ["c.txt"] * 2
    assert (tally.chunked, tally.chunks) == (3, len(stored))
    assert tally.batch.output_url == url
    assert tally.batch.output_file is None
    assert tally.batch.output_dir is None


def test_a_bytes_sink_gets_its_own_rendering_with_dedupe_on_workers(docs: Path) -> None:
    """--dedupe reads only JSONL: with another renderer the chunks come back, rendered here."""
    stream = io.StringIO()
    settings = scope({"size": 80, "jobs": 2, "root": str(docs)})
    kept: list[str] = []
    tally = ragchunk.run(
        [str(docs)],
        output=None,
        settings=settings,
        dedupe=DedupeOptions(method="exact"),
        on_result=lambda result: kept.extend(chunk.id for chunk in result.chunks),
    )
    assert tally.duplicates > 0
    batch = prepare(
        [str(docs)],
        make_plans(Config(), settings),
        settings.run,
        output=None,
        dedupe=DedupeOptions(method="exact"),
    )
    run_batch(batch, extra=[(ID_LINES, stream)])
    assert stream.getvalue().splitlines() == kept


def test_a_table_beside_a_file_leaves_the_file_as_jsonl_alone_makes_it(
    docs: Path, tmp_path: Path
) -> None:
    alone, beside = tmp_path / "alone.jsonl", tmp_path / "beside.jsonl"
    args = ["split", str(docs / "a.txt"), "--size", "80", "--jobs", "2"]
    assert runner.invoke(app, [*args, "-o", str(alone)]).exit_code == 0
    result = runner.invoke(app, [*args, "-o", str(beside), "--table"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "a.txt · 3 chunks" in result.stdout
    assert beside.read_bytes() == alone.read_bytes()


def test_a_run_cut_short_leaves_no_shared_file(docs: Path, tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"

    def stop(_result: FileResult) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ragchunk.run([str(docs)], output=str(out), on_result=stop)
    assert not out.exists()
    assert not list(tmp_path.glob(".all.jsonl.*"))
