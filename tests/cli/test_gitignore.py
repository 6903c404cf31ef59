"""Issue 20: a folder named on the command line is chunked even when a .gitignore above it
ignores it; walks say what they skipped, for which reason, and which flag takes it in."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app

runner = CliRunner()
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"
HIDDEN_HINT = "(use --include '*' --include '.*')"


def make_files(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository whose .gitignore lists data/; the tests run at its top."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    make_files(
        root,
        {
            ".gitignore": "data/\n",
            "README.md": "# Project\n\nAbout the project.\n",
            "data/a.txt": "The first data file.\n",
            "data/b.txt": "The second data file.\n",
            "data/sub/c.txt": "A nested data file.\n",
        },
    )
    monkeypatch.chdir(root)
    return root


def doc_ids(stdout: str) -> list[str]:
    return [json.loads(line)["doc_id"] for line in stdout.splitlines()]


def test_git_itself_ignores_the_data_folder(repo: Path) -> None:
    assert git(repo, "status", "--porcelain", "--ignored").splitlines() == [
        "?? .gitignore",
        "?? README.md",
        "!! data/",
    ]


@pytest.mark.usefixtures("repo")
def test_split_data_chunks_the_folder_the_gitignore_lists() -> None:
    result = runner.invoke(app, ["split", "data/"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert doc_ids(result.stdout) == ["data/a.txt", "data/b.txt", "data/sub/c.txt"]
    assert [json.loads(line)["source"] for line in result.stdout.splitlines()] == [
        "data/a.txt",
        "data/b.txt",
        "data/sub/c.txt",
    ]
    nested = runner.invoke(app, ["split", "data/sub"])
    assert doc_ids(nested.stdout) == ["data/sub/c.txt"]


@pytest.mark.usefixtures("repo")
def test_split_dot_skips_it_and_says_so_with_verbose() -> None:
    result = runner.invoke(app, ["split", "."])
    assert (result.exit_code, result.stderr) == (0, "")
    assert doc_ids(result.stdout) == ["README.md"]
    verbose = runner.invoke(app, ["split", ".", "-v"])
    assert verbose.stderr.splitlines()[:2] == [
        "README.md: 1 chunk",
        "skipped by the walk: 1 directory ignored by .gitignore (use --no-gitignore), "
        f"1 hidden file {HIDDEN_HINT}",
    ]


def test_a_gitignore_inside_data_still_applies_below_it(repo: Path) -> None:
    make_files(repo, {"data/.gitignore": "b.txt\n"})
    result = runner.invoke(app, ["split", "data/", "-v"])
    assert result.exit_code == 0
    assert doc_ids(result.stdout) == ["data/a.txt", "data/sub/c.txt"]
    assert result.stderr.splitlines()[2] == (
        "skipped by the walk: 1 file ignored by .gitignore (use --no-gitignore), "
        f"1 hidden file {HIDDEN_HINT}"
    )


def test_no_gitignore_includes_everything(repo: Path) -> None:
    make_files(repo, {"data/.gitignore": "b.txt\n"})
    below = runner.invoke(app, ["split", "data/", "--no-gitignore"])
    assert doc_ids(below.stdout) == ["data/a.txt", "data/b.txt", "data/sub/c.txt"]
    top = runner.invoke(app, ["split", ".", "--no-gitignore"])
    assert doc_ids(top.stdout) == ["README.md", "data/a.txt", "data/b.txt", "data/sub/c.txt"]


def test_a_walk_that_finds_nothing_names_the_counts_and_the_flags(repo: Path) -> None:
    make_files(
        repo,
        {
            ".gitignore": "data/\n*.log\n",
            "docs/one.log": "l",
            "docs/two.log": "l",
            "docs/scan.png": PNG,
            "docs/.draft.md": "d",
        },
    )
    result = runner.invoke(app, ["split", "docs"])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == (
        "note: docs/scan.png: skipped, binary data\n"
        "note: nothing to chunk under docs: 2 files ignored by .gitignore (use --no-gitignore), "
        f"1 hidden file {HIDDEN_HINT}, 1 binary file\n"
    )
    flagged = runner.invoke(app, ["split", "docs", "--no-gitignore", "--include", "*.md"])
    assert flagged.stderr == (
        "note: nothing to chunk under docs: 4 files not matched by --include\n"
    )
    excluded = runner.invoke(app, ["split", "data", "--exclude", "*.txt", "-q"])
    assert (excluded.exit_code, excluded.stdout, excluded.stderr) == (0, "", "")
    said = runner.invoke(app, ["split", "data", "--exclude", "*.txt"])
    assert said.stderr == "note: nothing to chunk under data: 3 files excluded by --exclude\n"


def test_the_manifest_sees_the_same_files(repo: Path, tmp_path: Path) -> None:
    out, manifest = tmp_path / "out", tmp_path / "state.json"
    args = ["split", "data/", "-o", f"{out}/", "--manifest", str(manifest)]
    first = runner.invoke(app, args)
    assert first.stderr == (
        f"manifest {manifest}: 3 inputs processed, 0 unchanged and skipped, 0 removed\n"
    )
    recorded = json.loads(manifest.read_text(encoding="utf-8"))["inputs"]
    assert sorted(recorded) == ["repo/data/a.txt", "repo/data/b.txt", "repo/data/sub/c.txt"]
    second = runner.invoke(app, args)
    assert second.stderr == (
        f"manifest {manifest}: 0 inputs processed, 3 unchanged and skipped, 0 removed\n"
    )
    (repo / "data" / "b.txt").unlink()
    third = runner.invoke(app, args)
    assert third.stderr == (
        f"manifest {manifest}: 0 inputs processed, 2 unchanged and skipped, 1 removed\n"
    )
    assert sorted(p.name for p in out.rglob("*.jsonl")) == ["a.txt.jsonl", "c.txt.jsonl"]
