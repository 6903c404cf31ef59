"""SPEC §3 on every fixture document, for every strategy, in chars and in tokens."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk import strategies
from ragchunk.pipeline import make_plan, parse_bytes
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants

DOCUMENTS = sorted(
    path
    for path in FIXTURES.rglob("*")
    if path.is_file() and path.suffix in {".txt", ".md", ".pdf", ".docx"}
)
BUDGETS = [(200, 20, "chars"), (48, 6, "tokens")]


def test_every_kind_of_fixture_is_present() -> None:
    assert {path.parent.name for path in DOCUMENTS} >= {"text", "markdown", "docx", "pdf"}


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[2]}")
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", strategies.names())
def test_invariants_hold_on_fixture(
    name: str, document: Path, budget: tuple[int, int, str]
) -> None:
    size, overlap, unit = budget
    plan = make_plan(name, size=size, overlap=overlap, unit=unit)  # type: ignore[arg-type]
    doc = parse_bytes(document.read_bytes(), str(document), document.name, plan, [])
    assert_invariants(doc, plan)
