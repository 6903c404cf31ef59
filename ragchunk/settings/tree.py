"""The settings tree: one frozen dataclass per owner, and the generic functions over its leaves.

``Settings`` holds every setting of ragchunk, grouped by who reads it: ``chunking`` (the
strategy, its size and options), ``parsing`` (the parsers' ``ParseOptions``), ``embedding`` and
``chat`` (the backends), ``policy`` (how each input is treated) and ``run`` (which inputs a run
takes). Every leaf is a ``leaf(...)`` field (``ragchunk.settings._leaf``) and has a name unique
in the tree: its configuration key with underscores, its flag without dashes.

A configuration scope (a file's top level, a ``[files."GLOB"]`` section, the flags) is the same
tree with ``given`` naming the leaves it sets; the others are unset and hold their defaults.
``merge`` lays one scope over another, leaf by leaf.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ragchunk.errors import OptionError
from ragchunk.registry import did_you_mean
from ragchunk.settings._leaf import Leaf, leaf_of
from ragchunk.settings.backends import Chat, Embedding
from ragchunk.settings.chunking import Chunking
from ragchunk.settings.parsing import ParseOptions
from ragchunk.settings.run import Run, RunPolicy

OPTIONS: Final = "options"
"""The leaf of strategy options (``-O``, a file's ``[options]`` table)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Every setting, grouped by owner; ``Settings()`` is the library's defaults.

    Attributes:
        given: the names of the leaves this scope sets (see the module docstring), or None
            for "every leaf that differs from its default" (a tree built by hand).
    """

    chunking: Chunking = Chunking()
    parsing: ParseOptions = ParseOptions()
    embedding: Embedding = Embedding()
    chat: Chat = Chat()
    policy: RunPolicy = RunPolicy()
    run: Run = Run()
    given: frozenset[str] | None = None


GROUPS: Final = ("chunking", "parsing", "embedding", "chat", "policy", "run")
"""The attributes of ``Settings`` that hold groups of leaves, in order."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Setting:
    """One leaf of the tree, as the generic functions see it.

    Attributes:
        name: the field's name, unique in the tree.
        group: the attribute of ``Settings`` holding its group.
        leaf: what it declares (flag, help, panel...).
        default: its default (the library's).
    """

    name: str
    group: str
    leaf: Leaf
    default: object

    @property
    def key(self) -> str:
        """The configuration key: the name with dashes."""
        return self.name.replace("_", "-")

    @property
    def param(self) -> str:
        """The parameter name of its option in a command."""
        return self.leaf.param or self.name

    @property
    def type(self) -> Any:  # a type expression, such as ``int | None``
        """The declared type values are converted by (resolved on first use)."""
        return _hints(self.group)[self.name]


@functools.cache
def settings() -> tuple[Setting, ...]:
    """Return every leaf of the tree, group by group, in declaration order."""
    found = []
    for group in GROUPS:
        for field in dataclasses.fields(getattr(Settings(), group)):
            default = field.default
            if field.default_factory is not dataclasses.MISSING:
                default = field.default_factory()
            found.append(Setting(field.name, group, leaf_of(field), default))
    return tuple(found)


@functools.cache
def setting(name: str) -> Setting:
    """Return the leaf called ``name``.

    Raises:
        KeyError: no leaf has that name.
    """
    by_name = {found.name: found for found in settings()}
    return by_name[name]


@functools.cache
def _hints(group: str) -> dict[str, Any]:
    return typing.get_type_hints(type(getattr(Settings(), group)))


def value_of(tree: Settings, name: str) -> object:
    """Return the value of leaf ``name`` in ``tree``."""
    return getattr(getattr(tree, setting(name).group), name)


def given(tree: Settings) -> frozenset[str]:
    """Return the names of the leaves ``tree`` sets (its ``given``, else those not default)."""
    if tree.given is not None:
        return tree.given
    return frozenset(
        found.name for found in settings() if value_of(tree, found.name) != found.default
    )


def scope(values: Mapping[str, object]) -> Settings:
    """Return the tree that sets ``values`` (leaf name → typed value) and leaves the rest unset.

    A key may also name a whole group (``parsing``: a ``ParseOptions``), which sets its leaves.

    Keys of an ``options`` value that name a parse option (``-O main_content=true``) set that
    option instead, converted by its declared type.

    Raises:
        OptionError: a key that names no setting, a value a group refuses (``--ocr``,
            ``--unit``, ``--engine``...), or an ``options`` entry its parse option's type
            cannot take.
    """
    known = [found.name for found in settings()]
    defaults = Settings()
    for name, value in values.items():
        if name in GROUPS:
            group = type(getattr(defaults, name))
            if not isinstance(value, group):
                raise OptionError(name, f"must be a {group.__name__} (got {value!r})")
        elif name not in known:
            hint = did_you_mean(name, known) or f" (settings: {', '.join(known)})"
            raise OptionError(name, f"is not a setting{hint}")
    values = _route_parse_options(_expand_groups(values))
    groups: dict[str, dict[str, object]] = {group: {} for group in GROUPS}
    for name, value in values.items():
        groups[setting(name).group][name] = value
    built = {
        group: dataclasses.replace(getattr(defaults, group), **fields) if fields else None
        for group, fields in groups.items()
    }
    return Settings(
        **{group: group_value for group, group_value in built.items() if group_value is not None},
        given=frozenset(values),
    )


@functools.cache
def command_line() -> Settings:
    """Return the scope of the command line's own defaults (``--timeout``: 300 seconds).

    It lies under every other scope of a command: the library's defaults differ for these.
    """
    return scope(
        {
            found.name: found.leaf.command_line
            for found in settings()
            if found.leaf.command_line is not None
        }
    )


def shortcuts(values: Mapping[str, object]) -> Settings:
    """Return the tree that sets the ``values`` that are not None (a call's keyword shortcuts).

    Raises:
        OptionError: a value a group refuses.
    """
    return scope({name: value for name, value in values.items() if value is not None})


def spec_values(tree: Settings, group: str) -> dict[str, object]:
    """Return the values of a group's leaves by the spec fields they fill (``Leaf.spec``)."""
    return {
        found.leaf.spec: value_of(tree, found.name)
        for found in settings()
        if found.group == group and found.leaf.spec is not None
    }


def from_spec(group: str, spec: object) -> dict[str, object]:
    """Return the leaf values a group's spec holds (leaf name → the spec's field's value)."""
    return {
        found.name: getattr(spec, found.leaf.spec)
        for found in settings()
        if found.group == group and found.leaf.spec is not None
    }


def with_values(tree: Settings, values: Mapping[str, object]) -> Settings:
    """Return ``tree`` with ``values`` (leaf name → typed value) set, and given, on top."""
    return merge(scope(values), tree)


def merge(upper: Settings, lower: Settings) -> Settings:
    """Return ``upper`` with ``lower`` filling what ``upper`` leaves unset: the one merge.

    A mapping leaf (``options``) merges by key, ``upper``'s winning; when it ``follows``
    another leaf, ``lower``'s entries are kept only if that leaf ends with ``lower``'s value.
    """
    above, below = given(upper), given(lower)
    chosen: dict[str, object] = {}
    for found in settings():
        if found.name in above:
            chosen[found.name] = value_of(upper, found.name)
        elif found.name in below:
            chosen[found.name] = value_of(lower, found.name)
    for found in settings():
        follows = found.leaf.follows
        if follows is None:
            continue
        mine = _mapping(value_of(upper, found.name)) if found.name in above else {}
        theirs = _mapping(value_of(lower, found.name)) if found.name in below else {}
        if chosen.get(follows, setting(follows).default) != value_of(lower, follows):
            theirs = {}
        chosen.pop(found.name, None)
        if mine or theirs:
            chosen[found.name] = {**theirs, **mine}
    return scope(chosen)


def _expand_groups(values: Mapping[str, object]) -> dict[str, object]:
    expanded: dict[str, object] = {}
    for name, value in values.items():
        if name in GROUPS:
            fields = dataclasses.fields(value)  # type: ignore[arg-type]  # a group: a dataclass
            expanded |= {field.name: getattr(value, field.name) for field in fields}
        else:
            expanded[name] = value
    return expanded


def _mapping(value: object) -> dict[str, object]:
    return dict(value) if isinstance(value, Mapping) else {}


def _route_parse_options(values: Mapping[str, object]) -> dict[str, object]:
    """Move ``options`` entries that name a parse option into that option."""
    from ragchunk.options import convert_value  # not at import: `--help` reads this module

    routed = dict(values)
    options = _mapping(routed.get(OPTIONS))
    parse = {key for key in options if _is_parse_option(key)}
    if not parse:
        return routed
    for key in sorted(parse):
        routed[key] = convert_value(key, setting(key).type, options.pop(key))
    if options:
        routed[OPTIONS] = options
    else:
        routed.pop(OPTIONS)
    return routed


def _is_parse_option(key: str) -> bool:
    return key in {found.name for found in settings() if found.group == "parsing"}


def routed(tree: Settings) -> Settings:
    """Return ``tree`` with its ``options`` entries that name parse options moved to them.

    Raises:
        OptionError: such an entry that its option's type cannot take.
    """
    options = tree.chunking.options
    if not any(_is_parse_option(key) for key in options):
        return tree
    moved = scope({OPTIONS: options})
    return merge(
        moved, dataclasses.replace(tree, chunking=dataclasses.replace(tree.chunking, options={}))
    )
