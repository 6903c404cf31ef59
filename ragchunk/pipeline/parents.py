"""``--parents``: what the parent level of a parent/child run is made of, validated once.

Parent-document retrieval indexes small chunks and hands the model the larger passage each one
sits in. ``--parents [STRATEGY:]SIZE[:OVERLAP]`` (or ``--parents STRATEGY`` alone, at that
strategy's default size) asks for that passage: parent chunks are cut first, by the recursive
strategy unless another is named, at SIZE in the run's own unit and tokenizer (characters, or
tokens with ``--unit tokens``) with OVERLAP (default 0); then the run's strategy cuts its child
chunks inside each parent's span (``ragchunk.pipeline.family``). A parent strategy must keep all the
text and write none: no templates that drop text, no chat or embedding strategies.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk import strategies
from ragchunk.errors import OptionError, UsageError
from ragchunk.options import Budget, build_options
from ragchunk.strategies._spec import Router

if TYPE_CHECKING:
    from ragchunk.options import Unit
    from ragchunk.strategies._spec import AnyStrategy, Cutter, StrategyOptions

PARENT_STRATEGY: Final = "recursive"
"""The strategy parents are cut by unless ``--parents`` names another."""

_FLAG: Final = "--parents"


@dataclass(frozen=True, slots=True)
class ParentSpec:
    """The parent level as asked for: a strategy, a size and an overlap (None: its default).

    Attributes:
        strategy: the strategy that cuts the parents.
        size: the parents' hard size limit in the run's unit, or None for the strategy's
            default size.
        overlap: how much consecutive parents may share, in the run's unit.
    """

    strategy: str = PARENT_STRATEGY
    size: int | None = None
    overlap: int = 0


def parse_parents(text: str) -> ParentSpec:
    """Return what ``--parents`` asks for: ``SIZE[:OVERLAP]`` or ``STRATEGY[:SIZE[:OVERLAP]]``.

    Raises:
        OptionError: the text is not of that shape, or a number is not a whole number.
    """
    parts = [part.strip() for part in text.split(":")]
    strategy = PARENT_STRATEGY
    if parts[0][:1].isalpha():  # a strategy name comes first, a number never
        strategy = parts.pop(0)
    if len(parts) > 2 or any(not part.isdigit() for part in parts):
        raise OptionError(
            _FLAG, f"expects SIZE[:OVERLAP] or STRATEGY[:SIZE[:OVERLAP]] (got {text!r})"
        )
    size = int(parts[0]) if parts else None
    overlap = int(parts[1]) if len(parts) > 1 else 0
    return ParentSpec(strategy, size, overlap)


def parent_level(
    parents: str | ParentSpec | None, chosen: AnyStrategy, unit: Unit, limit: int | None
) -> tuple[Cutter, StrategyOptions] | None:
    """Return the parents' strategy and options for children cut by ``chosen``; None: no parents.

    Raises:
        UsageError: a bad ``--parents``, or children that a chat model writes.
    """
    if parents is None:
        return None
    spec = parse_parents(parents) if isinstance(parents, str) else parents
    if chosen.rewrites:
        raise OptionError(_FLAG, f"cannot be used with --strategy {chosen.name}")
    return parent_strategy(spec), parent_options(spec, unit, limit)


def parent_strategy(spec: ParentSpec) -> Cutter:
    """Return the strategy that cuts the parents, refusing one that cannot.

    Raises:
        UsageError: an unknown strategy, or one that drops text, rewrites it or embeds it.
    """
    try:
        chosen = strategies.get(spec.strategy)
    except UsageError as exc:  # named as --strategy's; here it is --parents'
        message = str(exc).removeprefix("--strategy ")
        raise OptionError(_FLAG, f"strategy {message}") from None
    if isinstance(chosen, Router) or chosen.rewrites or chosen.drops or chosen.embeds:
        raise OptionError(
            _FLAG,
            f"cannot cut parents with {chosen.name}: parents keep all the text and are cut "
            "without a model (try recursive, markdown, paragraph, sentence or code)",
        )
    return chosen


def parent_options(spec: ParentSpec, unit: Unit, child_limit: int | None) -> StrategyOptions:
    """Return the parent strategy's validated options in the run's ``unit``.

    Raises:
        OptionError: a size or overlap out of range, or parents no larger than the children.
    """
    chosen = parent_strategy(spec)
    size = chosen.options().budget.size if spec.size is None else spec.size
    if size < 1:
        raise OptionError(_FLAG, f"size must be at least 1 (got {size})")
    if spec.overlap >= size:
        raise OptionError(
            _FLAG, f"overlap must be smaller than the parents' size (got {spec.overlap} >= {size})"
        )
    budget = Budget(size=size, overlap=spec.overlap, unit=unit)
    if child_limit is not None and budget.size <= child_limit:
        raise OptionError(
            _FLAG,
            f"size must be larger than the children's --size (got {budget.size} <= {child_limit})",
        )
    try:
        return build_options(chosen.options, budget, {}, strategy=chosen.name)
    except UsageError as exc:
        raise OptionError(_FLAG, f"gives {chosen.name} bad options: {exc}") from None
