"""``ragchunk view`` on an mbox and on a tree holding one (issue 31, finding 8).

An mbox is a container: each message is a page of its own, as a directory's inputs are, with
an index; a directory run writes every page it can and its index, and nothing prints a
traceback.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
MBOX = FIXTURES / "email" / "harbour-list.mbox"
DATA = re.compile(r'<script type="application/json" id="ragchunk-data">(.*?)</script>', re.DOTALL)


def data_of(page: Path) -> dict[str, Any]:
    (found,) = DATA.findall(page.read_text(encoding="utf-8"))
    value: dict[str, Any] = json.loads(found)
    return value


def split_texts(path: Path) -> dict[str, list[str]]:
    result = runner.invoke(app, ["split", str(path)])
    assert result.exit_code == 0, result.stderr
    texts: dict[str, list[str]] = {}
    for line in result.stdout.split("\n"):
        if line:
            record = json.loads(line)
            texts.setdefault(record["doc_id"].rpartition("#")[2], []).append(record["text"])
    return texts


def test_an_mbox_gives_a_page_per_message_and_an_index(tmp_path: Path) -> None:
    out = tmp_path / "list"
    result = runner.invoke(app, ["view", str(MBOX), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    assert result.stdout == f"{out / 'index.html'}\n"
    pages = sorted(p.name for p in out.iterdir())
    assert pages == [f"harbour-list.mbox#{n}.html" for n in (1, 2, 3, 4)] + ["index.html"]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'href="harbour-list.mbox%232.html"' in index
    expected = split_texts(MBOX)
    for n in (1, 2, 3, 4):
        data = data_of(out / f"harbour-list.mbox#{n}.html")
        (side,) = data["sides"]
        texts = [data["text"][r["start"] : r["end"]] for r in side["records"]]
        assert texts == expected[str(n)]
        assert {str(r["doc_id"]).rpartition("#")[2] for r in side["records"]} == {str(n)}


def test_a_directory_with_an_mbox_and_a_broken_file_writes_every_page(tmp_path: Path) -> None:
    tree = tmp_path / "mail"
    tree.mkdir()
    shutil.copy(MBOX, tree / "list.mbox")
    shutil.copy(FIXTURES / "email" / "survey-plan.eml", tree / "plan.eml")
    (tree / "broken.pdf").write_bytes(b"%PDF-1.7\nnot a pdf at all\n")
    out = tmp_path / "site"
    result = runner.invoke(app, ["view", str(tree), "-o", str(out)])
    assert result.exit_code == 1  # one input failed: said, and the run went on
    assert "Traceback" not in result.output
    assert "error: " in result.stderr
    assert "broken.pdf" in result.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names == ["index.html", *(f"list.mbox#{n}.html" for n in (1, 2, 3, 4)), "plan.eml.html"]
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "broken.pdf" in index
    assert "plan.eml.html" in index


def test_an_mbox_on_standard_input_is_drawn_too(tmp_path: Path) -> None:
    out = tmp_path / "stdin"
    result = runner.invoke(app, ["view", "-", "-o", str(out)], input=MBOX.read_bytes())
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir())[:1] == ["-#1.html"]


def test_a_broken_message_of_an_mbox_is_an_error_and_the_others_are_drawn(tmp_path: Path) -> None:
    from tests.data.make_bad import mbox_broken_message

    mbox = tmp_path / "list.mbox"
    mbox.write_bytes(mbox_broken_message())
    out = tmp_path / "site"
    result = runner.invoke(app, ["view", str(mbox), "-o", str(out)])
    assert result.exit_code == 1, result.output  # the broken message failed, alone
    assert "Traceback" not in result.output
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "list.mbox#2" in error
    pages = sorted(p.name for p in out.iterdir())
    assert "list.mbox#1.html" in pages
    assert "list.mbox#3.html" in pages
    assert "list.mbox#2.html" not in pages
    assert "The third." in data_of(out / "list.mbox#3.html")["text"]
