"""ragchunk view: where pages go, what they hold, --compare, directories, errors and --open."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.cli._options import RECIPE_FLAGS, recipe_app
from ragchunk.settings import setting
from tests.conftest import FIXTURES

runner = CliRunner()
NOTES = FIXTURES / "text" / "field-notes.txt"
GUIDE = FIXTURES / "markdown" / "station-guide.md"
REPORT = FIXTURES / "pdf" / "report-outline.pdf"
DATA = re.compile(r'<script type="application/json" id="ragchunk-data">(.*?)</script>', re.DOTALL)


def data_of(page: Path) -> dict[str, Any]:
    (found,) = DATA.findall(page.read_text(encoding="utf-8"))
    value: dict[str, Any] = json.loads(found)
    return value


def split_records(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["split", *args])
    assert result.exit_code == 0, result.stderr
    # JSONL lines end in "\n" only: a record may hold U+2028, which splitlines() breaks at.
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def test_a_file_gives_one_page_holding_the_records_split_gives(tmp_path: Path) -> None:
    target = tmp_path / "notes.html"
    result = runner.invoke(app, ["view", str(NOTES), "--size", "300", "-o", str(target)])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{target}\n"
    assert result.stderr == ""
    data = data_of(target)
    assert data["text"] == NOTES.read_text(encoding="utf-8")
    (side,) = data["sides"]
    expected = split_records(str(NOTES), "--size", "300")
    for record in expected:
        del record["text"]
    assert side["records"] == expected
    assert side["label"] == "recursive · 300 chars · overlap 30"
    assert side["limit"] == 300


def test_the_page_is_written_here_by_default_and_is_deterministic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    first = runner.invoke(app, ["view", str(REPORT)])
    assert first.exit_code == 0, first.stderr
    assert first.stdout == "report-outline.view.html\n"
    page = (tmp_path / "report-outline.view.html").read_bytes()
    (tmp_path / "elsewhere").mkdir()
    second = runner.invoke(app, ["view", str(REPORT), "-o", "elsewhere/"])
    assert second.exit_code == 0, second.stderr
    assert second.stdout == "elsewhere/report-outline.view.html\n"
    assert (tmp_path / "elsewhere" / "report-outline.view.html").read_bytes() == page
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "report-outline.view.html"]


def test_pages_of_a_pdf_are_in_the_data(tmp_path: Path) -> None:
    target = tmp_path / "v.html"
    assert runner.invoke(app, ["view", str(REPORT), "-o", str(target)]).exit_code == 0
    data = data_of(target)
    assert [number for number, _ in data["pages"]] == [1, 2, 3]
    records = data["sides"][0]["records"]
    assert {record["page_start"] for record in records} == {1, 2, 3}


def test_compare_shows_a_second_chunking_of_the_same_text(tmp_path: Path) -> None:
    target = tmp_path / "guide.html"
    result = runner.invoke(
        app,
        ["view", str(GUIDE), "-s", "markdown", "--compare", "-s recursive --size 300", "-o",
         str(target)],
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    first, second = data_of(target)["sides"]
    assert first["label"] == "markdown · 512 chars"
    assert second["label"] == "recursive · 300 chars · overlap 30"
    expected = split_records(str(GUIDE), "-s", "recursive", "--size", "300")
    assert [(r["start"], r["end"]) for r in second["records"]] == [
        (r["start"], r["end"]) for r in expected
    ]
    page = target.read_text(encoding="utf-8")
    assert 'aria-label="A: markdown · 512 chars"' in page
    assert 'aria-label="B: recursive · 300 chars · overlap 30"' in page


def test_compare_keeps_what_it_does_not_change(tmp_path: Path) -> None:
    target = tmp_path / "notes.html"
    args = ["view", str(NOTES), "--size", "200", "--overlap", "0", "--compare", "-s fixed"]
    result = runner.invoke(app, [*args, "-o", str(target)])
    assert result.exit_code == 0, result.stderr
    labels = [side["label"] for side in data_of(target)["sides"]]
    assert labels == ["recursive · 200 chars", "fixed · 200 chars"]


@pytest.mark.parametrize(
    ("compare", "message"),
    [
        ("--tabel", "Error: --compare: No such option: --tabel\n"),
        ("--size ten", "Error: --compare: Invalid value for '--size': 'ten' is not a valid int.\n"),
        ("--format pdf", "Error: --compare: No such option: --format\n"),
        ("-s recursive '", "Error: --compare \"-s recursive '\" does not split into options: "
         "No closing quotation\n"),
        ("--size 10 --overlap 10",
         "Error: --compare: --overlap must be smaller than --size (got 10 >= 10)\n"),
        ("-s recurive", "Error: --compare: --strategy 'recurive' is unknown"),
    ],
)  # fmt: skip
def test_a_bad_compare_string_is_a_usage_error_and_writes_nothing(
    tmp_path: Path, compare: str, message: str
) -> None:
    target = tmp_path / "page.html"
    result = runner.invoke(app, ["view", str(NOTES), "--compare", compare, "-o", str(target)])
    assert result.exit_code == 2
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1
    assert result.stdout == ""
    assert not target.exists()


def test_a_bad_option_is_a_usage_error(tmp_path: Path) -> None:
    result = runner.invoke(app, ["view", str(NOTES), "--size", "0", "-o", str(tmp_path / "p")])
    assert result.exit_code == 2
    assert result.stderr == "Error: --size must be at least 1 (got 0)\n"


def test_an_input_that_fails_exits_1_without_a_page(tmp_path: Path) -> None:
    missing = tmp_path / "missing.txt"
    target = tmp_path / "page.html"
    result = runner.invoke(app, ["view", str(missing), "-o", str(target)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: {missing}: ")
    assert result.stderr.count("\n") == 1
    assert not target.exists()


def test_a_page_that_cannot_be_written_is_a_failure(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("not a directory", encoding="utf-8")
    target = blocker / "page.html"
    result = runner.invoke(app, ["view", str(NOTES), "-o", str(target)])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith(f"error: cannot write {target}: ")
    assert result.stderr.count("\n") == 1


def make_tree(root: Path) -> None:
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("Alpha text.\n" * 30, encoding="utf-8")
    (root / "sub" / "b.md").write_text("# Title\n\nBody text here.\n", encoding="utf-8")
    (root / "blob.bin").write_bytes(bytes(range(256)))
    (root / "broken.docx").write_bytes(b"not a zip")


def test_a_directory_gives_a_page_per_input_and_an_index(tmp_path: Path) -> None:
    make_tree(tmp_path / "docs")
    site = tmp_path / "site"
    result = runner.invoke(app, ["view", str(tmp_path / "docs"), "-o", f"{site}/"])
    assert result.exit_code == 1  # broken.docx failed; the others have their pages
    assert result.stdout == f"{site / 'index.html'}\n"
    assert f"note: {tmp_path / 'docs' / 'blob.bin'}: skipped, binary data" in result.stderr
    assert f"error: {tmp_path / 'docs' / 'broken.docx'}: " in result.stderr
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert pages == ["a.txt.html", "index.html", "sub/b.md.html"]
    index = (site / "index.html").read_text(encoding="utf-8")
    assert '<a href="a.txt.html">a.txt</a>' in index
    assert '<a href="sub/b.md.html">sub/b.md</a>' in index
    assert '<tr class="failed"><td>broken.docx</td>' in index
    assert "skipped, binary data" in index
    nested = (site / "sub" / "b.md.html").read_text(encoding="utf-8")
    assert '<a class="back" href="../index.html">index</a>' in nested
    assert data_of(site / "sub" / "b.md.html")["text"] == "# Title\n\nBody text here.\n"


def test_a_directory_goes_to_name_view_here_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path / "docs")
    (tmp_path / "docs" / "broken.docx").unlink()
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["view", "docs", "--include", "*.txt"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "docs.view/index.html\n"
    assert sorted(p.name for p in (tmp_path / "docs.view").iterdir()) == [
        "a.txt.html",
        "index.html",
    ]


def test_a_directory_cannot_go_to_a_file(tmp_path: Path) -> None:
    make_tree(tmp_path / "docs")
    taken = tmp_path / "taken.html"
    taken.write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["view", str(tmp_path / "docs"), "-o", str(taken)])
    assert result.exit_code == 2
    assert result.stderr == (
        f"Error: -o {taken} is a file; the pages of a directory need a directory\n"
    )
    assert taken.read_text(encoding="utf-8") == "mine"


def test_a_configuration_file_applies_as_for_split(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "ragchunk.toml").write_text(
        '[files."*.md"]\nstrategy = "markdown"\nsize = 400\n', encoding="utf-8"
    )
    (tmp_path / "guide.md").write_text(GUIDE.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["view", "guide.md", "--compare", "--size 200"])
    assert result.exit_code == 0, result.stderr
    labels = [side["label"] for side in data_of(tmp_path / "guide.view.html")["sides"]]
    assert labels == ["markdown · 400 chars", "markdown · 200 chars"]


def test_open_hands_the_page_to_the_browser(tmp_path: Path) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.py"
    browser.write_text(
        f"import sys, pathlib\npathlib.Path({str(opened)!r}).write_text(sys.argv[1])\n",
        encoding="utf-8",
    )
    target = tmp_path / "page.html"
    env = {**os.environ, "BROWSER": f"{sys.executable} {browser} %s"}
    result = subprocess.run(
        [sys.executable, "-m", "ragchunk", "view", str(NOTES), "-o", str(target), "--open"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{target}\n"
    assert opened.read_text(encoding="utf-8") == target.resolve().as_uri()


def test_split_and_view_share_one_declaration_of_each_common_option() -> None:
    root = typer.main.get_command(app)
    split, view = (root.commands[name] for name in ("split", "view"))  # type: ignore[attr-defined]
    split_params = {param.name: param for param in split.params}
    view_params = {param.name: param for param in view.params}
    # -o means a JSONL file for split and a page for view: declared by each command.
    shared = sorted(split_params.keys() & view_params.keys() - {"output"})
    recipe = tuple(setting(name).param for name in RECIPE_FLAGS)
    assert set(recipe) <= set(shared)
    assert {"input_format", "password", "config", "include", "exclude"} <= set(shared)
    for name in shared:
        ours, theirs = split_params[name], view_params[name]
        assert (ours.opts, ours.help, ours.default) == (theirs.opts, theirs.help, theirs.default)
    compare = typer.main.get_command(recipe_app)
    assert tuple(param.name for param in compare.params) == recipe
    for param in compare.params:
        assert (param.opts, param.help) == (
            view_params[param.name].opts,
            view_params[param.name].help,
        )


def test_help_names_the_options_it_shares_with_split() -> None:
    result = runner.invoke(app, ["view", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    for flag in ("--strategy", "--size", "--overlap", "--unit", "--compare", "--open", "-O"):
        assert flag in result.stdout
    assert "--table" not in result.stdout
