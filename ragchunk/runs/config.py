r"""Configuration files: defaults for every option, and a strategy with options per glob (SPEC §5).

One file is read: the one ``--config`` names, else the first found in the current directory or
above it: ``ragchunk.toml``, or ``pyproject.toml`` holding a ``[tool.ragchunk]`` table (in one
directory ``ragchunk.toml`` comes first; a ``pyproject.toml`` without the table is passed over).
Keys are the flags' names without the dashes; flags win over the file::

    strategy = "recursive"
    size = 512
    overlap = 50
    exclude = ["drafts/**"]
    root = "."                # doc_ids relative to this file's directory, from anywhere

    [options]                 # strategy options, as with -O key=value
    separators = ["\n\n", "\n"]

    [files."*.md"]            # the first glob matching an input wins
    strategy = "markdown"
    size = 600

    [files."data/*.txt"]      # paths relative to the directory holding the file
    size = 300
    overlap = 30

A section inherits the top level's settings; ``options`` apply only to the strategy of the scope
that sets them. Unknown keys and badly typed values are ``UsageError``s naming the key and file.
"""

from __future__ import annotations

import functools
import os
import re
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ragchunk.defaults import STDIN
from ragchunk.errors import OptionError, UsageError
from ragchunk.options import convert_value
from ragchunk.registry import did_you_mean
from ragchunk.runs.globs import Glob
from ragchunk.runs.inputs import absolute
from ragchunk.settings import OPTIONS, Setting, Settings, merge, scope, settings

CONFIG_NAME: Final = "ragchunk.toml"
PYPROJECT_NAME: Final = "pyproject.toml"

_FILES: Final = "files"
_RUN: Final = "run"
"""The group of settings only the top level may set: they shape the whole run."""


@functools.cache
def scope_keys() -> dict[str, Setting]:
    """Return the key → leaf a scope (top level, ``[files."GLOB"]``) may set (``options`` apart)."""
    return {
        found.key: found
        for found in settings()
        if found.leaf.key and found.group != _RUN and found.name != OPTIONS
    }


@functools.cache
def _run_keys() -> dict[str, Setting]:
    """Return the key → leaf only the top level may set."""
    return {found.key: found for found in settings() if found.leaf.key and found.group == _RUN}


@dataclass(frozen=True, slots=True)
class Rule:
    """A ``[files."GLOB"]`` section: inputs matching ``glob`` use ``settings`` (a scope)."""

    glob: Glob
    settings: Settings
    where: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """A parsed configuration file (or none: every scope empty).

    Attributes:
        path: the file, or None when there is none.
        where: how messages name the top level (``ragchunk.toml``, ``pyproject.toml
            [tool.ragchunk]``).
        defaults: the top level's settings, a scope (its ``run`` group is the whole run's).
        rules: the ``[files."GLOB"]`` sections in file order.
    """

    path: Path | None = None
    where: str = ""
    defaults: Settings = field(default_factory=lambda: Settings(given=frozenset()))
    rules: tuple[Rule, ...] = ()

    def scopes(self) -> Iterator[tuple[str, Settings]]:
        """Yield each scope's name for messages and its settings (a section over the top)."""
        if self.path is None:
            return
        yield self.where, self.defaults
        for rule in self.rules:
            yield rule.where, merge(rule.settings, self.defaults)

    def match_parts(self, source: str, doc_id: str) -> tuple[str, ...]:
        """Return the path rule globs are matched against: relative to the file's directory.

        Inputs outside that directory (and standard input) are matched by their ``doc_id``.
        """
        if self.path is not None and source != STDIN:
            relative = os.path.relpath(absolute(source), self.path.parent)
            if not relative.startswith(".."):
                return tuple(Path(relative).parts)
        return tuple(doc_id.split("/"))


def load_config(explicit: str | None = None, cwd: Path | None = None) -> Config:
    """Return the configuration named by ``--config``, else the one found from ``cwd`` up.

    Raises:
        UsageError: the file cannot be read, is not TOML, or holds an unknown or bad key.
    """
    cwd = cwd or Path.cwd()
    if explicit is not None:
        path = Path(explicit)
        table = _read_table(path, explicit)
        if path.name == PYPROJECT_NAME:
            return _parse(path, f"{explicit} [tool.ragchunk]", _tool_table(table) or {})
        return _parse(path, explicit, table)
    found = find_config(cwd)
    if found is None:
        return Config()
    shown = _shown(found, cwd)
    table = _read_table(found, shown)
    if found.name == PYPROJECT_NAME:
        return _parse(Path(shown), f"{shown} [tool.ragchunk]", _tool_table(table) or {})
    return _parse(Path(shown), shown, table)


