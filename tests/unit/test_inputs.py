"""Directory walking: order, doc ids, globs, hidden files, .gitignore, binary files, symlinks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ragchunk.errors import UsageError
from ragchunk.runs.globs import Glob, make_globs
from ragchunk.runs.inputs import (
    MAX_DEPTH,
    Skipped,
    WalkOptions,
    describe_skipped,
    doc_id_for,
    find_inputs,
    is_binary,
)

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00"


def make_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def doc_ids(root: Path, **options: object) -> list[str]:
    """The doc_ids of a walk of ``root``, relative to it (``--root`` is the walked folder)."""
    found = find_inputs([str(root)], WalkOptions(root=str(root), **options))  # type: ignore[arg-type]
    return [item.doc_id for item in found.inputs]


def notes(root: Path, **options: object) -> list[tuple[str, str]]:
    found = find_inputs([str(root)], WalkOptions(root=str(root), **options))  # type: ignore[arg-type]
    return [(Path(note.path).relative_to(root).as_posix(), note.code) for note in found.notes]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return make_tree(
        tmp_path / "tree",
        {
            "b.txt": "b",
            "a.md": "a",
            "z/y.txt": "y",
            "z/x/w.md": "w",
            "docs/guide.md": "g",
            "docs/drafts/wip.md": "wip",
            ".env": "secret",
            ".github/workflows/ci.md": "ci",
            "Ä.txt": "umlaut",
        },
    )


class TestGlob:
    @pytest.mark.parametrize(
        ("glob", "path", "expected"),
        [
            ("*.md", "a.md", True),
            ("*.md", "deep/er/a.md", True),
            ("*.md", "a.mdx", False),
            ("docs/*.md", "docs/a.md", True),
            ("docs/*.md", "docs/sub/a.md", False),
            ("docs/*.md", "x/docs/a.md", False),
            ("docs/**/*.md", "docs/a.md", True),
            ("docs/**/*.md", "docs/sub/deeper/a.md", True),
            ("/a.md", "a.md", True),
            ("/a.md", "sub/a.md", False),
            ("*", ".env", False),
            ("*.md", ".github/a.md", False),
            (".*", ".env", True),
            (".github/**", ".github/workflows/ci.md", True),
            ("**/*.md", ".github/workflows/ci.md", False),
            ("a?.txt", "ab.txt", True),
            ("[ab].txt", "c.txt", False),
            ("data/*.TXT", "data/a.txt", False),
        ],
    )
    def test_matches(self, glob: str, path: str, expected: bool) -> None:
        assert Glob(glob).matches(path.split("/")) is expected

    def test_trailing_slash_matches_directories_only(self) -> None:
        assert Glob("build/").matches(["build"], is_dir=True)
        assert not Glob("build/").matches(["build"], is_dir=False)

    def test_covers_files_below_a_matching_directory_but_not_hidden_ones(self) -> None:
        glob = Glob("docs")
        assert glob.covers(["docs", "a", "b.md"])
        assert not glob.covers(["docs", ".cache", "b.md"])
        assert not glob.covers(["other", "b.md"])

    def test_may_match_below(self) -> None:
        assert Glob("docs/*.md").may_match_below(["docs"])
        assert not Glob("docs/*.md").may_match_below(["src"])
        assert Glob("*.md").may_match_below(["src"])
        assert not Glob("*.md").may_match_below([".git"])

    def test_empty_glob_is_a_usage_error(self) -> None:
        with pytest.raises(UsageError, match=r"a glob must name something \(got '/'\)"):
            make_globs(["/"])


class TestWalk:
    def test_order_is_sorted_depth_first_and_doc_ids_are_relative(self, tree: Path) -> None:
        assert doc_ids(tree) == [
            "a.md",
            "b.txt",
            "docs/drafts/wip.md",
            "docs/guide.md",
            "z/x/w.md",
            "z/y.txt",
            "Ä.txt",
        ]

    def test_sources_join_the_root_as_given(self, tree: Path) -> None:
        found = find_inputs([str(tree) + "/"])
        assert found.inputs[0].source == str(tree / "a.md")

    def test_a_named_file_is_taken_as_given(self, tree: Path) -> None:
        found = find_inputs([str(tree / ".env"), "-"], WalkOptions(exclude=make_globs(["*"])))
        assert [(i.source, i.doc_id) for i in found.inputs] == [
            (str(tree / ".env"), (tree / ".env").as_posix()),
            ("-", "-"),
        ]

    def test_include_keeps_only_matching_files(self, tree: Path) -> None:
        assert doc_ids(tree, include=make_globs(["*.md"])) == [
            "a.md",
            "docs/drafts/wip.md",
            "docs/guide.md",
            "z/x/w.md",
        ]

    def test_include_of_a_directory_takes_everything_below(self, tree: Path) -> None:
        assert doc_ids(tree, include=make_globs(["z"])) == ["z/x/w.md", "z/y.txt"]

    def test_exclude_prunes_files_and_directories(self, tree: Path) -> None:
        excluded = make_globs(["drafts", "*.txt"])
        assert doc_ids(tree, exclude=excluded) == ["a.md", "docs/guide.md", "z/x/w.md"]
        assert doc_ids(tree, exclude=make_globs(["docs/**"])) == [
            "a.md",
            "b.txt",
            "z/x/w.md",
            "z/y.txt",
            "Ä.txt",
        ]

    def test_hidden_entries_only_when_a_glob_names_them(self, tree: Path) -> None:
        assert ".env" not in doc_ids(tree)
        assert doc_ids(tree, include=make_globs([".*"])) == [".env", ".github/workflows/ci.md"]
        assert doc_ids(tree, include=make_globs([".github/**"])) == [".github/workflows/ci.md"]
        assert doc_ids(tree, include=make_globs(["*", ".*"])) == [
            ".env",
            ".github/workflows/ci.md",
            *doc_ids(tree),
        ]

    def test_version_control_directories_are_never_walked(self, tree: Path) -> None:
        make_tree(tree, {".git/HEAD": "ref", ".git/objects/ab": "x", ".hg/store": "s"})
        assert doc_ids(tree, include=make_globs([".*", ".git/**"])) == [
            ".env",
            ".github/workflows/ci.md",
        ]

    def test_gitignore_rules_apply_with_negation_and_nesting(self, tmp_path: Path) -> None:
        root = make_tree(
            tmp_path / "repo",
            {
                ".gitignore": "*.log\nbuild/\n!keep.log\n",
                "a.txt": "a",
                "x.log": "x",
                "keep.log": "k",
                "build/out.txt": "o",
                "sub/.gitignore": "local.txt\n/anchored.txt\n",
                "sub/local.txt": "l",
                "sub/anchored.txt": "n",
                "sub/deeper/anchored.txt": "d",
                "sub/deeper/local.txt": "l",
            },
        )
        assert doc_ids(root) == ["a.txt", "keep.log", "sub/deeper/anchored.txt"]
        assert len(doc_ids(root, gitignore=False)) == 8

    def test_gitignore_above_the_root_counts_inside_a_repository(self, tmp_path: Path) -> None:
        root = make_tree(
            tmp_path / "repo",
            {".gitignore": "docs/skip.txt\n", "docs/keep.txt": "k", "docs/skip.txt": "s"},
        )
        (root / ".git" / "info").mkdir(parents=True)
        (root / ".git" / "info" / "exclude").write_text("*.tmp\n")
        (root / "docs" / "x.tmp").write_text("t")
        assert doc_ids(root / "docs") == ["keep.txt"]
        outside = make_tree(tmp_path / "loose", {".gitignore": "x\n"})
        make_tree(outside, {"docs/x": "x", "docs/y": "y"})
        assert doc_ids(outside / "docs") == ["x", "y"]  # not a repository: no ancestors

    def test_binary_files_are_skipped_with_a_note_unless_a_parser_claims_them(
        self, tmp_path: Path
    ) -> None:
        root = make_tree(
            tmp_path / "t",
            {
                "image.png": PNG,
                "utf16.dat": "text in UTF-16".encode("utf-16"),
                "notes": "no extension, plain text",
                "claimed.txt": PNG,
                "empty.bin": b"",
            },
        )
        assert doc_ids(root) == ["claimed.txt", "empty.bin", "notes", "utf16.dat"]
        assert notes(root) == [("image.png", "binary")]
        message = find_inputs([str(root)]).notes[0].message
        assert message == f"{root / 'image.png'}: skipped, binary data"

    def test_documents_without_extension_are_found_by_their_content(self, tmp_path: Path) -> None:
        fixtures = Path(__file__).parent.parent.parent / "fixtures"
        memo = (fixtures / "docx" / "memo.docx").read_bytes()
        root = make_tree(tmp_path / "t", {"memo": memo, "scan": PNG})
        assert len(memo) > 8192  # the zip's directory lies past the sniffed head
        assert doc_ids(root) == ["memo"]
        assert notes(root) == [("scan", "binary")]

    def test_is_binary_follows_the_text_decoder(self) -> None:
        assert is_binary("x.bin", b"\x00\x01\x02") is True
        assert is_binary("x.bin", b"plain") is False

    def test_symlink_loops_and_repeated_directories_are_skipped(self, tmp_path: Path) -> None:
        root = make_tree(tmp_path / "t", {"a/file.txt": "f", "b.txt": "b"})
        (root / "a" / "loop").symlink_to(root)
        (root / "alias").symlink_to(root / "a")
        (root / "dangling").symlink_to(root / "missing")
        (root / "link.txt").symlink_to(root / "b.txt")
        assert doc_ids(root) == ["a/file.txt", "b.txt", "link.txt"]
        assert notes(root) == [
            ("a/loop", "symlink-loop"),
            ("alias", "duplicate-directory"),
            ("dangling", "broken-symlink"),
        ]

    @pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
    def test_special_files_are_skipped(self, tmp_path: Path) -> None:
        root = make_tree(tmp_path / "t", {"a.txt": "a"})
        os.mkfifo(root / "pipe")
        assert doc_ids(root) == ["a.txt"]
        assert notes(root) == [("pipe", "special-file")]

    def test_skip_leaves_out_the_run_s_own_output(self, tree: Path) -> None:
        skip = frozenset({str(tree / "docs"), str(tree / "b.txt")})
        assert doc_ids(tree, skip=skip) == ["a.md", "z/x/w.md", "z/y.txt", "Ä.txt"]

    def test_git_repository_walks_agree_with_git(self, tmp_path: Path) -> None:
        root = make_tree(
            tmp_path / "g",
            {
                ".gitignore": "*.o\n/out\ndoc/**/gen/\n!important.o\n",
                "a.c": "c",
                "a.o": "o",
                "important.o": "i",
                "out/x.txt": "x",
                "src/out/y.txt": "y",
                "doc/gen/z.txt": "z",
                "doc/api/gen/w.txt": "w",
                "doc/api/v.txt": "v",
            },
        )
        git = subprocess.run(["git", "--version"], capture_output=True, check=False)
        if git.returncode != 0:
            pytest.skip("git is not installed")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        listed = subprocess.run(
            ["git", "-C", str(root), "ls-files", "--others", "--exclude-standard"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        expected = sorted(p for p in listed if not p.startswith("."))
        assert doc_ids(root) == expected


def test_very_deep_trees_are_cut_with_a_note(tmp_path: Path) -> None:
    deep = tmp_path / "t"
    path = deep
    for _ in range(MAX_DEPTH + 5):
        path = path / "d"
    path.mkdir(parents=True)
    (path / "bottom.txt").write_text("deep")
    (deep / "top.txt").write_text("top")
    found = find_inputs([str(deep)], WalkOptions(root=str(deep)))
    assert [i.doc_id for i in found.inputs] == ["top.txt"]
    assert [n.code for n in found.notes] == ["too-deep"]
    assert found.notes[0].path.count("/d") == MAX_DEPTH + 1


def test_a_damaged_zip_without_extension_does_not_stop_the_walk(tmp_path: Path) -> None:
    """Found by fuzzing: zipfile raised NotImplementedError ("zip file version 23.5") while
    the walk sniffed the file, which ended the whole run with a traceback."""
    damaged = Path(__file__).parent.parent / "fuzz" / "regressions" / "docx" / "zip-version.docx"
    make_tree(tmp_path / "tree", {"archive": damaged.read_bytes(), "a.txt": "a"})
    assert doc_ids(tmp_path / "tree") == ["a.txt"]
    assert notes(tmp_path / "tree") == [("archive", "binary")]


def make_repository(root: Path, files: dict[str, str | bytes]) -> Path:
    """A git work tree, as the walk sees one: a ``.git`` directory at its top."""
    make_tree(root, files)
    (root / ".git").mkdir()
    return root


DATA = {"data/a.txt": "a", "data/b.txt": "b", "data/sub/c.txt": "c", "src/main.txt": "m"}


class TestNamedDirectory:
    """Ignore rules decide what a walk finds below a named directory, never the directory."""

    @pytest.mark.parametrize("rule", ["data/", "data", "/data", "**/data", "dat*/"])
    def test_a_named_directory_is_walked_though_a_gitignore_above_ignores_it(
        self, tmp_path: Path, rule: str
    ) -> None:
        root = make_repository(tmp_path / "repo", {".gitignore": f"{rule}\n", **DATA})
        assert doc_ids(root / "data") == ["a.txt", "b.txt", "sub/c.txt"]
        assert doc_ids(root) == ["src/main.txt"]
        assert doc_ids(root / "data" / "sub") == ["c.txt"]  # below an ignored directory too

    def test_rules_above_still_decide_what_lies_below(self, tmp_path: Path) -> None:
        rules = "data/\n*.log\ndata/*.tmp\nsub/\n!keep.log\n"
        files = {"data/x.log": "x", "data/keep.log": "k", "data/y.tmp": "y", **DATA}
        root = make_repository(tmp_path / "repo", {".gitignore": rules, **files})
        assert doc_ids(root / "data") == ["a.txt", "b.txt", "keep.log"]

    def test_a_rule_for_everything_below_applies_as_in_ripgrep(self, tmp_path: Path) -> None:
        root = make_repository(tmp_path / "repo", {".gitignore": "data/**\n", **DATA})
        assert doc_ids(root / "data") == []
        assert doc_ids(root / "data", gitignore=False) == ["a.txt", "b.txt", "sub/c.txt"]

    def test_a_gitignore_inside_the_named_directory_still_applies(self, tmp_path: Path) -> None:
        files = {".gitignore": "data/\n", "data/.gitignore": "b.txt\n", **DATA}
        root = make_repository(tmp_path / "repo", files)
        assert doc_ids(root / "data") == ["a.txt", "sub/c.txt"]
        assert doc_ids(root / "data", gitignore=False) == ["a.txt", "b.txt", "sub/c.txt"]

    def test_the_repository_exclude_file_follows_the_same_rule(self, tmp_path: Path) -> None:
        root = make_repository(tmp_path / "repo", DATA)
        (root / ".git" / "info").mkdir()
        (root / ".git" / "info" / "exclude").write_text("data/\nsub/\n")
        assert doc_ids(root) == ["src/main.txt"]
        assert doc_ids(root / "data") == ["a.txt", "b.txt"]

    def test_a_named_hidden_directory_is_walked_and_its_hidden_entries_skipped(
        self, tmp_path: Path
    ) -> None:
        root = make_tree(tmp_path / "t", {".notes/a.txt": "a", ".notes/.draft.txt": "d"})
        assert doc_ids(root) == []
        assert doc_ids(root / ".notes") == ["a.txt"]


class TestSkipped:
    def test_skipped_entries_are_counted_by_reason(self, tmp_path: Path) -> None:
        files: dict[str, str | bytes] = {
            ".gitignore": "*.log\nbuild/\n",
            "a.log": "l",
            "b.log": "l",
            "build/out.txt": "o",
            ".env": "e",
            ".cache/x.txt": "x",
            "image.png": PNG,
            "drafts/wip.md": "w",
            "notes.txt": "n",
            "keep.md": "k",
        }
        root = make_repository(tmp_path / "repo", files)
        options = WalkOptions(exclude=make_globs(["drafts/"]), root=str(root))
        found = find_inputs([str(root)], options)
        assert [i.doc_id for i in found.inputs] == ["keep.md", "notes.txt"]
        assert found.skipped == (
            Skipped("gitignore", files=2, directories=1),
            Skipped("hidden", files=2, directories=1),
            Skipped("excluded", directories=1),
            Skipped("binary", files=1),
        )
        assert describe_skipped(found.skipped) == (
            "2 files and 1 directory ignored by .gitignore (use --no-gitignore), "
            "2 hidden files and 1 hidden directory (use --include '*' --include '.*'), "
            "1 directory excluded by --exclude, 1 binary file"
        )
        with_include = find_inputs([str(root)], WalkOptions(include=make_globs(["*.md"])))
        assert with_include.skipped == (
            Skipped("gitignore", files=2, directories=1),
            Skipped("not-included", files=4, directories=1),  # hidden ones among them
        )

    def test_counts_add_up_over_every_walked_directory(self, tmp_path: Path) -> None:
        one = make_tree(tmp_path / "one", {".a": "a", "x.txt": "x"})
        two = make_tree(tmp_path / "two", {".b": "b"})
        found = find_inputs([str(one), str(two), str(one / ".a")], WalkOptions(root=str(tmp_path)))
        assert [i.doc_id for i in found.inputs] == ["one/x.txt", "one/.a"]
        assert found.skipped == (Skipped("hidden", files=2),)
        assert (
            describe_skipped(found.skipped) == "2 hidden files (use --include '*' --include '.*')"
        )
        assert find_inputs([str(one / "x.txt")]).skipped == ()


class TestDocIds:
    """One rule for every input: the path relative to --root (the current directory by default)."""

    def test_a_named_file_and_a_walked_one_get_the_same_doc_id(self, tmp_path: Path) -> None:
        make_tree(tmp_path / "docs", {"tutorial/async.md": "# Async", "index.md": "# Home"})
        named = find_inputs(
            [str(tmp_path / "docs" / "tutorial" / "async.md")], WalkOptions(root=str(tmp_path))
        )
        walked = find_inputs([str(tmp_path / "docs")], WalkOptions(root=str(tmp_path)))
        assert [i.doc_id for i in named.inputs] == ["docs/tutorial/async.md"]
        assert [i.doc_id for i in walked.inputs] == ["docs/index.md", "docs/tutorial/async.md"]

    def test_two_folders_with_the_same_relative_path_stay_apart(self, tmp_path: Path) -> None:
        make_tree(tmp_path / "docs", {"tutorial/first-steps.md": "new"})
        make_tree(tmp_path / "archive" / "v1", {"tutorial/first-steps.md": "old"})
        paths = [str(tmp_path / "docs"), str(tmp_path / "archive" / "v1")]
        found = find_inputs(paths, WalkOptions(root=str(tmp_path)))
        assert [i.doc_id for i in found.inputs] == [
            "docs/tutorial/first-steps.md",
            "archive/v1/tutorial/first-steps.md",
        ]

    def test_the_default_root_is_the_current_directory(self, tmp_path: Path, monkeypatch) -> None:
        make_tree(tmp_path / "docs", {"a.md": "a"})
        monkeypatch.chdir(tmp_path / "docs")
        assert [i.doc_id for i in find_inputs(["a.md"]).inputs] == ["a.md"]
        assert [i.doc_id for i in find_inputs(["."]).inputs] == ["a.md"]
        assert [i.doc_id for i in find_inputs(["../docs/./a.md"]).inputs] == ["a.md"]

    def test_a_file_outside_the_root_keeps_its_absolute_path(self, tmp_path: Path) -> None:
        make_tree(tmp_path / "elsewhere", {"b.txt": "b"})
        make_tree(tmp_path / "root", {"a.txt": "a"})
        found = find_inputs(
            [str(tmp_path / "elsewhere" / "b.txt")], WalkOptions(root=str(tmp_path / "root"))
        )
        assert [i.doc_id for i in found.inputs] == [(tmp_path / "elsewhere" / "b.txt").as_posix()]
        assert doc_id_for("-", str(tmp_path)) == "-"

    def test_a_file_reached_twice_is_taken_once_with_a_note(self, tmp_path: Path) -> None:
        make_tree(tmp_path / "docs", {"a.md": "a", "sub/b.md": "b"})
        paths = [
            str(tmp_path / "docs" / "sub" / "b.md"),
            str(tmp_path / "docs"),
            str(tmp_path / "docs" / "sub"),
        ]
        found = find_inputs(paths, WalkOptions(root=str(tmp_path)))
        assert [i.doc_id for i in found.inputs] == ["docs/sub/b.md", "docs/a.md"]
        assert [(Path(n.path).name, n.code) for n in found.notes] == [
            ("b.md", "duplicate-input"),
            ("b.md", "duplicate-input"),
        ]
        assert found.notes[0].message.endswith(
            f"skipped, the same file as {tmp_path / 'docs' / 'sub' / 'b.md'} (taken once)"
        )
