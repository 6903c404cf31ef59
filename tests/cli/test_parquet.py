"""Parquet output and the engine flags through the CLI (local runs; Ray runs: tests/integration)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.integrations import ray as ray_integration
from ragchunk.runs import ray_jobs
from tests.conftest import FIXTURES
from tests.pending import EXCLUDE_PENDING

pq = pytest.importorskip("pyarrow.parquet")

runner = CliRunner()
TREE = [str(FIXTURES), *EXCLUDE_PENDING]


def parquet_records(path: Path) -> list[dict[str, Any]]:
    """Return a Parquet file's rows as JSONL records: null columns left out, metadata decoded."""
    rows = pq.read_table(path).to_pylist()
    return [
        {k: v for k, v in row.items() if v is not None} | {"metadata": json.loads(row["metadata"])}
        for row in rows
    ]


def jsonl_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.parametrize("options", [[], ["-s", "markdown", "--count-tokens", "--hashes"]])
def test_a_parquet_file_holds_the_records_of_the_jsonl_row_by_row(
    tmp_path: Path, options: list[str]
) -> None:
    jsonl, parquet = tmp_path / "chunks.jsonl", tmp_path / "chunks.parquet"
    for out in (jsonl, parquet):
        result = runner.invoke(app, ["split", *TREE, *options, "-o", str(out), "-q"])
        assert result.exit_code == 0, result.stderr
        assert result.stdout == ""
    expected = jsonl_records(jsonl)
    assert len({r["doc_id"] for r in expected}) > 20
    assert parquet_records(parquet) == expected


def test_a_directory_of_parquet_files_mirrors_the_tree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    docs = FIXTURES / "markdown"
    args = ["split", str(docs), "-o", f"{out}/", "--output-format", "parquet", "--root", str(docs)]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{p.name}.parquet" for p in docs.iterdir())
    single = runner.invoke(app, ["split", str(docs / "git-readme.md")])
    assert single.exit_code == 0
    rows = parquet_records(out / "git-readme.md.parquet")
    assert [r["text"] for r in rows] == [json.loads(x)["text"] for x in single.stdout.splitlines()]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--output-format", "parquet"], "--output-format parquet needs -o FILE or -o DIR/"),
        (["-o", "x.jsonl", "--output-format", "parquet"], "--output-format parquet does not fit"),
        (
            ["--output-format", "csv"],
            "--output-format must be one of jsonl, parquet, qdrant, lancedb, milvus (got 'csv')",
        ),
        (["--engine", "spark"], "--engine must be one of local, ray (got 'spark')"),
        (["--ray-address", "auto"], "--ray-address needs --engine ray"),
    ],
)
def test_output_and_engine_flags_that_do_not_fit_exit_2(
    tmp_path: Path, args: list[str], message: str
) -> None:
    result = runner.invoke(app, ["split", str(FIXTURES / "markdown"), *args])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {message}")
    assert result.stdout == ""
    assert list(tmp_path.iterdir()) == []


def test_the_ray_engine_without_ray_installed_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with monkeypatch.context() as patched:
        patched.setattr("importlib.util.find_spec", lambda _name: None)
        message = ray_integration.missing_ray()
    assert message == "--engine ray needs Ray Data: pip install 'ragchunk[ray]'"
    monkeypatch.setattr(ray_jobs, "missing_ray", lambda: message)
    result = runner.invoke(app, ["split", str(FIXTURES / "markdown"), "--engine", "ray"])
    assert result.exit_code == 2
    assert result.stderr == f"Error: {message}\n"


def test_parquet_without_pyarrow_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dataclasses

    from ragchunk.sinks import parquet

    with monkeypatch.context() as patched:
        patched.setattr("importlib.util.find_spec", lambda _name: None)
        message = parquet.missing_pyarrow()
    assert message == "Parquet output needs pyarrow: pip install 'ragchunk[parquet]'"
    assert parquet.SINK.missing is parquet.missing_pyarrow  # the sink says what it needs
    monkeypatch.setattr(parquet, "SINK", dataclasses.replace(parquet.SINK, missing=lambda: message))
    out = tmp_path / "chunks.parquet"
    result = runner.invoke(app, ["split", str(FIXTURES / "markdown"), "-o", str(out)])
    assert result.exit_code == 2
    assert result.stderr == f"Error: {message}\n"
    assert not out.exists()
