"""Budgets, capacities and strategy options: validation on construction, conversion by type.

Every strategy declares a frozen ``<Name>Options`` dataclass whose first field is ``budget``:
the size, overlap and unit asked for. The plan resolves it once into a ``Capacity`` (whether
the size binds), the one size strategies, ``text`` and ``code`` read.
Values from ``-O key=value`` and from configuration files are converted by the field's declared
type (never guessed from the string), and unknown keys are rejected with the closest match.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    TypeVar,
    get_args,
    get_origin,
    get_type_hints,
)

from ragchunk.defaults import UNITS
from ragchunk.defaults import Unit as Unit  # where strategies and measures have always found it
from ragchunk.errors import OptionError
from ragchunk.registry import did_you_mean

if TYPE_CHECKING:
    from ragchunk.measure import Sizer


def parse_unit(value: str) -> Unit:
    """Return ``value`` as a unit; the one check of ``--unit`` (flags, ``stats``, ``Budget``).

    Raises:
        OptionError: ``value`` is not one of ``UNITS``.
    """
    if value not in UNITS:
        raise OptionError("--unit", f"must be one of {', '.join(UNITS)} (got {value!r})")
    return typing.cast("Unit", value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """How big a chunk may be: ``size`` units at most, overlap included.

    Attributes:
        size: the hard upper bound on a chunk's size, in ``unit``.
        overlap: how much of the previous chunk a chunk may repeat, in ``unit``; below ``size``.
        unit: ``chars`` (code points) or ``tokens`` of the active tokenizer.
    """

    size: int = 512
    overlap: int = 0
    unit: Unit = "chars"

    def __post_init__(self) -> None:
        parse_unit(self.unit)
        if self.size < 1:
            raise OptionError("--size", f"must be at least 1 (got {self.size})")
        if self.overlap < 0:
            raise OptionError("--overlap", f"must not be negative (got {self.overlap})")
        if self.overlap >= self.size:
            raise OptionError(
                "--overlap", f"must be smaller than --size (got {self.overlap} >= {self.size})"
            )

    def with_flags(
        self, *, size: int | None = None, overlap: int | None = None, unit: Unit | None = None
    ) -> Budget:
        """Return this budget with the flags the user gave.

        When ``size`` is given without ``overlap``, the default overlap is capped at a tenth of
        the size, so ``--size 40`` alone is never an error.
        """
        new_size = self.size if size is None else size
        if overlap is None:
            overlap = self.overlap if size is None else min(self.overlap, max(new_size, 0) // 10)
        return Budget(size=new_size, overlap=overlap, unit=self.unit if unit is None else unit)


@dataclass(frozen=True, slots=True, kw_only=True)
class Capacity:
    """The size chunks pack to, resolved once per plan: the one size a strategy reads.

    Like text-splitter's ``ChunkCapacity``: a budget together with whether its size binds.
    A hard capacity is the limit of SPEC §3.3; a soft one (a strategy unbounded by design
    without ``--size``, or one that ``--refine`` bounds afterwards) still gives the size its
    pieces pack to when it does split, but a whole unit (a heading subtree) always fits.

    Attributes:
        size: the size a chunk packs to, overlap included, in ``unit``.
        overlap: how much of the previous chunk a chunk may repeat; below ``size``.
        unit: ``chars`` (code points) or ``tokens`` of the active tokenizer.
        hard: whether ``size`` is the hard limit every chunk keeps.
    """

    size: int
    overlap: int = 0
    unit: Unit = "chars"
    hard: bool = True

    def __post_init__(self) -> None:
        Budget(size=self.size, overlap=self.overlap, unit=self.unit)  # the same checks

    @classmethod
    def of(cls, budget: Budget, *, hard: bool = True) -> Capacity:
        """Return the capacity of ``budget``; ``hard``: whether its size binds."""
        return cls(size=budget.size, overlap=budget.overlap, unit=budget.unit, hard=hard)

    @property
    def limit(self) -> int | None:
        """The hard size limit, or None when the capacity is soft."""
        return self.size if self.hard else None

    def fits(self, sizer: Sizer, start: int, end: int) -> bool:
        """Return whether ``[start, end)`` as ``sizer`` measures it may be one chunk.

        A soft capacity holds anything, and measures nothing.
        """
        return not self.hard or sizer.size(start, end) <= self.size

    def without_overlap(self) -> Capacity:
        """Return this capacity with no overlap (the pieces of one indivisible unit)."""
        return dataclasses.replace(self, overlap=0)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class OptionField:
    """One user-settable option of a strategy, as ``ragchunk strategies`` shows it."""

    name: str
    type: Any
    default: Any
    help: str


def option_fields(options_type: type) -> tuple[OptionField, ...]:
    """Return the settable fields of an options dataclass, ``budget`` excluded."""
    hints = get_type_hints(options_type)
    result = []
    for f in dataclasses.fields(options_type):
        if f.name == "budget":
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = None
        result.append(OptionField(f.name, hints[f.name], default, f.metadata.get("help", "")))
    return tuple(result)


def type_name(tp: Any) -> str:
    """Return a short, readable name for a declared option type."""
    origin = get_origin(tp)
    if origin is Literal:
        return "|".join(str(a) for a in get_args(tp))
    if origin in (types.UnionType, typing.Union):
        return " or ".join(type_name(a) for a in get_args(tp) if a is not type(None)) + " or none"
    if origin is tuple:
        return f"list of {type_name(get_args(tp)[0])}"
    return getattr(tp, "__name__", str(tp))


OptionsT = TypeVar("OptionsT")


def build_options(
    options_type: type[OptionsT],
    budget: Budget,
    values: Mapping[str, object],
    *,
    strategy: str = "",
) -> OptionsT:
    """Build and validate an options object from a budget and user-given values.

    Args:
        options_type: the strategy's options dataclass.
        budget: the budget, already validated.
        values: option name → value, either strings from ``-O`` or typed values from a
            configuration file; converted by the declared type.
        strategy: the strategy's name, for messages.

    Raises:
        OptionError: an unknown key or a value the declared type cannot take.
    """
    fields = {f.name: f for f in option_fields(options_type)}
    converted: dict[str, object] = {}
    for key, raw in values.items():
        if key not in fields:
            raise OptionError(key, _unknown_key_message(key, sorted(fields), strategy))
        converted[key] = convert_value(key, fields[key].type, raw)
    make: Callable[..., OptionsT] = options_type  # a dataclass: its fields are the keywords
    return make(budget=budget, **converted)


def _unknown_key_message(key: str, valid: list[str], strategy: str) -> str:
    listing = ", ".join(valid) if valid else "none"
    owner = f"the {strategy} strategy" if strategy else "this strategy"
    return f"is not an option of {owner} (its options: {listing}){did_you_mean(key, valid)}"


def convert_value(key: str, tp: Any, raw: object) -> object:
    """Convert ``raw`` (a string from the command line, or a TOML value) to the declared type.

    Raises:
        OptionError: the value does not fit the type.
    """
    origin = get_origin(tp)
    if origin in (types.UnionType, typing.Union):
        is_none = raw is None or (isinstance(raw, str) and raw.lower() in ("", "none"))
        if is_none and type(None) in get_args(tp):
            return None
        inner = [a for a in get_args(tp) if a is not type(None)]
        return convert_value(key, inner[0], raw)
    if origin is Literal:
        choices = get_args(tp)
        if raw not in choices:
            listing = ", ".join(str(c) for c in choices)
            raise OptionError(key, f"must be one of {listing} (got {raw!r})")
        return raw
    if origin is tuple:
        return _convert_tuple(key, get_args(tp)[0], raw)
    if tp is bool:
        return _convert_bool(key, raw)
    if tp in (int, float):
        return _convert_number(key, tp, raw)
    if tp is str:
        if not isinstance(raw, str):
            raise OptionError(key, f"must be a string (got {raw!r})")
        return raw
    raise OptionError(key, f"cannot be set from the command line (type {type_name(tp)})")


def _convert_tuple(key: str, item_type: Any, raw: object) -> tuple[object, ...]:
    items = raw
    if isinstance(raw, str):
        try:
            items = json.loads(raw)
        except json.JSONDecodeError:
            raise OptionError(
                key, f'must be a JSON list such as \'["\\n\\n", "\\n"]\' (got {raw!r})'
            ) from None
    if not isinstance(items, list | tuple):
        raise OptionError(key, f"must be a list (got {raw!r})")
    return tuple(convert_value(key, item_type, item) for item in items)


def _convert_bool(key: str, raw: object) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("true", "yes", "1", "on"):
        return True
    if isinstance(raw, str) and raw.lower() in ("false", "no", "0", "off"):
        return False
    raise OptionError(key, f"must be true or false (got {raw!r})")


def _convert_number(key: str, tp: type, raw: object) -> object:
    if isinstance(raw, bool):
        raise OptionError(key, f"must be a number (got {raw!r})")
    try:
        if tp is int and isinstance(raw, float):
            raise ValueError
        return tp(raw)
    except (TypeError, ValueError):
        kind = "a whole number" if tp is int else "a number"
        raise OptionError(key, f"must be {kind} (got {raw!r})") from None
