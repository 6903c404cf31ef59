"""ragchunk split through Typer's CliRunner: exact output, exit codes, stdout/stderr kept apart."""

from __future__ import annotations

import itertools
import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.measure import load_tokenizer
from tests.conftest import FIXTURES

runner = CliRunner()
NOTES = FIXTURES / "text" / "field-notes.txt"
TEXT = (
    "Chunking is easy to get almost right. The hard part is the edges: a sentence cut in two, "
    "a table row split from its header, an emoji 👨‍👩‍👧 broken into pieces.\n\n"
    "ragchunk keeps every chunk verbatim, so text == input[start:end] always holds."
)


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_stdin_chunks_are_verbatim_and_within_size() -> None:
    result = runner.invoke(app, ["split", "-", "--size", "40", "--overlap", "8"], input=TEXT)
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    chunks = records(result.stdout)
    assert len(chunks) >= 6
    for chunk in chunks:
        assert chunk["text"] == TEXT[chunk["start"] : chunk["end"]]  # type: ignore[misc]
        assert chunk["chars"] <= 40  # type: ignore[operator]
        assert chunk["doc_id"] == "-"
    assert [c["index"] for c in chunks] == list(range(len(chunks)))


def test_overlap_equal_to_size_is_a_usage_error_in_one_sentence() -> None:
    result = runner.invoke(app, ["split", "-", "--size", "10", "--overlap", "10"], input=TEXT)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "Error: --overlap must be smaller than --size (got 10 >= 10)\n"


def test_unknown_strategy_suggests_the_closest_name() -> None:
    result = runner.invoke(app, ["split", "-", "-s", "recurive"], input=TEXT)
    assert result.exit_code == 2
    assert "did you mean 'recursive'?" in result.stderr
    assert result.stderr.count("\n") == 1


def test_unknown_strategy_option_lists_the_valid_ones() -> None:
    result = runner.invoke(app, ["split", "-", "-O", "separator=x"], input=TEXT)
    assert result.exit_code == 2
    assert result.stderr == (
        "Error: separator is not an option of the recursive strategy (its options: separators); "
        "did you mean 'separators'?\n"
    )


def test_malformed_option_assignment_is_a_usage_error() -> None:
    result = runner.invoke(app, ["split", "-", "-O", "separators"], input=TEXT)
    assert result.exit_code == 2
    assert result.stderr == "Error: -O expects key=value (got 'separators')\n"


def test_custom_separators_are_used() -> None:
    result = runner.invoke(
        app,
        ["split", "-", "--size", "60", "--overlap", "0", "-O", 'separators=[": "]'],
        input="alpha: beta: gamma: delta: epsilon: zeta: eta: theta: iota: kappa: lambda: mu",
    )
    assert result.exit_code == 0, result.stderr
    assert all(c["text"].endswith(": ") for c in records(result.stdout)[:-1])  # type: ignore[union-attr]


def test_token_windows_fit_their_size_overlap_and_cover_the_text() -> None:
    result = runner.invoke(
        app,
        [
            "split",
            str(NOTES),
            "-s",
            "token",
            "--size",
            "64",
            "--overlap",
            "16",
            "--tokenizer",
            "cl100k_base",
        ],
    )
    assert result.exit_code == 0, result.stderr
    text = NOTES.read_text(encoding="utf-8")
    count = load_tokenizer("cl100k_base").count
    chunks = records(result.stdout)
    covered = 0
    for before, after in itertools.pairwise(chunks):
        assert count(text[after["start"] : before["end"]]) <= 16  # type: ignore[misc]
    for chunk in chunks:
        assert count(chunk["text"]) <= 64  # type: ignore[arg-type]
        assert chunk["tokens"] == count(chunk["text"])  # type: ignore[arg-type]
        assert text[covered : chunk["start"]].strip() == ""  # type: ignore[misc]
        covered = max(covered, chunk["end"])  # type: ignore[call-overload]
    assert text[covered:].strip() == ""


