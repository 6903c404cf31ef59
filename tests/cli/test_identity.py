"""Stable identity (issue 13): doc_id and chunk ids do not depend on how a file was reached."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.api import chunk_file
from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
SITE = FIXTURES / "docs-site"


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


@pytest.fixture
def site(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SITE, tmp_path / "site"))


def test_a_named_file_and_its_walked_folder_give_identical_records(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(site)
    named = runner.invoke(app, ["split", "docs/tutorial/async.md", "-s", "markdown"])
    walked = runner.invoke(app, ["split", "docs/", "-s", "markdown"])
    assert (named.exit_code, walked.exit_code) == (0, 0)
    from_folder = [r for r in records(walked.stdout) if r["doc_id"] == "docs/tutorial/async.md"]
    assert records(named.stdout) == from_folder
    assert len(from_folder) > 1


def test_ids_stay_the_same_from_another_directory_with_the_same_root(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(site)
    here = records(runner.invoke(app, ["split", "docs", "--root", "."]).stdout)
    monkeypatch.chdir(site / "docs" / "tutorial")
    there = runner.invoke(app, ["split", "../../docs", "--root", "../.."])
    assert there.exit_code == 0, there.stderr
    assert [(r["id"], r["doc_id"]) for r in records(there.stdout)] == [
        (r["id"], r["doc_id"]) for r in here
    ]
    assert {r["source"] for r in records(there.stdout)} != {r["source"] for r in here}


def test_the_root_can_be_pinned_in_the_configuration_file(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (site / "ragchunk.toml").write_text('root = "docs"\n', encoding="utf-8")
    monkeypatch.chdir(site / "docs" / "reference")
    result = runner.invoke(app, ["split", "settings.md", "../index.md"])
    assert result.exit_code == 0, result.stderr
    assert list(dict.fromkeys(r["doc_id"] for r in records(result.stdout))) == [
        "reference/settings.md",
        "index.md",
    ]
    flag = runner.invoke(app, ["split", "settings.md", "--root", "."])
    assert {r["doc_id"] for r in records(flag.stdout)} == {"settings.md"}  # the flag wins


def test_same_relative_paths_in_two_folders_get_two_doc_ids_and_distinct_ids(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(site)
    result = runner.invoke(app, ["split", "docs", "archive/v1", "-s", "markdown"])
    assert result.exit_code == 0, result.stderr
    chunks = records(result.stdout)
    doc_ids = {r["doc_id"] for r in chunks}
    assert {"docs/tutorial/first-steps.md", "archive/v1/tutorial/first-steps.md"} <= doc_ids
    assert len({r["id"] for r in chunks}) == len(chunks)


def test_a_root_that_is_not_a_directory_is_a_usage_error(site: Path) -> None:
    result = runner.invoke(app, ["split", str(site), "--root", str(site / "nope")])
    assert result.exit_code == 2
    assert result.stderr == f"Error: --root {site / 'nope'}: not a directory\n"


def test_the_library_uses_the_same_rule(site: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(site)
    chunks = chunk_file("docs/index.md", strategy="markdown")
    assert {c.doc_id for c in chunks} == {"docs/index.md"}
    cli = records(runner.invoke(app, ["split", "docs/index.md", "-s", "markdown"]).stdout)
    assert [c.id for c in chunks] == [r["id"] for r in cli]
    rooted = chunk_file(str(site / "docs" / "index.md"), strategy="markdown", root="docs")
    assert {c.doc_id for c in rooted} == {"index.md"}
