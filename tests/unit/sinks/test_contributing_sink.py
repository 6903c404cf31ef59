"""CONTRIBUTING.md's worked example: an output sink added by one module and one table line.

The example's code block is taken from CONTRIBUTING.md as it stands, saved as a module,
registered with the one line the guide gives, and used end to end: through ``ragchunk split``
(chosen by ``-o``'s suffix, by ``--output-format`` to standard output and under ``-o DIR/``,
with several worker processes) and through the library's ``ragchunk.run``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ragchunk
from ragchunk import sinks
from ragchunk.cli import app
from ragchunk.settings import scope
from ragchunk.sinks import SinkLine
from tests.conftest import FIXTURES, ROOT

MODULE = "contributing_spans"
DOCS = FIXTURES / "markdown"
TABLE_LINE = '"spans": SinkLine("ragchunk.sinks.spans", (".csv",)),'
runner = CliRunner()


def guide() -> str:
    return (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def example_code() -> str:
    blocks = re.findall(r"```python\n(.*?)```", guide(), re.DOTALL)
    (block,) = [b for b in blocks if 'name="spans"' in b]
    return block


@pytest.fixture(autouse=True)
def spans_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Save the example as a module and add its one line (as the guide gives it) to the table."""
    assert TABLE_LINE in guide()
    (tmp_path / f"{MODULE}.py").write_text(example_code(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sinks.SINKS, "spans", SinkLine(MODULE, (".csv",)))


def jsonl_spans(*args: str) -> list[list[str]]:
    """Return ``[id, start, end]`` of each record that ``split`` writes as JSONL."""
    result = runner.invoke(app, ["split", *args])
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    return [[r["id"], str(r["start"]), str(r["end"])] for r in records]


def rows(text: str) -> list[list[str]]:
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == ["id", "start", "end"]
    return table[1:]


def test_split_writes_the_sink_that_the_suffix_chooses(tmp_path: Path) -> None:
    expected = jsonl_spans(str(DOCS), "--size", "300")
    out = tmp_path / "spans.csv"
    result = runner.invoke(app, ["split", str(DOCS), "--size", "300", "-o", str(out)])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert rows(out.read_text(encoding="utf-8")) == expected
    assert len(expected) > 5


def test_split_writes_it_to_stdout_and_per_input_with_output_format(tmp_path: Path) -> None:
    expected = jsonl_spans(str(DOCS), "--size", "300")
    result = runner.invoke(app, ["split", str(DOCS), "--size", "300", "--output-format", "spans"])
    assert result.exit_code == 0, result.stderr
    assert rows(result.stdout) == expected
    out = tmp_path / "out"
    args = ["split", str(DOCS), "--size", "300", "--jobs", "2", "--output-format", "spans"]
    result = runner.invoke(app, [*args, "-o", f"{out}/"])
    assert result.exit_code == 0, result.stderr
    files = sorted(out.rglob("*.csv"))
    assert [p.name for p in files] == ["git-readme.md.csv", "station-guide.md.csv"]
    assert [row for p in files for row in rows(p.read_text(encoding="utf-8"))] == expected


def test_a_suffix_and_a_format_that_disagree_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "spans.csv"
    result = runner.invoke(app, ["split", str(DOCS), "-o", str(out), "--output-format", "jsonl"])
    assert result.exit_code == 2
    assert result.stderr == f"Error: --output-format jsonl does not fit -o {out}\n"
    assert sinks.output_formats() == ("jsonl", "parquet", "qdrant", "lancedb", "milvus", "spans")


def test_the_library_runs_a_batch_into_the_sink(tmp_path: Path) -> None:
    expected = jsonl_spans(str(DOCS), "--size", "300")
    out = tmp_path / "lib.csv"
    settings = scope({"strategy": "recursive", "size": 300, "jobs": 2})
    tally = ragchunk.run([str(DOCS)], output=str(out), settings=settings)
    assert rows(out.read_text(encoding="utf-8")) == expected
    assert (tally.done, tally.chunked, tally.chunks, tally.failures) == (2, 2, len(expected), [])
    stream = io.StringIO()
    seen: list[str] = []
    ragchunk.run(
        [str(DOCS)],
        output=stream,
        output_format="spans",
        settings=settings,
        on_result=lambda result: seen.append(Path(result.doc_id).name),
    )
    assert rows(stream.getvalue()) == expected
    assert seen == ["git-readme.md", "station-guide.md"]
