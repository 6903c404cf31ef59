"""Standard input is sniffed like a file without an extension (issue 31, finding 8).

The README's format table says HTML, e-mail, an mbox and PDF are found by their first bytes;
that holds for `-` too: `cat page.html | ragchunk split -` reads HTML, not its markup as text.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES, ROOT

runner = CliRunner()


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.mark.parametrize(
    ("path", "fmt"),
    [
        ("html/harbour-news.html", "html"),
        ("email/survey-plan.eml", "email"),
        ("email/harbour-list.mbox", "mbox"),
        ("pdf/report-outline.pdf", "pdf"),
        ("text/field-notes.txt", "text"),
    ],
)
def test_stdin_is_parsed_as_its_content_says(path: str, fmt: str) -> None:
    data = (FIXTURES / path).read_bytes()
    piped = runner.invoke(app, ["split", "-"], input=data)
    named = runner.invoke(app, ["split", str(FIXTURES / path)])
    assert piped.exit_code == 0, piped.output
    got, want = records(piped.stdout), records(named.stdout)
    assert [r["text"] for r in got] == [r["text"] for r in want]
    assert all("<" not in str(r["text"])[:1] for r in got)  # no markup read as text
    if fmt == "mbox":
        assert [r["doc_id"] for r in got][:1] == ["-#1"]
    else:
        assert {r["doc_id"] for r in got} == {"-"}


def test_piped_html_reads_as_html(tmp_path: Path) -> None:
    page = FIXTURES / "html" / "harbour-news.html"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), "/work/meta"])}
    with page.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "ragchunk", "split", "-"],
            stdin=stdin,
            capture_output=True,
            cwd=tmp_path,
            env=env,
            check=False,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr.decode()
    texts = [r["text"] for r in records(done.stdout.decode())]
    assert texts
    assert not any("<p" in t or "<h1" in t or "</" in t for t in texts)
