"""Chunking on Ray: ``split --engine ray`` and the library's pipelines, on a real cluster.

The cluster is ``ray start --head`` on 127.0.0.1 with 2 CPUs (tests/support/ray_cluster.py),
shared by the session. In-process runs join it as a driver (``ray_driver``); the CLI in a
subprocess joins it with ``--ray-address``. Every output is compared with a local run's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.integrations.ray import ChunkFile, ChunkFiles, chunk_files
from ragchunk.pipeline.chunks import compact_vector
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES, ROOT
from tests.data.make_bad import CORPUS
from tests.meaning import LOCAL
from tests.pending import EXCLUDE_PENDING
from tests.support.ray_cluster import RayCluster

pytestmark = pytest.mark.slow

runner = CliRunner()
TREE = [str(FIXTURES), *EXCLUDE_PENDING]


def jsonl_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def parquet_records(path: Path) -> list[dict[str, Any]]:
    """Return a Parquet file's rows as JSONL records: null columns left out, metadata decoded.

    Embeddings are float32 in Parquet; JSONL writes each as its shortest decimal.
    """
    import pyarrow.parquet as pq

    records = []
    for row in pq.read_table(path).to_pylist():
        record = {k: v for k, v in row.items() if v is not None}
        record["metadata"] = json.loads(row["metadata"])
        if "embedding" in record:
            record["embedding"] = list(compact_vector(record["embedding"]))
        records.append(record)
    return records


def by_document(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: (r["doc_id"], r["index"]))


def split(*args: str) -> Any:
    result = runner.invoke(app, ["split", *args])
    assert result.exit_code == 0, result.stderr
    return result


@pytest.mark.timeout(900)
@pytest.mark.usefixtures("ray_driver")
def test_split_on_ray_gives_the_records_of_a_local_run_for_every_strategy(tmp_path: Path) -> None:
    # One test for all strategies: one connection, so Ray's workers stay warm between runs.
    for strategy in LOCAL:  # every strategy that needs no endpoint
        outputs = {
            (engine, kind): tmp_path / strategy / f"{engine}.{kind}"
            for engine in ("local", "ray")
            for kind in ("jsonl", "parquet")
        }
        for (engine, _), out in outputs.items():
            # -j 1: worker processes forked from a process connected to Ray (this one) would
            # share its Ray client state and break it.
            result = split(*TREE, "-s", strategy, "--engine", engine, "-j", "1", "-o", str(out))
            assert result.stdout == ""
        local = jsonl_records(outputs["local", "jsonl"])
        assert len({r["doc_id"] for r in local}) > 20, strategy
        # The acceptance: the same ids and spans, in the same order once sorted by doc_id, index.
        ray = jsonl_records(outputs["ray", "jsonl"])
        assert by_document(ray) == by_document(local), strategy
        assert by_document(parquet_records(outputs["ray", "parquet"])) == by_document(local)
        # Ray's order is the local one: the files are the same, byte for byte.
        for kind in ("jsonl", "parquet"):
            ray_bytes = outputs["ray", kind].read_bytes()
            assert ray_bytes == outputs["local", kind].read_bytes(), (strategy, kind)


def ragchunk(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ragchunk", *args],
        input=stdin,
        capture_output=True,
        check=False,
        timeout=300,
        cwd=ROOT,
        env=os.environ,
    )


def test_a_corrupt_file_among_good_ones_fails_alone_on_ray_as_locally(
    tmp_path: Path, ray_cluster: RayCluster
) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURES / "markdown", docs / "markdown")
    shutil.copytree(FIXTURES / "code", docs / "code")
    (docs / "pdf").mkdir()
    (docs / "pdf" / "cut.pdf").write_bytes(CORPUS["pdf-truncated"].build())
    (docs / "pdf" / "empty.pdf").write_bytes(b"")
    outputs = {}
    for engine in ("local", "ray"):
        out = tmp_path / f"{engine}.jsonl"
        engine_args = ["--engine", "ray", "--ray-address", ray_cluster.address]
        run = ragchunk(
            "split", str(docs), "-o", str(out), *(engine_args if engine == "ray" else [])
        )
        outputs[engine] = (run.returncode, run.stdout, run.stderr.decode(), out.read_bytes())
    assert outputs["ray"] == outputs["local"]
    code, stdout, stderr, written = outputs["ray"]
    assert (code, stdout) == (1, b"")
    assert stderr.startswith(
        f"error: {docs / 'pdf' / 'cut.pdf'}: corrupt or truncated PDF: Stream has ended "
        f"unexpectedly\nerror: {docs / 'pdf' / 'empty.pdf'}: empty file, not a PDF\n"
    )
    assert "2 of 18 inputs failed" in stderr
    sources = {json.loads(line)["source"] for line in written.splitlines()}
    assert len(sources) == 16
    assert not any(source.endswith(".pdf") for source in sources)


def test_standard_input_is_chunked_on_ray_too(ray_cluster: RayCluster) -> None:
    text = (FIXTURES / "markdown" / "station-guide.md").read_bytes()
    local = ragchunk("split", "-", "--size", "300", stdin=text)
    ray = ragchunk(
        "split",
        "-",
        "--size",
        "300",
        "--engine",
        "ray",
        "--ray-address",
        ray_cluster.address,
        stdin=text,
    )
    assert (ray.returncode, ray.stderr) == (0, b"")
    assert ray.stdout == local.stdout
    assert json.loads(ray.stdout.splitlines()[0])["doc_id"] == "-"


@pytest.mark.localhost
def test_an_address_where_no_cluster_answers_is_one_line_and_exit_2() -> None:
    from tests.support.processes import free_port

    address = f"127.0.0.1:{free_port()}"
    run = ragchunk("split", str(FIXTURES / "markdown"), "--engine", "ray", "--ray-address", address)
    assert run.returncode == 2
    assert run.stderr.decode() == (
        f"Error: --ray-address {address}: cannot join ({os.strerror(111)})\n"
    )
    assert run.stdout == b""


def local_records(paths: list[Path], root: Path) -> list[dict[str, Any]]:
    """Return the records a local run gives for ``paths`` (doc_id relative to ``root``)."""
    from ragchunk.sinks.parquet import record_table

    plan = make_plan(shortcuts({"strategy": "markdown", "size": 300}))
    chunks = [
        c for p in paths for c in process(str(p), p.relative_to(root).as_posix(), plan).chunks
    ]
    return by_document(record_table(chunks).to_pylist())


def test_a_users_pipeline_reads_binary_files_and_writes_parquet(
    tmp_path: Path, ray_driver: ModuleType
) -> None:
    import ray.data

    duckdb = pytest.importorskip("duckdb")
    docs = tmp_path / "docs"
    shutil.copytree(FIXTURES / "markdown", docs)
    shutil.copy(min((FIXTURES / "text").iterdir()), docs)
    expected = local_records(sorted(docs.iterdir()), docs)

    files = ray.data.read_binary_files(str(docs), include_paths=True)
    chunks = chunk_files(
        files, make_plan(shortcuts({"strategy": "markdown", "size": 300})), root=str(docs)
    )
    assert by_document(chunks.take_all()) == expected

    chunks.write_parquet(str(tmp_path / "chunks"))
    count, documents = duckdb.execute(
        "SELECT count(*), count(DISTINCT doc_id) FROM read_parquet(?)",
        [f"{tmp_path / 'chunks'}/*.parquet"],
    ).fetchone()
    assert (count, documents) == (len(expected), 3)
    assert ray_driver.is_initialized()  # a session of the caller's stays as it was


@pytest.mark.usefixtures("ray_driver")
def test_rows_of_paths_and_uris_go_through_flat_map(tmp_path: Path) -> None:
    import ray.data

    docs = tmp_path / "docs"
    shutil.copytree(FIXTURES / "markdown", docs)
    paths = sorted(docs.iterdir())
    # A path under root, and a URI (read through pyarrow's filesystems) with its own doc_id.
    rows = [{"path": str(paths[0])}, {"path": paths[1].as_uri(), "doc_id": paths[1].name}]
    chunker = ChunkFile(make_plan(shortcuts({"strategy": "markdown", "size": 300})), root=str(docs))
    got = ray.data.from_items(rows).flat_map(chunker).take_all()
    expected = local_records(paths, docs)
    for record in expected:
        if record["doc_id"] == paths[1].name:
            record["source"] = paths[1].as_uri()
    assert by_document(got) == expected


def test_a_file_that_cannot_be_chunked_raises_or_is_skipped(
    tmp_path: Path, ray_driver: ModuleType
) -> None:
    import ray.data

    ray = ray_driver
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "good.md").write_text("# Good\n\nFine text.\n", encoding="utf-8")
    (docs / "bad.pdf").write_bytes(b"")
    plan = make_plan(shortcuts({"strategy": "markdown", "size": 300}))
    files = ray.data.read_binary_files(str(docs), include_paths=True)
    skipped = files.map_batches(
        ChunkFiles(plan, root=str(docs), on_error="skip"), batch_format="pyarrow"
    ).take_all()
    assert by_document(skipped) == local_records([docs / "good.md"], docs)
    # Ray gives the worker's InputError as the cause of its own task error, message included.
    message = re.escape(f"InputError: {docs / 'bad.pdf'}: empty file, not a PDF")
    with pytest.raises(ray.exceptions.RayTaskError, match=message):
        chunk_files(files, plan, root=str(docs)).take_all()
