"""auto: the strategy chosen per document, recorded in every chunk and in --stats."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk import strategies
from ragchunk.cli import app
from ragchunk.model import Document, Section
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.strategies.auto import choose
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (FIXTURES / "markdown" / "station-guide.md", "markdown"),
        (FIXTURES / "docs-site" / "docs" / "contributing.rst", "markdown"),
        (FIXTURES / "docx" / "report.docx", "hierarchical"),
        (FIXTURES / "pdf" / "report-outline.pdf", "hierarchical"),
        (FIXTURES / "pdf" / "report-plain.pdf", "hierarchical"),
        (FIXTURES / "text" / "field-notes.txt", "recursive"),
        (FIXTURES / "code" / "inventory.py", "code"),
    ],
    ids=lambda value: value.name if isinstance(value, Path) else value,
)
def test_each_fixture_gets_its_strategy_in_every_chunk(path: Path, expected: str) -> None:
    result = process(str(path), path.name, make_plan(shortcuts({"strategy": "auto", "size": 300})))
    assert result.error is None
    assert {c.strategy for c in result.chunks} == {expected}
    assert all(c.chars <= 300 for c in result.chunks)  # hierarchical is bounded under auto


def test_pdf_and_docx_without_headings_and_code_fall_back() -> None:
    flat = Document(text="Just text.", format="pdf", sections=(Section(0, 10, "prose"),))
    assert choose(flat) == "recursive"
    code = Document(text="def f():\n    return 1\n", format="code")
    assert choose(code) == ("code" if "code" in strategies.STRATEGIES else "recursive")


def test_invariants_hold_and_hierarchical_is_bounded_by_the_default_size() -> None:
    path = FIXTURES / "docx" / "report.docx"
    plan = make_plan(shortcuts({"strategy": "auto"}))
    result = process(str(path), path.name, plan, keep_document=True)
    assert result.document is not None
    chunks = assert_invariants(result.document, plan)
    limit = plan.recipe.for_document(result.document).limit  # hierarchical's own size
    assert limit == 1024
    assert max(c.chars for c in chunks) <= limit


def test_stats_name_the_strategies_chosen() -> None:
    result = CliRunner().invoke(
        app,
        ["split", str(FIXTURES / "markdown"), str(FIXTURES / "docx"), "-s", "auto", "--stats"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 0, result.stderr
    assert "strategy hierarchical, markdown" in " ".join(result.stderr.split())


def test_without_a_size_each_choice_keeps_its_own_defaults() -> None:
    # Before: auto chunked code in 512 characters with overlap 50; -s code is 512 tokens.
    path = FIXTURES / "code" / "inventory.py"
    auto = process(str(path), path.name, make_plan(shortcuts({"strategy": "auto"})))
    code = process(str(path), path.name, make_plan(shortcuts({"strategy": "code"})))
    assert auto.error is None
    assert [c.to_record() for c in auto.chunks] == [c.to_record() for c in code.chunks]
    assert all(c.tokens is not None and c.tokens <= 512 for c in auto.chunks)
    assert max(c.chars for c in auto.chunks) > 512  # tokens, not characters
    markdown = FIXTURES / "markdown" / "station-guide.md"
    auto_md = process(str(markdown), markdown.name, make_plan(shortcuts({"strategy": "auto"})))
    named = process(str(markdown), markdown.name, make_plan(shortcuts({"strategy": "markdown"})))
    assert [c.to_record() for c in auto_md.chunks] == [c.to_record() for c in named.chunks]


def test_a_given_size_applies_to_every_choice_in_its_unit() -> None:
    path = FIXTURES / "code" / "inventory.py"
    auto = process(str(path), path.name, make_plan(shortcuts({"strategy": "auto", "size": 300})))
    code = process(
        str(path),
        path.name,
        make_plan(shortcuts({"strategy": "code", "size": 300, "unit": "chars", "overlap": 30})),
    )
    assert [c.to_record() for c in auto.chunks] == [c.to_record() for c in code.chunks]
    assert all(c.chars <= 300 for c in auto.chunks)


def test_check_holds_each_choice_to_its_own_limit() -> None:
    path = FIXTURES / "code" / "inventory.py"
    plan = make_plan(shortcuts({"strategy": "auto", "check": True}))
    result = process(str(path), path.name, plan)
    assert (result.error, result.violations) == (None, ())
