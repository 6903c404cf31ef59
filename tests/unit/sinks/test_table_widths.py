"""The --table preview at 80, 100 and 160 columns: no empty columns, a readable text column."""

from __future__ import annotations

import pytest
from rich.console import Console

from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.sinks.table import build
from tests.conftest import FIXTURES


def render(path: str, width: int, **plan: object) -> list[str]:
    result = process(path, path, make_plan(shortcuts({**plan})))  # type: ignore[arg-type]
    assert result.error is None
    console = Console(width=width, record=True, file=None, force_terminal=False)
    with console.capture() as captured:
        console.print(build(result.chunks, "title", width))
    return captured.get().splitlines()


def header_cells(lines: list[str]) -> list[str]:
    header = next(line for line in lines if line.startswith("┃"))
    return [cell.strip() for cell in header.strip("┃").split("┃")]


def text_width(lines: list[str]) -> int:
    top = next(line for line in lines if line.startswith("┏"))
    return len(top.strip("┏┓").split("┳")[-1])


@pytest.mark.parametrize("width", [80, 100, 160])
def test_the_text_column_takes_at_least_half_the_width(width: int) -> None:
    lines = render(
        str(FIXTURES / "docs-site" / "docs" / "tutorial" / "async.md"), width, strategy="markdown"
    )
    assert all(len(line) <= width for line in lines)
    assert text_width(lines) >= width // 2
    cells = header_cells(lines)
    assert cells[-1] == "text"
    assert "tokens" not in cells  # empty for every row: left out
    assert ("span" in cells) is (width >= 100)


def test_columns_empty_for_every_row_are_left_out() -> None:
    plain = header_cells(render(str(FIXTURES / "text" / "field-notes.txt"), 160))
    assert plain == ["#", "span", "lines", "chars", "text"]  # no headings in plain text
    pdf = header_cells(render(str(FIXTURES / "pdf" / "report-outline.pdf"), 160, count_tokens=True))
    assert pdf == ["#", "span", "pages", "chars", "tokens", "headings", "text"]


def test_at_80_columns_words_are_not_cut_into_scraps() -> None:
    lines = render(
        str(FIXTURES / "docs-site" / "docs" / "reference" / "responses.md"), 80, strategy="markdown"
    )
    assert text_width(lines) >= 40
    assert not any("TECHNIC" in line and "AL" not in line for line in lines)
