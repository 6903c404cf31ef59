"""The strategy table: name → module. Each module exposes ``STRATEGY`` (see ``_spec.py``).

To add a strategy, write ``strategies/<name>.py`` and add one line here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from ragchunk import registry
from ragchunk.defaults import DEFAULT_STRATEGY as DEFAULT_STRATEGY  # the one default, re-exported

if TYPE_CHECKING:
    from ragchunk.strategies._spec import AnyStrategy

STRATEGIES: Final = {
    "code": "ragchunk.strategies.code",
    "fixed": "ragchunk.strategies.fixed",
    "recursive": "ragchunk.strategies.recursive",
    "token": "ragchunk.strategies.token",
    "sentence": "ragchunk.strategies.sentence",
    "paragraph": "ragchunk.strategies.paragraph",
    "markdown": "ragchunk.strategies.markdown",
    "hierarchical": "ragchunk.strategies.hierarchical",
    "auto": "ragchunk.strategies.auto",
    "legal": "ragchunk.strategies.legal",
    "book": "ragchunk.strategies.book",
    "academic": "ragchunk.strategies.academic",
    "qa": "ragchunk.strategies.qa",
    "email": "ragchunk.strategies.email",
    "semantic": "ragchunk.strategies.semantic",
    "late": "ragchunk.strategies.late",
    "proposition": "ragchunk.strategies.proposition",
    "resume": "ragchunk.strategies.resume",
}


def get(name: str) -> AnyStrategy:
    """Return the strategy registered as ``name``: a cutter (or rewriter), or a router.

    Raises:
        OptionError: no strategy has that name.
        TypeError: its module's ``STRATEGY`` is neither a ``Strategy`` nor a ``Router``.
    """
    from ragchunk.strategies._spec import Router, Strategy

    found: object = registry.load(STRATEGIES, name, option="--strategy", attribute="STRATEGY")
    if isinstance(found, Strategy | Router):
        return found
    raise TypeError(f"{STRATEGIES[name]}.STRATEGY is not a Strategy or a Router")


def names() -> tuple[str, ...]:
    """Return every strategy name, sorted."""
    return registry.names(STRATEGIES)
