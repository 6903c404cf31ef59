"""JSON, JSONL, YAML and TOML: the text verbatim, key paths as headings, no scalar cut in two."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import InputError
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.json import parse as parse_json
from ragchunk.parsers.jsonl import parse as parse_jsonl
from ragchunk.parsers.toml import parse as parse_toml
from ragchunk.parsers.yaml import parse as parse_yaml
from tests.conftest import FIXTURES

runner = CliRunner()
DATA = FIXTURES / "data"
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")


def split(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["split", *args, "--check"])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def headings(records: list[dict[str, Any]]) -> list[str]:
    return [" › ".join(r["headings"]) for r in records]


def tiles(doc: Document) -> None:
    """The sections are in order, apart, and cover every non-blank character."""
    position = 0
    for section in doc.sections:
        assert section.start >= position
        assert not doc.text[position : section.start].strip()
        position = section.end
    assert not doc.text[position:].strip()


def test_json_text_is_verbatim_and_top_level_containers_are_headings() -> None:
    path = DATA / "package.json"
    doc = parse_json(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text == path.read_text(encoding="utf-8")
    tiles(doc)
    records = split(str(path), "-s", "markdown", "--size", "300")
    assert headings(records) == [
        "",
        "scripts",
        "dependencies",
        "devDependencies",
        "engines",
        "repository",
        "keywords",
    ]
    assert records[1]["text"].startswith('"scripts": {')
    assert records[1]["text"].endswith("},")


SERVERS = {
    "servers": [
        {"name": "weir", "host": "10.20.0.11", "ports": list(range(8000, 8030))},
        {"name": "harbour", "host": "10.20.0.14", "ports": [502, 8080]},
    ],
    "note": "x" * 150,
}


@pytest.mark.parametrize("indent", [2, None], ids=["pretty", "minified"])
def test_key_paths_and_no_scalar_cut_in_two(tmp_path: Path, indent: int | None) -> None:
    path = tmp_path / "servers.json"
    path.write_text(json.dumps(SERVERS, indent=indent), encoding="utf-8")
    text = path.read_text(encoding="utf-8")
    records = split(str(path), "-s", "markdown", "--size", "100")
    assert "servers › 0 › ports" in headings(records)
    scalars = [m.span() for m in _STRING.finditer(text)]
    scalars += [m.span() for m in _NUMBER.finditer(text) if not _inside(m.start(), scalars)]
    for record in records:
        for cut in (record["start"], record["end"]):
            inside = [s for s in scalars if s[0] < cut < s[1]]
            # Only the one scalar longer than the size (the note) is cut, and flagged.
            assert not inside or record["metadata"].get("oversize_split"), record["text"]
            assert all(s[1] - s[0] > 100 for s in inside)


def _inside(offset: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= offset < end for start, end in spans)


def test_jsonl_records_are_paths_by_line() -> None:
    path = DATA / "events.jsonl"
    doc = parse_jsonl(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text == path.read_text(encoding="utf-8")
    tiles(doc)
    assert [s.headings for s in doc.sections if s.start in _line_starts(doc.text)] == [
        ("line 1",),
        ("line 2",),
        ("line 3",),
        ("line 4",),
    ]
    records = split(str(path), "-s", "markdown", "--size", "200")
    assert "line 3" in headings(records)


def _line_starts(text: str) -> set[int]:
    return {0, *(m.end() for m in re.finditer("\n", text))}


def test_yaml_sections_start_at_dashes_and_comments_and_skip_aliases() -> None:
    path = DATA / "config.yaml"
    doc = parse_yaml(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text == path.read_text(encoding="utf-8")
    tiles(doc)
    starts = {doc.text[s.start : s.end].split("\n")[0]: s for s in doc.sections}
    harbour = starts["- name: harbour"]
    assert harbour.headings == ("servers", "1")
    assert starts["ports:"].headings == ("servers", "1", "ports")
    assert starts["servers:"].kind == "heading"
    assert doc.sections[0].start == 0  # the leading comment goes with the first key
    records = split(str(path), "-s", "markdown", "--size", "300")
    assert headings(records)[:4] == ["service", "defaults", "servers", "alerts"]


def test_yaml_documents_and_comments_above_keys() -> None:
    text = "# first\na: 1\n---\n# the second\nb:\n  # c's comment\n  c: [1, 2]\n  d: 3\n"
    doc = parse_yaml(text.encode(), ParseRequest(source="two.yaml"))
    tiles(doc)
    found = [(s.kind, s.headings, doc.text[s.start : s.end]) for s in doc.sections]
    assert found == [
        ("value", ("document 1",), "# first\na: 1\n---"),
        ("heading", ("document 2", "b"), "# the second\nb:"),
        ("value", ("document 2", "b", "c"), "# c's comment\n  c: [1,"),
        ("value", ("document 2", "b", "c"), "2]"),
        ("value", ("document 2", "b"), "d: 3"),
    ]


def test_toml_tables_arrays_of_tables_and_multiline_values() -> None:
    path = DATA / "pyproject.toml"
    doc = parse_toml(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text == path.read_text(encoding="utf-8")
    tiles(doc)
    tables = [s.headings for s in doc.sections if s.kind == "heading"]
    assert tables == [
        ("build-system",),
        ("project",),
        ("project", "optional-dependencies"),
        ("project", "scripts"),
        ("tool", "ruff"),
        ("tool", "gauges", "site", "0"),
        ("tool", "gauges", "site", "1"),
    ]
    by_text = {doc.text[s.start : s.end].split(" =")[0]: s.headings for s in doc.sections}
    assert by_text["dependencies"] == ("project", "dependencies")
    assert by_text["lint.select"] == ("tool", "ruff", "lint", "select")
    # A line inside a multi-line string or array is never a key of its own.
    assert doc.text[doc.sections[-1].start : doc.sections[-1].end].startswith('notes = """')
    text = 'a = """\nb = 1\n"""\nc = [\n  "d = 2",\n]\n'
    inner = parse_toml(text.encode(), ParseRequest(source="m.toml"))
    assert [inner.text[s.start : s.end].split("\n")[0] for s in inner.sections] == [
        'a = """',
        "c = [",
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.json", '{\n  "a": 1,\n  "b": }\n', "invalid JSON at line 3:8: Expecting value"),
        ("bad.jsonl", '{"a": 1}\n{"b": 2\n', "invalid JSON at line 2:8: Expecting ',' delimiter"),
        ("bad.yaml", "a: 1\nb: [1, 2\nc: 3\n", "invalid YAML at line 3:2:"),
        ("bad.toml", 'a = 1\nb = "x\n', "invalid TOML at line 2:7: Illegal character"),
        ("bad.ipynb", "{\n  cells: []\n}", "not a Jupyter notebook: invalid JSON at line 2:3"),
    ],
)
def test_bad_data_fails_alone_with_one_line_naming_line_and_column(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    bad = tmp_path / name
    bad.write_text(content, encoding="utf-8")
    good = tmp_path / "good.json"
    good.write_text('{"ok": true}\n', encoding="utf-8")
    result = runner.invoke(app, ["split", str(tmp_path)])
    assert result.exit_code == 1
    (line,) = [line for line in result.stderr.splitlines() if str(bad) in line]
    assert f"{bad}: {message}" in line, line
    assert "Traceback" not in result.stderr
    (record,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert record["text"].strip() == '{"ok": true}'


def test_deep_nesting_is_refused_not_crashed() -> None:
    for text in ("[" * 100_000 + "]" * 100_000, "[" * 100_000):
        with pytest.raises(InputError, match=r"^d\.json: "):
            parse_json(text.encode(), ParseRequest(source="d.json"))


def test_yaml_aliases_are_not_expanded_and_deep_nesting_is_refused() -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for i in range(20):  # a billion laughs: 9**20 items if aliases were followed
        name, previous = chr(98 + i), chr(97 + i)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    text = "\n".join(lines) + "\n"
    doc = parse_yaml(text.encode(), ParseRequest(source="laughs.yaml"))
    assert len(doc.sections) < 40
    with pytest.raises(InputError, match=r"^deep\.yaml: "):
        parse_yaml(("[" * 50_000 + "]" * 50_000).encode(), ParseRequest(source="deep.yaml"))
