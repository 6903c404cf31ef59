"""Batch runs through the CLI: trees in and out, parallel jobs, failures, manifests, configs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.runs.config import scope_keys
from ragchunk.runs.inputs import WalkOptions, find_inputs
from tests.conftest import FIXTURES
from tests.pending import EXCLUDE_PENDING, PENDING_GLOBS

runner = CliRunner()
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10"
PARAGRAPH = "A sentence about retrieval. Another about chunks, overlap and size.\n\n"


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def listing(directory: Path) -> list[str]:
    return sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())


def records(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path / "docs",
        {
            "a.txt": PARAGRAPH * 3,
            "guide/intro.md": "# Intro\n\n" + PARAGRAPH * 2,
            "guide/deep/notes.txt": PARAGRAPH,
            "empty.txt": "",
        },
    )


def test_fixtures_mirror_into_a_directory_identically_with_one_or_two_jobs(
    tmp_path: Path,
) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    tree = [str(FIXTURES), *EXCLUDE_PENDING]
    tree = [*tree, "--root", str(FIXTURES)]
    first = runner.invoke(app, ["split", *tree, "-o", f"{one}/", "--jobs", "1"])
    second = runner.invoke(app, ["split", *tree, "-o", f"{two}/", "--jobs", "2"])
    assert (first.exit_code, first.stdout) == (0, "")
    assert (second.exit_code, second.stdout, second.stderr) == (0, "", first.stderr)
    walk = WalkOptions(exclude=PENDING_GLOBS, root=str(FIXTURES))
    expected = sorted(f"{i.doc_id}.jsonl" for i in find_inputs([str(FIXTURES)], walk).inputs)
    assert listing(one) == expected
    assert "text/field-notes.txt.jsonl" in expected
    for name in expected:
        assert (one / name).read_bytes() == (two / name).read_bytes(), name
    notes = records((one / "text" / "field-notes.txt.jsonl").read_text(encoding="utf-8"))
    text = (FIXTURES / "text" / "field-notes.txt").read_text(encoding="utf-8")
    assert {c["doc_id"] for c in notes} == {"text/field-notes.txt"}
    assert all(c["text"] == text[c["start"] : c["end"]] for c in notes)  # type: ignore[misc]


def test_an_existing_directory_is_an_output_directory_without_the_slash(
    tree: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    result = runner.invoke(
        app, ["split", str(tree), "-o", str(out), "-j", "1", "--root", str(tree)]
    )
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    assert listing(out) == [
        "a.txt.jsonl",
        "empty.txt.jsonl",
        "guide/deep/notes.txt.jsonl",
        "guide/intro.md.jsonl",
    ]
    assert (out / "empty.txt.jsonl").read_text() == ""


def test_one_output_file_holds_every_input_in_walk_order(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "all.jsonl"
    result = runner.invoke(app, ["split", str(tree), "-o", str(out), "--root", str(tree)])
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "")
    doc_ids = [c["doc_id"] for c in records(out.read_text(encoding="utf-8"))]
    assert list(dict.fromkeys(doc_ids)) == ["a.txt", "guide/deep/notes.txt", "guide/intro.md"]
    to_stdout = runner.invoke(app, ["split", str(tree), "-j", "2", "--root", str(tree)])
    assert to_stdout.stdout == out.read_text(encoding="utf-8")


def test_a_bad_input_among_good_ones_fails_alone(tree: Path, tmp_path: Path) -> None:
    (tree / "guide" / "broken.txt").write_bytes(BINARY)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["split", str(tree), "-o", f"{out}/", "-j", "2", "--root", str(tree)]
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {tree / 'guide' / 'broken.txt'}: binary data, not text (it holds zero bytes)\n"
    )
    assert listing(out) == [
        "a.txt.jsonl",
        "empty.txt.jsonl",
        "guide/deep/notes.txt.jsonl",
        "guide/intro.md.jsonl",
    ]


def test_a_corrupt_pdf_among_good_documents_fails_alone(tmp_path: Path) -> None:
    tree = tmp_path / "docs"
    for fixture in ("pdf/report-plain.pdf", "docx/memo.docx", "markdown/git-readme.md"):
        target = tree / fixture
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((FIXTURES / fixture).read_bytes())
    corrupt = tree / "pdf" / "truncated.pdf"
    corrupt.write_bytes((FIXTURES / "pdf" / "report-plain.pdf").read_bytes()[:700])
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["split", str(tree), "-o", f"{out}/", "-j", "2", "--root", str(tree)]
    )
    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr.startswith(f"error: {corrupt}: corrupt or truncated PDF")
    assert result.stderr.count("\n") == 1
    assert listing(out) == [
        "docx/memo.docx.jsonl",
        "markdown/git-readme.md.jsonl",
        "pdf/report-plain.pdf.jsonl",
    ]
    assert all((out / name).stat().st_size > 0 for name in listing(out))


def test_several_failures_end_with_a_summary_table(tree: Path, tmp_path: Path) -> None:
    (tree / "bad1.txt").write_bytes(BINARY)
    (tree / "guide" / "bad2.txt").write_bytes(BINARY)
    result = runner.invoke(
        app,
        ["split", str(tree), "-o", str(tmp_path / "all.jsonl"), "--root", str(tree)],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 1
    cause = "binary data, not text (it holds zero bytes)"
    bad = [str(tree / "bad1.txt"), str(tree / "guide" / "bad2.txt")]
    width = max(len(b) for b in bad)
    assert result.stderr.splitlines() == [
        f"error: {bad[0]}: {cause}",
        f"error: {bad[1]}: {cause}",
        "2 of 6 inputs failed",
        f"┏{'━' * (width + 2)}┳{'━' * (len(cause) + 2)}┓",
        f"┃ {'input'.ljust(width)} ┃ {'cause'.ljust(len(cause))} ┃",
        f"┡{'━' * (width + 2)}╇{'━' * (len(cause) + 2)}┩",
        f"│ {bad[0].ljust(width)} │ {cause} │",
        f"│ {bad[1].ljust(width)} │ {cause} │",
        f"└{'─' * (width + 2)}┴{'─' * (len(cause) + 2)}┘",
    ]
    written = records((tmp_path / "all.jsonl").read_text(encoding="utf-8"))
    assert {c["doc_id"] for c in written} == {"a.txt", "guide/deep/notes.txt", "guide/intro.md"}


def test_fail_fast_stops_at_the_first_failure(tree: Path, tmp_path: Path) -> None:
    (tree / "0-bad.txt").write_bytes(BINARY)
    (tree / "1-bad.txt").write_bytes(BINARY)
    out = tmp_path / "out"
    result = runner.invoke(app, ["split", str(tree), "-o", f"{out}/", "--fail-fast", "-j", "1"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {tree / '0-bad.txt'}: binary data, not text (it holds zero bytes)\n"
        "stopped at the first failure (--fail-fast); 5 inputs left\n"
    )
    assert not out.exists()


def test_binary_files_without_a_claimed_extension_are_skipped_with_a_note(
    tree: Path, tmp_path: Path
) -> None:
    (tree / "logo.png").write_bytes(BINARY)
    out = tmp_path / "out"
    result = runner.invoke(app, ["split", str(tree), "-o", f"{out}/"])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"note: {tree / 'logo.png'}: skipped, binary data\n"
    quiet = runner.invoke(app, ["split", str(tree), "-o", f"{out}/", "--quiet"])
    assert (quiet.exit_code, quiet.stderr) == (0, "")


def test_ctrl_c_while_walking_the_tree_says_so_and_writes_nothing(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_args: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("ragchunk.runs.batch.find_inputs", interrupted)
    out = tmp_path / "out"
    result = runner.invoke(app, ["split", str(tree), "-o", f"{out}/"])
    assert (result.exit_code, result.stdout) == (130, "")
    assert result.stderr == "interrupted while finding the inputs; nothing was written\n"
    assert not out.exists()


def test_include_exclude_and_gitignore(tree: Path, tmp_path: Path) -> None:
    (tree / ".gitignore").write_text("guide/deep/\n")
    (tree / ".hidden.txt").write_text("hidden")

    def written(*flags: str) -> list[str]:
        out = tmp_path / "o" / str(len(list((tmp_path).glob("o/*"))))
        result = runner.invoke(
            app, ["split", str(tree), "-o", f"{out}/", "--root", str(tree), *flags]
        )
        assert result.exit_code == 0, result.stderr
        return listing(out) if out.exists() else []

    assert written() == ["a.txt.jsonl", "empty.txt.jsonl", "guide/intro.md.jsonl"]
    assert written("--no-gitignore") == [
        "a.txt.jsonl",
        "empty.txt.jsonl",
        "guide/deep/notes.txt.jsonl",
        "guide/intro.md.jsonl",
    ]
    assert written("--include", "*.md", "--include", ".hidden*") == [
        ".hidden.txt.jsonl",
        "guide/intro.md.jsonl",
    ]
    assert written("--exclude", "guide", "--exclude", "empty.*") == ["a.txt.jsonl"]


def test_a_rerun_with_a_manifest_processes_only_what_changed(tree: Path, tmp_path: Path) -> None:
    out, manifest = tmp_path / "out", tmp_path / "state.json"
    args = ["split", str(tree), "-o", f"{out}/", "--manifest", str(manifest), "--root", str(tree)]
    first = runner.invoke(app, args)
    assert (first.exit_code, first.stdout) == (0, "")
    assert first.stderr == (
        f"manifest {manifest}: 4 inputs processed, 0 unchanged and skipped, 0 removed\n"
    )
    before = {name: (out / name).stat().st_mtime_ns for name in listing(out)}
    second = runner.invoke(app, args)
    assert (second.exit_code, second.stdout) == (0, "")
    assert second.stderr == (
        f"manifest {manifest}: 0 inputs processed, 4 unchanged and skipped, 0 removed\n"
    )
    assert {name: (out / name).stat().st_mtime_ns for name in listing(out)} == before

    (tree / "a.txt").write_text("Changed text.\n", encoding="utf-8")
    (tree / "guide" / "deep" / "notes.txt").unlink()
    third = runner.invoke(app, [*args, "-v"])
    assert third.exit_code == 0
    assert third.stderr.splitlines()[:4] == [
        f"{tree / 'a.txt'}: 1 chunk",
        f"{tree / 'empty.txt'}: unchanged, skipped",
        f"{tree / 'guide' / 'intro.md'}: unchanged, skipped",
        f"manifest {manifest}: 1 input processed, 2 unchanged and skipped, 1 removed",
    ]
    assert listing(out) == ["a.txt.jsonl", "empty.txt.jsonl", "guide/intro.md.jsonl"]
    assert not (out / "guide" / "deep").exists()  # emptied directories go too
    assert records((out / "a.txt.jsonl").read_text())[0]["text"] == "Changed text.\n"

    options = runner.invoke(app, [*args, "--size", "100"])
    assert options.stderr.endswith("3 inputs processed, 0 unchanged and skipped, 0 removed\n")
    (out / "empty.txt.jsonl").unlink()
    again = runner.invoke(app, [*args, "--size", "100"])
    assert again.stderr.endswith("1 input processed, 2 unchanged and skipped, 0 removed\n")
    saved = json.loads(manifest.read_text())
    assert sorted(saved["inputs"]) == ["docs/a.txt", "docs/empty.txt", "docs/guide/intro.md"]


def test_a_manifest_with_stdout_emits_only_new_and_changed_inputs(
    tree: Path, tmp_path: Path
) -> None:
    args = ["split", str(tree), "--manifest", str(tmp_path / "m.json"), "-q", "--root", str(tree)]
    assert runner.invoke(app, args).stdout != ""
    assert runner.invoke(app, args).stdout == ""
    (tree / "new.txt").write_text("New.\n")
    assert {c["doc_id"] for c in records(runner.invoke(app, args).stdout)} == {"new.txt"}


def test_hashes_add_content_hashes(tree: Path) -> None:
    result = runner.invoke(app, ["split", str(tree / "a.txt"), "--hashes", "--size", "80"])
    chunks = records(result.stdout)
    import hashlib

    digest = hashlib.sha256((tree / "a.txt").read_bytes()).hexdigest()
    assert {c["doc_hash"] for c in chunks} == {digest}
    assert all(c["hash"] == hashlib.sha256(str(c["text"]).encode()).hexdigest() for c in chunks)


def test_outputs_never_leave_the_output_directory(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, elsewhere, work = tmp_path / "out", tmp_path / "elsewhere", tmp_path / "work"
    for directory in (out, elsewhere, work):
        directory.mkdir()
    (out / "guide").symlink_to(elsewhere, target_is_directory=True)
    monkeypatch.chdir(work)
    result = runner.invoke(
        app, ["split", str(tree), "-o", f"{out}/", "-j", "1", "--root", str(tree)]
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines()[:2] == [
        f"error: {tree / 'guide' / 'deep' / 'notes.txt'}: its output "
        f"{out / 'guide' / 'deep' / 'notes.txt.jsonl'} would lie outside {out}",
        f"error: {tree / 'guide' / 'intro.md'}: its output "
        f"{out / 'guide' / 'intro.md.jsonl'} would lie outside {out}",
    ]
    assert list(elsewhere.iterdir()) == []
    assert listing(out) == ["a.txt.jsonl", "empty.txt.jsonl"]
    # "../docs/a.txt" lies outside the root (the current directory): its doc_id is its absolute
    # path, which loses its leading "/" under -o DIR/, as in tar.
    result = runner.invoke(app, ["split", "../docs/a.txt", "-o", "mirror/"])
    assert result.exit_code == 0, result.stderr
    absolute = (tree / "a.txt").as_posix()
    assert listing(work / "mirror") == [f"{absolute.lstrip('/')}.jsonl"]
    assert {c["doc_id"] for c in records(result.stdout or "")} <= {absolute}


def test_two_folders_with_the_same_relative_paths_get_two_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_tree(tmp_path / "docs", {"tutorial/first-steps.md": "# New\n"})
    make_tree(tmp_path / "archive" / "v1", {"tutorial/first-steps.md": "# Old\n"})
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["split", "docs", "archive/v1", "-o", "out/"])
    assert (result.exit_code, result.stderr) == (0, "")
    assert listing(tmp_path / "out") == [
        "archive/v1/tutorial/first-steps.md.jsonl",
        "docs/tutorial/first-steps.md.jsonl",
    ]
    stdout = records(runner.invoke(app, ["split", "docs", "archive/v1"]).stdout)
    assert [c["doc_id"] for c in stdout] == [
        "docs/tutorial/first-steps.md",
        "archive/v1/tutorial/first-steps.md",
    ]
    assert len({c["id"] for c in stdout}) == 2


def test_standard_input_into_a_directory(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["split", "-", "-o", f"{out}/"], input="From stdin.\n")
    assert (result.exit_code, result.stderr) == (0, "")
    assert records((out / "stdin.jsonl").read_text())[0]["text"] == "From stdin.\n"


def test_table_and_files_together(tree: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["split", str(tree), "-o", f"{out}/", "--table"], env={"COLUMNS": "150"}
    )
    assert result.exit_code == 0
    assert "guide/intro.md · 1 chunk" in result.stdout
    assert len(listing(out)) == 4


def test_jobs_must_be_positive() -> None:
    result = runner.invoke(app, ["split", str(FIXTURES), "-j", "0"])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == "Error: --jobs must be at least 1 (got 0)\n"


def test_empty_glob_is_a_usage_error() -> None:
    result = runner.invoke(app, ["split", str(FIXTURES), "--include", "/"])
    assert result.exit_code == 2
    assert result.stderr == "Error: a glob must name something (got '/')\n"


class TestConfigFiles:
    def test_the_file_sets_defaults_and_flags_win(
        self, tree: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        make_tree(tree, {"ragchunk.toml": "size = 60\noverlap = 0\n"})
        monkeypatch.chdir(tree)
        from_file = records(runner.invoke(app, ["split", "a.txt"]).stdout)
        assert max(int(c["chars"]) for c in from_file) <= 60  # type: ignore[call-overload]
        assert max(int(c["chars"]) for c in from_file) > 40  # type: ignore[call-overload]
        flagged = records(runner.invoke(app, ["split", "a.txt", "--size", "20"]).stdout)
        assert max(int(c["chars"]) for c in flagged) <= 20  # type: ignore[call-overload]
        assert len(flagged) > len(from_file)

    def test_sections_choose_per_glob(self, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        make_tree(
            tree,
            {
                "ragchunk.toml": (
                    'exclude = ["empty.txt"]\n'
                    '[files."guide/**"]\nstrategy = "fixed"\nsize = 50\noverlap = 0\n'
                ),
            },
        )
        monkeypatch.chdir(tree)
        result = runner.invoke(app, ["split", "."])
        assert (result.exit_code, result.stderr) == (0, "")
        chunks = records(result.stdout)
        strategies = {str(c["doc_id"]): c["strategy"] for c in chunks}
        assert strategies == {
            "a.txt": "recursive",
            "guide/deep/notes.txt": "fixed",
            "guide/intro.md": "fixed",
            "ragchunk.toml": "recursive",
        }

    def test_a_glob_that_matches_no_input_gets_a_note_naming_its_directory(
        self, tree: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        make_tree(
            tree,
            {
                "ragchunk.toml": (
                    '[files."guide/*.md"]\nsize = 50\noverlap = 0\n'
                    '[files."intro.md"]\nsize = 60\noverlap = 0\n'
                    '[files."docs/**"]\nsize = 70\noverlap = 0\n'
                ),
            },
        )
        monkeypatch.chdir(tree / "guide")  # the file is found from here up; globs stay its own
        result = runner.invoke(app, ["split", "."])
        assert result.exit_code == 0
        assert result.stderr == (
            f"note: {tree / 'ragchunk.toml'} [files.\"docs/**\"]: the glob 'docs/**' matched "
            f"none of the 2 inputs (globs are relative to {tree})\n"
        )
        quiet = runner.invoke(app, ["split", ".", "-q"])
        assert quiet.stderr == ""

    def test_pyproject_table_and_explicit_config(
        self, tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        make_tree(tree, {"pyproject.toml": "[tool.ragchunk]\nsize = 70\noverlap = 0\n"})
        other = make_tree(tmp_path / "cfg", {"other.toml": "size = 30\noverlap = 0\n"})
        monkeypatch.chdir(tree)
        found = records(runner.invoke(app, ["split", "a.txt"]).stdout)
        assert 50 < max(int(c["chars"]) for c in found) <= 70  # type: ignore[call-overload]
        named = runner.invoke(app, ["split", "a.txt", "--config", str(other / "other.toml")])
        assert max(int(c["chars"]) for c in records(named.stdout)) <= 30  # type: ignore[call-overload]

    def test_unknown_keys_are_usage_errors_naming_key_and_file(
        self, tree: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        make_tree(tree, {"ragchunk.toml": "sise = 60\n"})
        monkeypatch.chdir(tree / "guide")
        result = runner.invoke(app, ["split", "intro.md"])
        assert (result.exit_code, result.stdout) == (2, "")
        assert result.stderr == (
            f"Error: {tree / 'ragchunk.toml'}: unknown key 'sise'; did you mean 'size'?\n"
        )
        (tree / "pyproject.toml").write_text("[tool.ragchunk]\nsize = 1\n")
        (tree / "ragchunk.toml").unlink()
        monkeypatch.chdir(tree)
        (tree / "pyproject.toml").write_text('[tool.ragchunk.files."*.md"]\nchunk = 5\n')
        result = runner.invoke(app, ["split", "a.txt"])
        assert result.stderr == (
            "Error: pyproject.toml [tool.ragchunk.files.\"*.md\"]: unknown key 'chunk' "
            f"(known keys: {', '.join(sorted([*scope_keys(), 'options']))})\n"
        )

    def test_run_settings_from_the_file(
        self, tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        make_tree(
            tree,
            {"ragchunk.toml": 'include = ["*.md"]\nmanifest = "../m.json"\nhashes = true\n'},
        )
        monkeypatch.chdir(tree)
        result = runner.invoke(app, ["split", "."])
        assert result.exit_code == 0
        chunks = records(result.stdout)
        assert {c["doc_id"] for c in chunks} == {"guide/intro.md"}
        assert all("doc_hash" in c for c in chunks)
        assert result.stderr == (
            "manifest ../m.json: 1 input processed, 0 unchanged and skipped, 0 removed\n"
        )
        assert (tmp_path / "m.json").is_file()
        with_flag = runner.invoke(app, ["split", ".", "--include", "*.txt", "-q"])
        assert {c["doc_id"] for c in records(with_flag.stdout)} == {
            "a.txt",
            "guide/deep/notes.txt",
        }


def test_an_empty_directory_says_there_is_nothing_to_chunk(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["split", str(tmp_path / "empty")])
    assert (result.exit_code, result.stdout) == (0, "")
    assert result.stderr == f"note: nothing to chunk: no input files under {tmp_path / 'empty'}\n"
