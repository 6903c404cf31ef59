"""A strategy that waits ``seconds`` of wall time, then chunks as the plan's own would.

For the simulated scaling of ``benchmarks/ray_engine.py``: work that takes time but no CPU, as
if every Ray worker had a core of its own. Shipped to the workers by value
(``ray.cloudpickle.register_pickle_by_value``).
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Any

from ragchunk.pipeline.plan import Plan
from ragchunk.strategies._spec import Strategy


def _split(seconds: float, inner: Any, doc: Any, options: Any, ctx: Any) -> Any:
    time.sleep(seconds)
    return inner(doc, options, ctx)


def sleeping(plan: Plan, seconds: float) -> Plan:
    """Return ``plan`` whose strategy first sleeps ``seconds`` for every document."""
    strategy = plan.recipe.strategy
    slow: Strategy[Any] = dataclasses.replace(
        strategy, split=functools.partial(_split, seconds, strategy.split)
    )
    return dataclasses.replace(plan, recipe=dataclasses.replace(plan.recipe, strategy=slow))
