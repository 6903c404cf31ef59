"""``split --parents`` as a user runs it: records, --check, --table, stats, Parquet and view."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.cli.test_view import data_of
from tests.conftest import FIXTURES

runner = CliRunner()
WIDE = {"COLUMNS": "120"}
REPORT = FIXTURES / "docx" / "report.docx"
GUIDE = FIXTURES / "markdown" / "station-guide.md"


def split(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["split", *args])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def test_each_parent_comes_before_its_children_and_check_passes() -> None:
    result = runner.invoke(
        app, ["split", str(REPORT), "--parents", "800", "--size", "200", "--check"]
    )
    assert result.exit_code == 0, result.stderr
    assert "check: no violations in 1 input" in result.stderr
    records = [json.loads(line) for line in result.stdout.split("\n") if line]
    parent: dict[str, Any] | None = None
    for index, record in enumerate(records):
        assert record["index"] == index
        if "parent_id" not in record:
            assert record["metadata"]["kind"] == "parent"
            assert record["chars"] <= 800
            parent = record
            continue
        assert parent is not None
        assert record["parent_id"] == parent["id"]
        assert parent["start"] <= record["start"] < record["end"] <= parent["end"]
        assert record["chars"] <= 200
        assert "kind" not in record["metadata"]
    assert sum("parent_id" not in r for r in records) >= 2


def test_without_parents_records_have_no_parent_fields() -> None:
    records = split(str(REPORT), "--size", "200")
    assert all("parent_id" not in r and "kind" not in r["metadata"] for r in records)


def test_a_bad_parents_value_is_a_usage_error() -> None:
    result = runner.invoke(app, ["split", str(GUIDE), "--size", "300", "--parents", "200"])
    assert result.exit_code == 2
    assert "--parents size must be larger than the children's --size (got 200 <= 300)" in (
        result.stderr
    )


def test_the_table_shows_the_level_of_each_record() -> None:
    result = runner.invoke(
        app, ["split", str(REPORT), "--parents", "800", "--size", "200", "--table"], env=WIDE
    )
    assert result.exit_code == 0, result.stderr
    assert "level" in result.stdout
    assert "parent" in result.stdout
    assert "child" in result.stdout


def test_stats_count_parents_apart(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    args = ["split", str(REPORT), "--parents", "800", "--size", "200", "-o", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    parents = [r for r in records if "parent_id" not in r]
    result = runner.invoke(app, ["stats", str(out)], env=WIDE)
    assert result.exit_code == 0, result.stderr
    children = len(records) - len(parents)
    shown = " ".join(result.stdout.split())  # the title wraps at the table's width
    assert f"{children} chunks from 1 document(s) · strategy recursive · 3 parents" in shown
    assert len(parents) == 3
    assert "parent chars │ 3 │" in shown


def test_parquet_keeps_parent_ids(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet")
    out = tmp_path / "chunks.parquet"
    args = ["split", str(REPORT), "--parents", "800", "--size", "200", "-o", str(out)]
    assert runner.invoke(app, args).exit_code == 0
    table = pq.read_table(out)
    expected = [r.get("parent_id") for r in split(str(REPORT), "--parents", "800", "--size", "200")]
    assert table.column("parent_id").to_pylist() == expected


def test_view_shows_children_and_parents_side_by_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ragchunk.toml").write_text('size = 200\nparents = "800"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    target = tmp_path / "report.html"
    result = runner.invoke(app, ["view", str(REPORT), "-o", str(target)])
    assert result.exit_code == 0, result.stderr
    children, parents = data_of(target)["sides"]
    assert children["label"].endswith("· children")
    assert parents["label"] == "recursive · 800 chars · parents"
    assert all("parent_id" in r for r in children["records"])
    assert all(r["metadata"]["kind"] == "parent" for r in parents["records"])