def test_output_file_holds_what_stdout_would(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    to_file = runner.invoke(app, ["split", str(NOTES), "-o", str(out)])
    to_stdout = runner.invoke(app, ["split", str(NOTES)])
    assert to_file.exit_code == 0
    assert to_file.stdout == ""
    assert out.read_text(encoding="utf-8") == to_stdout.stdout
    assert [p.name for p in tmp_path.iterdir()] == ["chunks.jsonl"]


def test_an_output_device_is_written_never_replaced(tmp_path: Path) -> None:
    """Regression: ``-o /dev/null`` replaced the device with a regular file (as root, for the
    whole machine). The device here is a node made in tmp_path: tests never write to /dev."""
    node = tmp_path / "null"
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs root (CI runs as root)")
    result = runner.invoke(
        app, ["split", str(FIXTURES / "text" / "field-notes.txt"), "-o", str(node)]
    )
    assert result.exit_code == 0, result.output
    assert stat.S_ISCHR(node.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_missing_input_fails_alone_and_the_others_are_written(tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    result = runner.invoke(app, ["split", str(NOTES), str(tmp_path / "gone.txt"), "-o", str(out)])
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"error: {tmp_path / 'gone.txt'}: cannot read (No such file or directory)\n"
    )
    written = records(out.read_text(encoding="utf-8"))
    assert {c["source"] for c in written} == {str(NOTES)}


def test_table_shows_one_row_per_chunk_with_visible_newlines() -> None:
    result = runner.invoke(
        app, ["split", str(NOTES), "--size", "300", "--table"], env={"COLUMNS": "160"}
    )
    assert result.exit_code == 0
    assert "field-notes.txt · 14 chunks" in result.stdout
    assert "↵" in result.stdout
    assert "Field Notes on Retrieval" in result.stdout


def test_stats_go_to_stderr_and_stdout_keeps_the_chunks() -> None:
    # The pipeline convention: --stats is a summary beside the data, never instead of it.
    result = runner.invoke(
        app,
        ["split", str(NOTES), "--size", "300", "--stats", "--count-tokens"],
        env={"COLUMNS": "120"},
    )
    assert result.exit_code == 0
    assert "14 chunks from 1 document(s)" in result.stderr
    assert "tokens" in result.stderr
    plain = runner.invoke(app, ["split", str(NOTES), "--size", "300", "--count-tokens"])
    assert result.stdout == plain.stdout  # the JSONL, unchanged, and nothing else
    assert len(records(result.stdout)) == 14


def test_stats_with_a_table_keep_the_table_on_stdout() -> None:
    result = runner.invoke(
        app, ["split", str(NOTES), "--size", "300", "--stats", "--table"], env={"COLUMNS": "120"}
    )
    assert result.exit_code == 0
    assert "field-notes.txt · 14 chunks" in result.stdout
    assert "14 chunks from 1 document(s)" not in result.stdout
    assert "14 chunks from 1 document(s)" in result.stderr


def test_usage_names_several_paths_and_help_shows_no_markup() -> None:
    split_help = runner.invoke(app, ["split", "--help"], env={"COLUMNS": "100"}).stdout
    assert split_help.startswith("Usage: ragchunk split [OPTIONS] PATH...\n")
    inspect_help = runner.invoke(app, ["inspect", "--help"], env={"COLUMNS": "100"}).stdout
    assert inspect_help.startswith("Usage: ragchunk inspect [OPTIONS] PATH\n")
    assert "[bold]" not in inspect_help
    assert "[/" not in inspect_help
    assert "--text prints the extracted document text exactly" in " ".join(inspect_help.split())
    stats_help = runner.invoke(app, ["stats", "--help"], env={"COLUMNS": "100"}).stdout
    assert stats_help.startswith("Usage: ragchunk stats [OPTIONS] FILE...\n")


def test_invalid_utf8_is_decoded_with_a_warning_and_exact_offsets(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(b"caf\xe9 au lait\n")
    result = runner.invoke(app, ["split", str(path)])
    assert result.exit_code == 0
    assert result.stderr == (
        f"warning: {path}: invalid UTF-8 from byte 3; 1 sequence(s) replaced with U+FFFD\n"
    )
    assert records(result.stdout)[0]["text"] == "caf\ufffd au lait\n"


def test_utf8_bom_is_not_part_of_the_text(tmp_path: Path) -> None:
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffhello".encode())
    chunk = records(runner.invoke(app, ["split", str(path)]).stdout)[0]
    assert (chunk["text"], chunk["start"], chunk["end"]) == ("hello", 0, 5)


def test_binary_input_fails_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = runner.invoke(app, ["split", str(path)])
    assert result.exit_code == 1
    assert result.stderr == f"error: {path}: binary data, not text (it holds zero bytes)\n"


def test_ids_are_stable_across_runs_and_change_with_options() -> None:
    first = records(runner.invoke(app, ["split", str(NOTES)]).stdout)
    second = records(runner.invoke(app, ["split", str(NOTES)]).stdout)
    other = records(runner.invoke(app, ["split", str(NOTES), "--size", "400"]).stdout)
    assert [c["id"] for c in first] == [c["id"] for c in second]
    assert len({c["id"] for c in first}) == len(first)
    assert first[0]["id"] != other[0]["id"]


def test_version_and_strategies() -> None:
    assert runner.invoke(app, ["--version"]).stdout.startswith("ragchunk 0.")
    listing = runner.invoke(app, ["strategies"], env={"COLUMNS": "200"}).stdout
    for name in ("fixed", "recursive", "token", "separators"):
        assert name in listing


def test_help_teaches_by_example() -> None:
    result = runner.invoke(app, ["split", "--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0
    assert "ragchunk split notes.txt" in result.stdout
    assert "--overlap" in result.stdout
