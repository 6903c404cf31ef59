"""ragchunk split on source code: --language, the code strategy, and the --table preview."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
CODE = FIXTURES / "code"
LANGUAGE_LIST = (
    "c, cpp, csharp, go, java, javascript, kotlin, php, python, ruby, rust, swift, tsx, typescript"
)
SOURCE = (
    "import math\n\n\n"
    "class Circle:\n"
    "    def __init__(self, r):\n"
    "        self.r = r\n\n"
    "    def area(self):\n"
    "        return math.pi * self.r**2\n"
)


def records(stdout: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_an_unknown_language_is_a_usage_error_listing_the_languages() -> None:
    result = runner.invoke(app, ["split", "-", "--language", "pyton"], input=SOURCE)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: --language 'pyton' is unknown (choose from {LANGUAGE_LIST}); "
        "did you mean 'python'?\n"
    )


def test_language_makes_standard_input_code() -> None:
    result = runner.invoke(
        app, ["split", "-", "-s", "code", "--language", "python", "--size", "20"], input=SOURCE
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    chunks = records(result.stdout)
    assert [(c["metadata"], c["headings"]) for c in chunks] == [
        ({"language": "python", "symbol": "Circle.__init__", "kind": "method"}, ["Circle"]),
        ({"language": "python", "symbol": "Circle.area", "kind": "method"}, ["Circle"]),
    ]
    assert all(c["tokens"] <= 20 for c in chunks)  # type: ignore[operator]
    assert [(c["line_start"], c["line_end"]) for c in chunks] == [(1, 6), (8, 9)]
    # "import math" (2 tokens) is too small to stand alone: it leads the class's first chunk.
    assert str(chunks[0]["text"]).startswith("import math\n\n\nclass Circle:\n    def __init__")


def test_language_overrides_the_extension(tmp_path: Path) -> None:
    path = tmp_path / "snippet.txt"
    path.write_text('fn main() {\n    println!("hi");\n}\n', encoding="utf-8")
    result = runner.invoke(app, ["split", str(path), "-s", "code", "--language", "rust"])
    assert result.exit_code == 0, result.stderr
    [chunk] = records(result.stdout)
    assert chunk["metadata"] == {"language": "rust", "symbol": "main", "kind": "function"}


NO_LANGUAGE = (
    "error: -: cannot tell the programming language of standard input (no known extension, "
    f"no #! line); pass --language (one of {LANGUAGE_LIST})\n"
)


def test_code_format_without_a_language_fails_for_that_input_only() -> None:
    result = runner.invoke(app, ["split", "-", "--format", "code"], input=SOURCE)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == NO_LANGUAGE


def test_the_code_strategy_on_standard_input_asks_for_the_language() -> None:
    # Before: standard input was text, packed by lines without a word (metadata {}).
    result = runner.invoke(app, ["split", "-", "-s", "code"], input=SOURCE)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == NO_LANGUAGE


def test_the_code_strategy_reads_standard_input_in_the_language_of_its_shebang() -> None:
    script = "#!/usr/bin/env python3\n" + SOURCE
    result = runner.invoke(app, ["split", "-", "-s", "code", "--size", "20"], input=script)
    assert result.exit_code == 0, result.stderr
    chunks = records(result.stdout)
    assert {c["metadata"]["language"] for c in chunks} == {"python"}  # type: ignore[index]
    assert [c["metadata"]["symbol"] for c in chunks] == [  # type: ignore[index]
        "<top-level>",
        "Circle.__init__",
        "Circle.area",
    ]
    # --format text still asks for line packing, and other strategies still read text.
    plain = runner.invoke(app, ["split", "-", "-s", "code", "--format", "text"], input=SOURCE)
    assert plain.exit_code == 0
    assert all(c["metadata"] == {} for c in records(plain.stdout))
    assert runner.invoke(app, ["split", "-", "-s", "recursive"], input=SOURCE).exit_code == 0


def test_code_strategy_on_a_text_file_packs_lines() -> None:
    notes = FIXTURES / "text" / "field-notes.txt"
    result = runner.invoke(
        app, ["split", str(notes), "-s", "code", "--size", "300", "--unit", "chars"]
    )
    assert result.exit_code == 0, result.stderr
    chunks = records(result.stdout)
    assert all(c["metadata"] == {} for c in chunks)
    assert all(str(c["text"]).endswith("\n") for c in chunks[:-1])


def table_rows(stdout: str) -> dict[str, list[list[str]]]:
    """Return, per table title's document, each row's cells (folded lines joined)."""
    tables: dict[str, list[list[str]]] = {}
    current: list[list[str]] = []
    for line in stdout.splitlines():
        if " · " in line and line.rstrip().endswith("chunks"):
            current = tables.setdefault(line.split(" · ")[0].strip(), [])
        elif line.startswith("│"):
            cells = [cell.strip() for cell in line.strip("│").split("│")]
            if cells[0]:
                current.append(cells)
            else:
                current[-1] = [a + b for a, b in zip(current[-1], cells, strict=True)]
    return tables


def test_table_shows_symbols_and_line_ranges_for_every_chunk() -> None:
    args = ["split", str(CODE), "-s", "code", "--size", "200", "--root", str(CODE)]
    table = runner.invoke(app, [*args, "--table"], env={"COLUMNS": "250"})
    jsonl = runner.invoke(app, args)
    assert table.exit_code == 0, table.stderr
    assert jsonl.exit_code == 0, jsonl.stderr
    tables = table_rows(table.stdout)
    chunks = records(jsonl.stdout)
    assert sorted(tables) == sorted(p.name for p in CODE.iterdir())
    assert sum(len(rows) for rows in tables.values()) == len(chunks)
    for chunk in chunks:
        row = tables[str(chunk["doc_id"])][int(chunk["index"])]  # type: ignore[call-overload]
        index, _, lines, _, _, symbol = row[:6]
        assert index == str(chunk["index"])
        assert lines == f"{chunk['line_start']}–{chunk['line_end']}"
        assert symbol.replace(" ", "") == str(chunk["metadata"]["symbol"]).replace(" ", "")  # type: ignore[index]
        assert symbol
