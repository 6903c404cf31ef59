"""Strategies that need an embedder (semantic, late) and those that split by shape alone.

The tests that run every strategy take the embedding ones from here with the ``slow`` mark: they
load the local model (once per session; its vectors are kept in memory between tests).
"""

from __future__ import annotations

from typing import Any, Final

import pytest

from ragchunk import strategies

REWRITING: Final = tuple(name for name in strategies.names() if strategies.get(name).rewrites)
"""Strategies whose chunks a chat model writes (proposition, resume): they need an endpoint, so
the tests that run every strategy leave them out; tests/cli/test_proposition.py runs them
against the scripted server and llama.cpp's."""
EMBEDDING: Final = tuple(name for name in strategies.names() if strategies.get(name).embeds)
SHAPES: Final = tuple(
    name for name in strategies.names() if name not in EMBEDDING and name not in REWRITING
)
LOCAL: Final = tuple(name for name in strategies.names() if name not in REWRITING)
"""Every strategy that runs without an endpoint."""


def every_strategy(*marks: Any) -> list[Any]:
    """Every local strategy as a pytest parameter; the embedding ones get ``slow`` and ``marks``."""
    return [
        pytest.param(name, marks=[pytest.mark.slow, *marks]) if name in EMBEDDING else name
        for name in LOCAL
    ]
