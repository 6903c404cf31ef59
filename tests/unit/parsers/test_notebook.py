"""Jupyter notebooks: Markdown cells as Markdown, code cells fenced in the kernel's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.parsers._spec import ParseOptions, ParseRequest
from ragchunk.parsers.notebook import parse
from tests.conftest import FIXTURES

runner = CliRunner()
NOTEBOOK = FIXTURES / "notebooks" / "tide-analysis.ipynb"


def split(*args: str) -> list[dict[str, Any]]:
    result = runner.invoke(app, ["split", *args, "--check"])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line) for line in result.stdout.split("\n") if line]


def test_cells_are_markdown_and_fenced_code_in_the_kernel_language() -> None:
    doc = parse(NOTEBOOK.read_bytes(), ParseRequest(source=str(NOTEBOOK)))
    assert doc.format == "notebook"
    assert doc.metadata == {"language": "python"}
    assert doc.text.startswith("# Tide analysis: the Wend gauges\n\nThis notebook reads")
    code = [s for s in doc.sections if s.kind == "code"]
    assert [s.metadata.get("language") for s in code] == ["python", "python", "python", "raw"]
    assert doc.text[code[0].start : code[0].end].startswith("```python\nimport pandas as pd\n")
    assert code[1].headings == ("Tide analysis: the Wend gauges", "Trends", "High waters")
    # Outputs are left out by default: no stream, no result, no error, no image.
    for output in ("871204", "'harbour': 4.1", "NameError", "iVBOR", "<table>", "<Figure"):
        assert output not in doc.text


def test_outputs_true_keeps_text_outputs_only() -> None:
    options = ParseOptions(outputs=True)
    doc = parse(NOTEBOOK.read_bytes(), ParseRequest(source=str(NOTEBOOK), options=options))
    outputs = [s for s in doc.sections if s.metadata.get("language") == "output"]
    texts = [doc.text[s.start : s.end] for s in outputs]
    assert texts == [
        "```output\n{'weir': 871204, 'quay-street': 869990, 'harbour': 873551, "
        "'ferry-steps': 858120}\n```",
        "```output\n{'weir': 2.6, 'quay-street': 3.0, 'harbour': 4.1, 'ferry-steps': 3.8}\n```",
        "```output\n<Figure size 640x480>\n```",
    ]
    for left in ("NameError", "iVBOR", "<table>"):
        assert left not in doc.text


def test_code_cells_stay_whole_where_they_fit_and_headings_are_paths() -> None:
    records = split(str(NOTEBOOK), "-s", "markdown", "--size", "400")
    paths = [" › ".join(r["headings"]) for r in records]
    assert "Tide analysis: the Wend gauges › Trends › High waters" in paths
    records = split(str(NOTEBOOK), "-s", "markdown", "--size", "600")
    text = NOTEBOOK.read_text(encoding="utf-8")
    sources = ["".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "code"]
    for source in sources:
        assert any(source in r["text"] for r in records), source[:40]
    records = split(str(NOTEBOOK), "-O", "outputs=true")
    assert any("871204" in r["text"] for r in records)


def test_the_option_is_checked_and_fences_outlast_backticks(tmp_path: Path) -> None:
    result = runner.invoke(app, ["split", str(NOTEBOOK), "-O", "outputs=maybe"])
    assert result.exit_code == 2
    assert "outputs" in result.stderr
    cell = {"cell_type": "code", "source": "s = '''\n```\n'''", "outputs": [], "metadata": {}}
    notebook = {"cells": [cell], "metadata": {"language_info": {"name": "R"}}, "nbformat": 4}
    path = tmp_path / "fences.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    doc = parse(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text == "````r\ns = '''\n```\n'''\n````"
    (section,) = doc.sections
    assert section.kind == "code"


def test_nbformat_3_worksheets(tmp_path: Path) -> None:
    notebook = {
        "nbformat": 3,
        "metadata": {},
        "worksheets": [
            {
                "cells": [
                    {"cell_type": "heading", "level": 2, "source": ["Old style"]},
                    {"cell_type": "code", "input": ["x = 1"], "language": "python", "outputs": []},
                ]
            }
        ],
    }
    path = tmp_path / "old.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    doc = parse(path.read_bytes(), ParseRequest(source=str(path)))
    assert doc.text == "## Old style\n\n```\nx = 1\n```"
    assert doc.sections[1].headings == ("Old style",)


def test_a_file_that_is_no_notebook_says_why() -> None:
    import pytest

    from ragchunk.errors import CorruptDocumentError

    cases = {
        b"[1, 2]": "not a Jupyter notebook (no cells)",
        b'{"cells": [1]}': "not a Jupyter notebook (a cell is not an object)",
        b'{"cells": [}': "not a Jupyter notebook: invalid JSON at line 1:",
    }
    for data, message in cases.items():
        with pytest.raises(CorruptDocumentError, match=r"^x\.ipynb: ") as raised:
            parse(data, ParseRequest(source="x.ipynb"))
        assert message in str(raised.value)


def test_the_language_falls_back_to_language_info_and_to_none() -> None:
    cell = {"cell_type": "code", "source": "print(1)", "metadata": {}, "outputs": []}
    info = {"cells": [cell], "metadata": {"language_info": {"name": "Julia 1.10"}}}
    assert "```julia\nprint(1)\n```" in parse(json.dumps(info).encode(), ParseRequest()).text
    bare = {"cells": [cell], "metadata": []}
    assert "```\nprint(1)\n```" in parse(json.dumps(bare).encode(), ParseRequest()).text
