"""The chunking configurations an evaluation compares: a sweep of flags, or named setups.

A sweep is the product of lists of strategies, sizes and overlaps (``-s recursive,token --size
200,400 --overlap 0,50``), every other setting from the flags. A setups file is TOML: its top
level holds settings every setup shares (any key of a ``ragchunk.toml`` scope), and each
``[setups.NAME]`` table one setup's own (with an ``options`` table for strategy options)::

    size = 400

    [setups.small]
    strategy = "recursive"
    size = 200

    [setups.by-heading]
    strategy = "markdown"

Flags win over the file, as they do over ``ragchunk.toml``. Every plan is built and checked
before any document is read.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ragchunk import strategies
from ragchunk.errors import UsageError
from ragchunk.pipeline.scopes import plan_from_settings
from ragchunk.registry import did_you_mean
from ragchunk.runs.config import scope_keys, scope_settings
from ragchunk.settings import Settings, merge, with_values

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.pipeline.plan import Plan

SETUPS: Final = "setups"
"""The table of named setups in a setups file."""


@dataclass(frozen=True, slots=True)
class Setup:
    """One configuration: its name in reports, its settings and the plan made of them."""

    name: str
    settings: Settings
    plan: Plan

    @property
    def strategy(self) -> str:
        """The strategy's name (what a plot groups setups by)."""
        return self.plan.recipe.strategy.name


def sweep(
    flags: Settings,
    strategy_names: Sequence[str],
    sizes: Sequence[int | None],
    overlaps: Sequence[int | None],
) -> list[Setup]:
    """Return a setup per combination of strategy, size and overlap, in that nesting order.

    Raises:
        UsageError: a combination that makes no plan (named with its strategy, size, overlap).
    """
    made = []
    for name, size, overlap in itertools.product(strategy_names, sizes, overlaps):
        settings = with_values(flags, {"strategy": name, "size": size, "overlap": overlap})
        label = _label(name, size, overlap)
        made.append(Setup(label, settings, _plan(settings, label)))
    _check_unique(made)
    return made


def read_setups(path: str, flags: Settings) -> list[Setup]:
    """Return the named setups of a TOML setups file, in file order, flags on top.

    Raises:
        UsageError: the file cannot be read, is not TOML, has no setups, or holds an unknown
            key or a bad value (named with the file and setup).
    """
    import tomllib

    try:
        table = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"--config: cannot read {path} ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: invalid TOML ({exc})") from None
    named = table.pop(SETUPS, None)
    if not isinstance(named, dict) or not named:
        raise UsageError(f"{path}: no [{SETUPS}.NAME] tables: name at least one setup")
    shared = _scope(table, path, extra=(SETUPS,))
    made = []
    for name, body in named.items():
        where = f"{path} [{SETUPS}.{name}]"
        if not isinstance(body, dict):
            raise UsageError(f"{where}: must be a table of settings")
        settings = merge(flags, merge(_scope(body, where), shared))
        made.append(Setup(str(name), settings, _plan(settings, where)))
    return made


def _scope(table: dict[str, Any], where: str, extra: Sequence[str] = ()) -> Settings:
    allowed = sorted([*scope_keys(), "options", *extra])
    for key in table:
        if key not in allowed:
            hint = did_you_mean(key, allowed) or f" (known keys: {', '.join(allowed)})"
            raise UsageError(f"{where}: unknown key {key!r}{hint}")
    return scope_settings(table, where)


def _plan(settings: Settings, where: str) -> Plan:
    try:
        return plan_from_settings(settings)
    except UsageError as exc:
        raise UsageError(f"{where}: {exc}") from None


def _label(strategy: str, size: int | None, overlap: int | None) -> str:
    parts = [strategy or strategies.DEFAULT_STRATEGY]
    if size is not None:
        parts.append(str(size))
    if overlap is not None:
        parts.append(f"+{overlap}")
    return " ".join(parts)


def _check_unique(setups: Sequence[Setup]) -> None:
    names = [setup.name for setup in setups]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"the configuration {name!r} is given twice")
