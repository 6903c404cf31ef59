"""The strategy seam: one capacity, resolved once, and the three kinds of strategy."""

from __future__ import annotations

import re

import pytest

from ragchunk import strategies
from ragchunk.backends.chat import ChatSpec
from ragchunk.errors import OptionError
from ragchunk.measure import CHARS
from ragchunk.model import Document
from ragchunk.options import Budget, Capacity
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.strategies._spec import Router, Strategy
from ragchunk.strategies.recursive import RecursiveOptions
from ragchunk.strategies.sentence import SentenceOptions
from tests.conftest import ROOT

CHAT = ChatSpec(url="http://127.0.0.1:9/v1", model="m")


def test_a_capacity_is_checked_as_a_budget_is() -> None:
    with pytest.raises(OptionError, match="--overlap must be smaller than --size"):
        Capacity(size=10, overlap=10)
    with pytest.raises(OptionError, match="--size must be at least 1"):
        Capacity(size=0)
    budget = Budget(size=40, overlap=4, unit="tokens")
    assert Capacity.of(budget) == Capacity(size=40, overlap=4, unit="tokens", hard=True)
    assert Capacity.of(budget).without_overlap() == Capacity(size=40, unit="tokens")


def test_a_hard_capacity_is_a_limit_and_a_soft_one_holds_anything() -> None:
    sizer = CHARS.prepare("x" * 30)
    hard, soft = Capacity(size=20), Capacity(size=20, hard=False)
    assert (hard.limit, soft.limit) == (20, None)
    assert hard.fits(sizer, 0, 20)
    assert not hard.fits(sizer, 0, 21)
    assert soft.fits(sizer, 0, 30)


@pytest.mark.parametrize(
    ("strategy", "flags", "hard", "strategy_hard"),
    [
        ("recursive", {}, True, True),
        ("hierarchical", {}, False, False),
        ("hierarchical", {"size": 300}, True, True),
        ("hierarchical", {"refine": True}, True, False),  # --refine bounds it afterwards
        ("sentence", {"options": {"sentences": "3"}}, False, False),
        ("resume", {"api_base": CHAT.url, "model": CHAT.model}, False, False),
    ],
)
def test_the_plan_resolves_the_capacity_once(
    strategy: str, flags: dict[str, object], hard: bool, strategy_hard: bool
) -> None:
    recipe = make_plan(shortcuts({"strategy": strategy, **flags})).recipe  # type: ignore[arg-type]
    budget = recipe.options.budget
    assert recipe.capacity == Capacity.of(budget, hard=hard)
    assert recipe.strategy_capacity == Capacity.of(budget, hard=strategy_hard)


def test_auto_is_a_router_whose_choices_and_parents_are_bounded() -> None:
    auto = strategies.get("auto")
    assert isinstance(auto, Router)
    assert auto.kind == "router"
    recipe = make_plan(shortcuts({"strategy": "auto", "parents": "3000"})).recipe
    assert {name: c.capacity.limit for name, c in recipe.choices.items()} == {
        "code": 512,
        "hierarchical": 1024,  # unbounded alone, bounded by its own size as a choice
        "markdown": 512,
        "recursive": 512,
    }
    assert recipe.parents is not None
    assert recipe.parents.capacity == Capacity(size=3000)
    with pytest.raises(TypeError, match="picks a strategy per document"):
        _ = recipe.cutter
    doc = Document(text="# Title\n\nText.\n", format="markdown")
    assert recipe.for_document(doc).cutter.name == "markdown"


def test_the_kinds_of_strategy() -> None:
    kinds = {name: strategies.get(name).kind for name in strategies.names()}
    assert {name for name, kind in kinds.items() if kind == "rewriter"} == {"proposition", "resume"}
    assert {name for name, kind in kinds.items() if kind == "router"} == {"auto"}


def test_a_cutter_refuses_the_options_of_another_strategy() -> None:
    recursive = strategies.get("recursive")
    assert isinstance(recursive, Strategy)
    doc = Document(text="A.")
    with pytest.raises(TypeError, match="recursive strategy takes RecursiveOptions"):
        recursive.cut(doc, SentenceOptions(), None)  # type: ignore[arg-type]
    assert recursive.bounds_of(RecursiveOptions()).bounded


def test_strategies_text_and_code_read_no_size_but_the_capacity() -> None:
    """Acceptance of issue 28: the budget's size is read in one place, the plan."""
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for folder in ("strategies", "text", "code")
        for path in sorted((ROOT / "ragchunk" / folder).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"budget\.size|ctx\.limit\b", line)
    ]
    assert found == []
