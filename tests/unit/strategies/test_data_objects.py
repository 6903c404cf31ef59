"""Data files under ``markdown``: whole objects where they fit, key paths, no scalar cut.

The spans of objects, lists and scalars are found here on their own (a small JSON scanner,
PyYAML's node marks, TOML's table headers and inline values), never from the parsers: an
object or list whose span fits in the size (with the closers right after it, which no
boundary can separate from it) is never cut by a chunk's start or end, and a scalar is cut
only when it alone is larger than the size.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES

runner = CliRunner()
DATA = FIXTURES / "data"
_CLOSERS = re.compile(r"[\s,\]}]*")
_BARE = re.compile(r"[^\s,\]}:=]+")
_COMMENTS_ABOVE = re.compile(r"(?:^[ \t]*#[^\n]*\n)+\Z", re.M)


class Node(NamedTuple):
    """A member: from its key (or its first character) to the end of its value."""

    start: int
    end: int
    path: tuple[str, ...]  # its own key path
    container: bool


def split(path: Path, size: int, strategy: str = "markdown") -> list[dict[str, Any]]:
    result = runner.invoke(
        app, ["split", str(path), "-s", strategy, "--size", str(size), "--check"]
    )
    assert result.exit_code == 0, result.stderr
    assert "no violations" in result.stderr
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def json_nodes(text: str, start: int, end: int, root: tuple[str, ...]) -> list[Node]:
    """Every member of the JSON value in ``text[start:end]``, the root included."""
    nodes: list[Node] = []
    stack: list[list[Any]] = []  # [own path, is_object, count, member start]
    key: tuple[int, str] | None = None
    i = start
    while i < end:
        c = text[i]
        if c in " \t\r\n,:=":
            i += 1
            continue
        if c == "#":  # a TOML comment
            i = text.find("\n", i) % (end + 1)
            continue
        if c in "}]":
            path, _, _, begin = stack.pop()
            nodes.append(Node(begin, i + 1, path, container=True))
            i += 1
            continue
        if c == '"':
            close = i + 1
            while text[close] != '"':
                close += 2 if text[close] == "\\" else 1
            token_end = close + 1
        elif c in "{[":
            token_end = i + 1
        else:
            match = _BARE.match(text, i)
            assert match
            token_end = match.end()
        top = stack[-1] if stack else None
        if top is not None and top[1] and key is None:
            token = text[i:token_end]
            key = (i, json.loads(token) if c == '"' else token)
            i = token_end
            continue
        if top is None:
            begin, path = i, root
        elif top[1]:
            assert key is not None
            begin, path = key[0], (*top[0], key[1])
        else:
            begin, path = i, (*top[0], str(top[2]))
            top[2] += 1
        key = None
        if c in "{[":
            stack.append([path, c == "{", 0, begin])
        else:
            nodes.append(Node(begin, token_end, path, container=False))
        i = token_end
    return nodes


def yaml_nodes(text: str) -> list[Node]:
    nodes: list[Node] = []

    def walk(node: yaml.Node, begin: int, path: tuple[str, ...]) -> None:
        end = begin + len(text[begin : node.end_mark.index].rstrip())
        nodes.append(Node(begin, end, path, container=not isinstance(node, yaml.ScalarNode)))
        if isinstance(node, yaml.MappingNode):
            for name, value in node.value:
                walk(value, name.start_mark.index, (*path, str(name.value)))
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                walk(item, item.start_mark.index, (*path, str(index)))

    walk(yaml.compose(text), 0, ())
    return nodes


def toml_nodes(text: str) -> list[Node]:
    """Tables from their header to the next one; inline arrays and tables with their key."""
    nodes: list[Node] = []
    headers = [m.start() for m in re.finditer(r"^\[", text, re.M)]
    for index, begin in enumerate(headers):
        end = headers[index + 1] if index + 1 < len(headers) else len(text)
        nodes.append(Node(begin, begin + len(text[begin:end].rstrip()), (), container=True))
    for match in re.finditer(r"^([\w.-]+) = ([\[{])", text, re.M):
        value = json_nodes(text, match.start(2), len(text), ())
        # the scanner reads TOML's inline arrays of strings and numbers as JSON
        outer = next(n for n in value if n.start == match.start(2))
        nodes.append(Node(match.start(), outer.end, (), container=True))
        nodes += [n for n in value if not n.container and n.end <= outer.end]
    return nodes


def jsonl_nodes(text: str) -> list[Node]:
    nodes: list[Node] = []
    for number, line in enumerate(re.finditer(r"[^\n]+", text), start=1):
        nodes += json_nodes(text, line.start(), line.end(), (f"line {number}",))
    return nodes


def nested_json(*, indent: int | None) -> str:
    """Several objects of about 150 characters in a list, and a large object holding more."""
    stations = [
        {
            "id": n,
            "name": f"gauge {n}",
            "where": {"lat": 50.1 + n / 100, "lon": -4.2},
            "note": "checked by the field team at low water" + " again" * (n % 3),
        }
        for n in range(9)
    ]
    archive = {
        f"year {2010 + n}": {"gaps": [n, n + 3], "readings": 8760 - n, "kept by": "the partnership"}
        for n in range(6)
    }
    data = {"title": "Wend estuary gauges", "stations": stations, "archive": {"years": archive}}
    return json.dumps(data, indent=indent)


def check_whole(text: str, records: list[dict[str, Any]], nodes: list[Node], size: int) -> None:
    starts = {r["start"] for r in records}
    ends = {r["end"] for r in records}
    assert all(text[r["start"] : r["end"]] == r["text"] for r in records)
    for node in nodes:
        reach = _CLOSERS.match(text, node.end)
        assert reach
        reach_end = node.end + len(text[node.end : reach.end()].rstrip())
        line = text.rfind("\n", 0, node.start) + 1
        above = _COMMENTS_ABOVE.search(text, 0, line)
        begin = above.start() if above and not text[line : node.start].strip(" -") else node.start
        if reach_end - begin > size:
            continue
        inside = [b for b in starts | ends if node.start < b < node.end]
        what = "object or list" if node.container else "scalar"
        assert not inside, f"{what} {node.path} {text[node.start : node.end]!r} cut at {inside}"


def test_generated_objects_stay_whole_and_chunks_start_at_their_key_path(tmp_path: Path) -> None:
    for indent in (2, None):
        path = tmp_path / f"stations-{indent}.json"
        text = nested_json(indent=indent)
        path.write_text(text, encoding="utf-8")
        nodes = json_nodes(text, 0, len(text), ())
        assert any(130 <= n.end - n.start <= 200 for n in nodes if n.path[:1] == ("stations",))
        records = split(path, 400)
        check_whole(text, records, nodes, 400)
        by_start = {n.start: n for n in nodes}
        for record in records:
            node = by_start[record["start"]]
            own = node.path if node.container else node.path[:-1]
            assert tuple(record["headings"]) == own, record["text"][:40]
        # several whole stations share a chunk: the packing is not one object per chunk
        stations = [n for n in nodes if len(n.path) == 2 and n.path[0] == "stations"]
        in_stations = [r for r in records if r["headings"][:1] == ["stations"]]
        assert len(in_stations) < len(stations)


@pytest.mark.parametrize("size", [120, 200, 300, 400])
def test_fixtures_keep_whole_objects_and_scalars(size: int) -> None:
    cases = {
        "package.json": lambda t: json_nodes(t, 0, len(t), ()),
        "events.jsonl": jsonl_nodes,
        "config.yaml": yaml_nodes,
        "pyproject.toml": toml_nodes,
    }
    for name, find in cases.items():
        text = (DATA / name).read_text(encoding="utf-8")
        check_whole(text, split(DATA / name, size), find(text), size)


def test_heading_paths_name_list_items_and_nested_keys() -> None:
    records = split(DATA / "config.yaml", 60)
    paths = {" › ".join(r["headings"]): r["text"] for r in records}
    assert paths["servers › 1 › ports"].startswith("ports:")
    assert paths["servers › 0"].startswith("- name: weir")
    events = split(DATA / "events.jsonl", 200)
    lines = [r["headings"][0] for r in events]
    assert list(dict.fromkeys(lines)) == ["line 1", "line 2", "line 3", "line 4"]
    assert lines.count("line 1") == lines.count("line 2") == 1  # each fits whole


def test_a_scalar_larger_than_the_size_alone_is_cut_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "long.json"
    long = " ".join(f"word{n}" for n in range(120))
    path.write_text(json.dumps({"a": {"short": 1, "long": long}, "b": [1, 2]}, indent=2))
    records = split(path, 200)
    text = path.read_text()
    member = (text.index('"long"'), text.index(long) + len(long) + 1)
    cut = [(r["start"], r["end"]) for r in records if r["metadata"].get("oversize_split")]
    assert len(cut) > 1
    assert all(member[0] <= start and end <= member[1] + 8 for start, end in cut)
    assert records[-1]["headings"] == ["b"]
    assert records[-1]["text"].startswith('"b": [')


def test_auto_keeps_whole_objects_in_data_files(tmp_path: Path) -> None:
    path = tmp_path / "stations.json"
    text = nested_json(indent=2)
    path.write_text(text, encoding="utf-8")
    records = split(path, 400, "auto")
    assert {r["strategy"] for r in records} == {"markdown"}
    check_whole(text, records, json_nodes(text, 0, len(text), ()), 400)
