"""SPEC §3 on every fixture document × every strategy × both units × three sizes.

The embedding strategies (semantic, late) run with the real local model; ``--refine`` runs on
every strategy, in characters and in tokens.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.pipeline.plan import make_plan
from ragchunk.pipeline.reading import parse_documents
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants
from tests.meaning import LOCAL, every_strategy
from tests.pending import settled

KINDS = {"text", "markdown", "docx", "pdf", "code", "html", "pptx", "email", "tables", "epub"}
KINDS |= {"templates", "transcripts", "notebooks", "data"}
DOCUMENTS = sorted(
    path
    for path in FIXTURES.rglob("*")
    if path.is_file() and path.parent.name in KINDS and settled(path)
)
BUDGETS = [
    (64, 8, "chars"),
    (300, 30, "chars"),
    (1500, 150, "chars"),
    (16, 2, "tokens"),
    (64, 8, "tokens"),
    (400, 40, "tokens"),
]


@cache
def parsed(path: Path) -> tuple[Document, ...]:
    """Parse a fixture once (every message of an mbox): the parse depends on no strategy."""
    request = ParseRequest(source=str(path), doc_id=path.name)
    found = tuple(parse_documents(path.read_bytes(), request))
    assert all(isinstance(doc, Document) for doc in found)
    return found  # type: ignore[return-value]  # checked just above


def test_every_kind_of_fixture_is_present() -> None:
    assert {path.parent.name for path in DOCUMENTS} == KINDS


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[2]}")
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", every_strategy())
def test_invariants_hold_on_fixture(
    name: str, document: Path, budget: tuple[int, int, str]
) -> None:
    size, overlap, unit = budget
    plan = make_plan(shortcuts({"strategy": name, "size": size, "overlap": overlap, "unit": unit}))  # type: ignore[arg-type]
    for doc in parsed(document):
        assert_invariants(doc, plan)


@pytest.mark.parametrize("budget", [(300, 30, "chars"), (96, 8, "tokens")], ids=str)
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", every_strategy())
def test_invariants_hold_with_contextualize(
    name: str, document: Path, budget: tuple[int, int, str]
) -> None:
    size, overlap, unit = budget
    plan = make_plan(
        shortcuts(
            {
                "strategy": name,
                "size": size,
                "overlap": overlap,
                "unit": unit,
                "contextualize": True,
            }
        )
    )  # type: ignore[arg-type]
    for doc in parsed(document):
        assert_invariants(doc, plan)


@pytest.mark.slow
@pytest.mark.parametrize("budget", [(300, 30, "chars"), (64, 8, "tokens")], ids=str)
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
@pytest.mark.parametrize("name", LOCAL)
def test_invariants_hold_with_refine(
    name: str, document: Path, budget: tuple[int, int, str]
) -> None:
    size, overlap, unit = budget
    plan = make_plan(
        shortcuts(
            {"strategy": name, "size": size, "overlap": overlap, "unit": unit, "refine": True}
        )
    )  # type: ignore[arg-type]
    for doc in parsed(document):
        assert_invariants(doc, plan)


@pytest.mark.slow
@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_hierarchical_is_bounded_by_refine_alone(document: Path, unit: str) -> None:
    """Unbounded by design, hierarchical keeps its default size under --refine."""
    plan = make_plan(shortcuts({"strategy": "hierarchical", "unit": unit, "refine": True}))  # type: ignore[arg-type]
    assert plan.recipe.limit == plan.recipe.capacity.size
    assert plan.recipe.strategy_capacity.limit is None  # whole subtrees, then split semantically
    for doc in parsed(document):
        assert_invariants(doc, plan)