def find_config(start: Path) -> Path | None:
    """Return the nearest ``ragchunk.toml`` or ``pyproject.toml`` with ``[tool.ragchunk]``."""
    for directory in (start, *start.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT_NAME
        if pyproject.is_file() and _has_tool_table(pyproject):
            return pyproject
    return None


def _has_tool_table(path: Path) -> bool:
    try:
        if not _may_name_table(path.read_text(encoding="utf-8", errors="replace")):
            return False  # most pyproject.toml files: skip parsing TOML at start-up
        return _tool_table(_read_table(path, str(path))) is not None
    except (UsageError, OSError):
        return False  # a broken pyproject.toml of some other project is not ours to judge


_TABLE_KEY: Final = r"""["']?ragchunk["']?\s*[.=\]]"""
"""``ragchunk`` as a TOML key: ``[tool.ragchunk]``, ``tool.ragchunk.size =``, ``ragchunk = {``
(a pattern string, compiled by ``re`` when first searched: most runs find no pyproject.toml)."""


def _may_name_table(text: str) -> bool:
    """Return whether a pyproject.toml may hold ``[tool.ragchunk]`` (False: it surely does not).

    A project that depends on ragchunk names it (``"ragchunk>=0.1"``) without a table: its
    file is not parsed at every start-up. A key written with escapes is parsed to be sure.
    """
    if "\\u" in text or "\\U" in text:
        return True
    return "ragchunk" in text and re.search(_TABLE_KEY, text) is not None


def _tool_table(table: dict[str, Any]) -> dict[str, Any] | None:
    tool = table.get("tool")
    found = tool.get("ragchunk") if isinstance(tool, dict) else None
    return found if isinstance(found, dict) else None


def _shown(path: Path, cwd: Path) -> str:
    """Name a found file as messages show it: by name in ``cwd``, else by its full path."""
    return path.name if path.parent == cwd else str(path)


def _read_table(path: Path, shown: str) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"--config: cannot read {shown} ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise UsageError(f"{shown}: not UTF-8 text") from None
    import tomllib  # only when there is a file to read: it costs start-up time otherwise

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{shown}: invalid TOML ({exc})") from None


def _parse(path: Path, where: str, table: dict[str, Any]) -> Config:
    allowed = sorted([*scope_keys(), *_run_keys(), OPTIONS, _FILES])
    for key in table:
        if key not in allowed:
            raise UsageError(f"{where}: {_unknown_key(key, allowed)}")
    values = {**scope_values(table, where), **_values(table, _run_keys(), where)}
    jobs = values.get("jobs")
    if isinstance(jobs, int) and jobs < 1:
        raise UsageError(f"{where}: jobs must be at least 1 (got {jobs})")
    defaults = _scope(_anchored(values, path.parent, ("cache_dir", "manifest", "root")), where)
    rules = tuple(_rules(table.get(_FILES, {}), where, path.parent))
    return Config(path=path, where=where, defaults=defaults, rules=rules)


def _anchored(values: dict[str, object], base: Path, names: tuple[str, ...]) -> dict[str, object]:
    """Return ``values`` with the relative paths of ``names`` taken from the file's directory.

    ``cache-dir``, ``manifest`` and ``root`` then mean the same from anywhere (ids pinned for CI).
    """
    return {
        name: str(base / value) if name in names and isinstance(value, str) else value
        for name, value in values.items()
    }


def _rules(files: object, where: str, base: Path) -> tuple[Rule, ...]:
    if not isinstance(files, dict):
        raise UsageError(f'{where}: files must be a table of [files."GLOB"] sections')
    rules = []
    section = "tool.ragchunk.files" if "[tool.ragchunk]" in where else "files"
    top = where.split(" [", 1)[0]
    for glob, body in files.items():
        rule_where = f"{top} [{section}.{_quoted(glob)}]"
        if not isinstance(body, dict):
            raise UsageError(f"{rule_where}: must be a table of settings")
        allowed = sorted([*scope_keys(), OPTIONS])
        for key in body:
            if key not in allowed:
                raise UsageError(f"{rule_where}: {_unknown_key(key, allowed)}")
        try:
            pattern = Glob(glob)
        except UsageError as exc:
            raise UsageError(f"{rule_where}: {exc}") from None
        values = _anchored(scope_values(body, rule_where), base, ("cache_dir",))
        rules.append(Rule(pattern, _scope(values, rule_where), rule_where))
    return tuple(rules)


def _quoted(glob: str) -> str:
    escaped = glob.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def scope_settings(table: dict[str, Any], where: str) -> Settings:
    """Return one scope's settings (unknown keys are the caller's to reject); ``where`` names it.

    Raises:
        UsageError: a value its setting's type cannot take (named with ``where``).
    """
    return _scope(scope_values(table, where), where)


def scope_values(table: dict[str, Any], where: str) -> dict[str, object]:
    """Return the typed values of a scope's keys (``options`` included), by leaf name.

    Raises:
        UsageError: a value its setting's type cannot take (named with ``where``).
    """
    values = _values(table, scope_keys(), where)
    options = table.get(OPTIONS, {})
    if not isinstance(options, dict):
        raise UsageError(f"{where}: options must be a table of strategy options")
    if options:
        values[OPTIONS] = dict(options)
    return values


def _scope(values: Mapping[str, object], where: str) -> Settings:
    try:
        return scope(values)
    except OptionError as exc:  # a value its group refuses, or a parse option in [options]
        raise UsageError(f"{where}: {exc}") from None


def _values(table: dict[str, Any], keys: dict[str, Setting], where: str) -> dict[str, object]:
    values = {}
    for key, found in keys.items():
        if key in table:
            try:
                values[found.name] = convert_value(key, _without_none(found.type), table[key])
            except OptionError as exc:
                raise UsageError(f"{where}: {exc}") from None
    return values


def _without_none(hint: Any) -> Any:
    """Return ``X`` for ``X | None``: a file cannot unset a key."""
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return args[0] if len(args) == 1 and type(None) in typing.get_args(hint) else hint


def _unknown_key(key: str, allowed: list[str]) -> str:
    hint = did_you_mean(key, allowed) or f" (known keys: {', '.join(allowed)})"
    return f"unknown key {key!r}{hint}"
