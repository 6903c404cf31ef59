"""CONTRIBUTING.md's worked example: a strategy added by one module and one registry line.

The example's code block is taken from CONTRIBUTING.md as it stands, saved as a module,
registered with one line in the strategy table, and run over every settled fixture and over
generated text with the invariant checker (SPEC §3), exactly as a new strategy would be.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from ragchunk import strategies
from ragchunk.cli import app
from ragchunk.model import Document
from ragchunk.pipeline.engine import process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES, ROOT
from tests.invariants import assert_invariants
from tests.pending import settled

MODULE = "contributing_lines"


def example_code() -> str:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    (block,) = [b for b in blocks if 'name="lines"' in b]
    return block


@pytest.fixture
def lines_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Save the example as a module and add its one line to the strategy table."""
    (tmp_path / f"{MODULE}.py").write_text(example_code(), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(strategies.STRATEGIES, "lines", MODULE)  # type: ignore[index]


def fixture_files() -> list[Path]:
    return [p for p in sorted(FIXTURES.rglob("*")) if p.is_file() and settled(p)]


@pytest.mark.usefixtures("lines_registered")
@pytest.mark.parametrize(
    ("size", "overlap", "unit"), [(300, 0, "chars"), (120, 30, "chars"), (60, 10, "tokens")]
)
def test_the_example_keeps_every_invariant_on_every_fixture(
    size: int, overlap: int, unit: str
) -> None:
    plan = make_plan(
        shortcuts({"strategy": "lines", "size": size, "overlap": overlap, "unit": unit})
    )  # type: ignore[arg-type]
    checked = 0
    for path in fixture_files():
        result = process(str(path), path.name, plan, keep_document=True)
        if result.document is None:
            continue  # not a document (an image, a builder's data)
        chunks = assert_invariants(result.document, plan)
        assert {chunk.strategy for chunk in chunks} <= {"lines"}
        checked += 1
    assert checked >= 20


@pytest.mark.usefixtures("lines_registered")
@given(st.text(alphabet=st.sampled_from("ab \n\t.é👍"), max_size=200), st.integers(1, 40))
def test_the_example_keeps_every_invariant_on_generated_text(text: str, size: int) -> None:
    plan = make_plan(shortcuts({"strategy": "lines", "size": size, "overlap": size // 3}))
    assert_invariants(Document(text=text), plan)


@pytest.mark.usefixtures("lines_registered")
def test_the_example_packs_whole_lines_and_is_listed() -> None:
    text = "one line\nanother line\na third line here\n"
    chunks = assert_invariants(
        Document(text=text), make_plan(shortcuts({"strategy": "lines", "size": 22, "overlap": 0}))
    )
    assert [c.text for c in chunks] == ["one line\nanother line\n", "a third line here\n"]
    listing = CliRunner().invoke(app, ["strategies", "lines"], env={"COLUMNS": "200"})
    assert listing.exit_code == 0
    assert "Whole lines packed to the size; a long line is split at words." in listing.stdout
