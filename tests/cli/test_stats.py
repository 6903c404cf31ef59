"""ragchunk stats: exact summaries of chunk files and standard input."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
WIDE = {"COLUMNS": "100"}


def record(
    doc: str,
    index: int,
    start: int,
    end: int,
    tokens: int | None = None,
    pages: tuple[int, int] | None = None,
    headings: tuple[str, ...] = (),
) -> str:
    chunk: dict[str, object] = {
        "id": f"{doc}-{index}",
        "doc_id": doc,
        "source": f"src/{doc}",
        "index": index,
        "text": "x" * (end - start),
        "start": start,
        "end": end,
        "headings": list(headings),
        "strategy": "recursive",
        "chars": end - start,
        "metadata": {},
    }
    if tokens is not None:
        chunk["tokens"] = tokens
    if pages is not None:
        chunk["page_start"], chunk["page_end"] = pages
    return json.dumps(chunk) + "\n"


CHUNKS = (
    record("a.pdf", 0, 0, 100, 20, (1, 1), ("Intro",))
    + record("a.pdf", 1, 90, 250, 35, (1, 2), ("Intro", "Scope"))
    + record("a.pdf", 2, 240, 300, 12, (2, 2), ("Intro", "Scope"))
    + record("b.txt", 0, 0, 40, 9)
    + record("b.txt", 1, 40, 95, 11)
)

SIZE_TABLE = [
    "┏━━━━━━━━┳━━━━━━━━┳━━━━━┳━━━━━━━━┳━━━━━┳━━━━━┳━━━━━━━┓",
    "┃ unit   ┃ chunks ┃ min ┃ median ┃ p95 ┃ max ┃ total ┃",
    "┡━━━━━━━━╇━━━━━━━━╇━━━━━╇━━━━━━━━╇━━━━━╇━━━━━╇━━━━━━━┩",
    "│ chars  │      5 │  40 │     60 │ 160 │ 160 │   415 │",
    "│ tokens │      5 │   9 │     12 │  35 │  35 │    87 │",
    "└────────┴────────┴─────┴────────┴─────┴─────┴───────┘",
]
# rich pads a table's title to the table's width.
TITLE = "5 chunks from 2 document(s) · strategy recursive".ljust(len(SIZE_TABLE[0]))
SIZES = "\n".join([TITLE, *SIZE_TABLE]) + "\n"

STRUCTURE = """\
pages: 3 of 5 chunks carry pages, 1 span more than one; last page 2
headings: 3 of 5 chunks sit under a heading; 2 distinct path(s), deepest 2
overlap: 2 of 3 consecutive pairs overlap, by 10 chars
"""


def test_a_file_with_a_limit(tmp_path: Path) -> None:
    path = tmp_path / "chunks.jsonl"
    path.write_text(CHUNKS, encoding="utf-8")
    result = runner.invoke(app, ["stats", str(path), "--limit", "100"], env=WIDE)
    assert (result.exit_code, result.stderr) == (0, "")
    bar = "█" * 40
    half = "█" * 20
    assert result.stdout == (
        SIZES
        + "size histogram (chars)                                     \n"
        + "   chars  chunks                                           \n"
        + f"   40–59       2  {bar} \n"
        + f"   60–79       1  {half.ljust(40)} \n"
        + f"   80–99       0  {''.ljust(40)} \n"
        + f" 100–119       1  {half.ljust(40)} \n"
        + f" 120–139       0  {''.ljust(40)} \n"
        + f" 140–159       0  {''.ljust(40)} \n"
        + f" 160–179       1  {half.ljust(40)} \n"
        + "1 of 5 chunks are over 100 chars\n"
        + "┏━━━━━━━━┳━━━━━━━┳━━━━━━━┓\n"
        + "┃ doc_id ┃ index ┃ chars ┃\n"
        + "┡━━━━━━━━╇━━━━━━━╇━━━━━━━┩\n"
        + "│ a.pdf  │     1 │   160 │\n"
        + "└────────┴───────┴───────┘\n"
        + "2 document(s); chunks per document: min 2, median 2.5, max 3\n"
        + "┏━━━━━━━━┳━━━━━━━━┳━━━━━━━┓\n"
        + "┃ doc_id ┃ chunks ┃ chars ┃\n"
        + "┡━━━━━━━━╇━━━━━━━━╇━━━━━━━┩\n"
        + "│ a.pdf  │      3 │   320 │\n"
        + "│ b.txt  │      2 │    95 │\n"
        + "└────────┴────────┴───────┘\n"
        + STRUCTURE
    )


def test_standard_input_in_tokens_with_the_top_document() -> None:
    result = runner.invoke(
        app, ["stats", "-", "--unit", "tokens", "--top", "1"], input=CHUNKS, env=WIDE
    )
    assert (result.exit_code, result.stderr) == (0, "")
    lines = result.stdout.splitlines()
    assert lines[7:10] == [
        "size histogram (tokens)                                   ",
        " tokens  chunks                                           ",
        f"    5–9       1  {'█' * 20}{' ' * 20} ",
    ]
    assert (
        "2 document(s); chunks per document: min 2, median 2.5, max 3; "
        "the 1 with the most chunks" in lines
    )
    assert "│ b.txt  │      2 │    95 │" not in lines


def test_bad_lines_and_missing_files_fail_after_the_others(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(CHUNKS + '{"doc_id": "x"}\n', encoding="utf-8")
    good = tmp_path / "good.jsonl"
    good.write_text(CHUNKS, encoding="utf-8")
    result = runner.invoke(app, ["stats", str(bad), str(good), str(tmp_path / "gone")], env=WIDE)
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {bad}:6: not a chunk record (start is missing or not a whole number)\n"
        f"error: {tmp_path / 'gone'}: cannot read (No such file or directory)\n"
    )
    assert result.stdout.startswith("10 chunks from 2 document(s)")  # good, and bad's 5 first


def test_tokens_unit_needs_token_counts() -> None:
    plain = record("a", 0, 0, 10)
    result = runner.invoke(app, ["stats", "-", "--unit", "tokens"], input=plain)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (
        "Error: --unit tokens needs chunks with token counts "
        "(split with --count-tokens or --unit tokens)\n"
    )


def test_split_output_round_trips_into_stats() -> None:
    notes = str(FIXTURES / "text" / "field-notes.txt")
    split = runner.invoke(app, ["split", notes, "--size", "300", "--count-tokens"])
    result = runner.invoke(app, ["stats", "-"], input=split.stdout, env=WIDE)
    assert result.exit_code == 0
    assert result.stdout.startswith("14 chunks from 1 document(s) · strategy recursive")
    assert "pages: none (no paged inputs)" in result.stdout


def test_doc_ids_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """A doc_id holding a clear-screen, a title sequence or a line feed stays one plain cell."""
    hostile = "a\x1b[2J\x1b]0;owned\x07b\nc"
    path = tmp_path / "chunks.jsonl"
    path.write_text(record(hostile, 0, 0, 40) + record("plain", 0, 0, 30), encoding="utf-8")
    result = runner.invoke(app, ["stats", str(path)], env=WIDE)
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    # The documents table: three columns, one row per document (the line feed split none).
    rows = [line for line in result.stdout.splitlines() if line.count("│") == 4]
    cells = [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]
    assert cells == [["a\\x1b[2J\\x1b]0;owned\\x07b\\nc", "1", "40"], ["plain", "1", "30"]]
