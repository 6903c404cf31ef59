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

import dataclasses
import functools
import os
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, TypeVar

from ragchunk import strategies
from ragchunk.defaults import STDIN, Engine
from ragchunk.errors import OptionError, UsageError
from ragchunk.options import Unit, convert_value
from ragchunk.parsers._spec import PARSE_OPTION_NAMES, CleanPart, OcrMode, ParseOptions, PdfEngine
from ragchunk.registry import did_you_mean
from ragchunk.runs.globs import Glob
from ragchunk.runs.inputs import absolute

CONFIG_NAME: Final = "ragchunk.toml"
PYPROJECT_NAME: Final = "pyproject.toml"

_RUN_KEYS: Final[dict[str, tuple[str, Any]]] = {
    "include": ("include", tuple[str, ...]),
    "exclude": ("exclude", tuple[str, ...]),
    "gitignore": ("gitignore", bool),
    "jobs": ("jobs", int),
    "fail-fast": ("fail_fast", bool),
    "manifest": ("manifest", str),
    "root": ("root", str),
    "engine": ("engine", Engine),
    "ray-address": ("ray_address", str),
}
"""Keys only the top level may set: they shape the whole run."""

_Scope = TypeVar("_Scope", "Settings", "RunSettings")

_OPTIONS: Final = "options"
_FILES: Final = "files"


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """How inputs are chunked, in one scope; None means "not set here".

    ``options`` are strategy options (``-O key=value``): strings from the command line or typed
    values from a file, converted by the strategy's declared types when the plan is built.
    """

    strategy: str | None = None
    size: int | None = None
    overlap: int | None = None
    unit: Unit | None = None
    tokenizer: str | None = None
    count_tokens: bool | None = None
    format: str | None = None
    language: str | None = None
    hashes: bool | None = None
    timeout: float | None = None
    max_bytes: int | None = None
    contextualize: bool | None = None
    min_size: int | None = None
    parents: str | None = None  # --parents [STRATEGY:]SIZE[:OVERLAP] (ragchunk.pipeline.parents)
    # How parsers read (issue 12); ``parse_options`` turns them into ParseOptions.
    pdf_engine: PdfEngine | None = None
    ocr: OcrMode | None = None
    ocr_language: str | None = None
    keep: tuple[CleanPart, ...] | None = None
    comments: bool | None = None
    keep_boilerplate: bool | None = None
    notes: bool | None = None
    hidden_slides: bool | None = None
    refine: bool | None = None
    embed: bool | None = None
    embedder: str | None = None
    embed_model: str | None = None
    embed_url: str | None = None
    embed_key_env: str | None = None
    embed_batch_size: int | None = None
    embed_timeout: float | None = None
    embed_concurrency: int | None = None
    embed_retries: int | None = None
    device: str | None = None
    cache_dir: str | None = None
    no_cache: bool | None = None
    api_base: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    api_timeout: float | None = None
    api_concurrency: int | None = None
    api_retries: int | None = None
    options: Mapping[str, object] = field(default_factory=dict)

    def parse_options(self) -> ParseOptions:
        """Return the parse options these settings give (unset ones take their defaults).

        Raises:
            OptionError: a value out of its range.
        """
        given = {
            name: getattr(self, name) for name in _PARSE_SETTINGS if getattr(self, name) is not None
        }
        return ParseOptions(**given)

    def over(self, lower: Settings) -> Settings:
        """Return these settings with ``lower``'s filling what is not set here.

        ``lower.options`` are kept only when both scopes end up with the same strategy: options
        written for one strategy mean nothing to another.
        """
        merged = _merge(self, lower)
        default = strategies.DEFAULT_STRATEGY
        same = (lower.strategy or default) == (merged.strategy or default)
        kept = (
            lower.options
            if same
            else {key: value for key, value in lower.options.items() if key in PARSE_OPTION_NAMES}
        )  # parse options (``main_content``...) are no strategy's: they always carry over
        options = {**kept, **self.options}
        return dataclasses.replace(merged, options=options)


@functools.cache
def _scope_keys() -> dict[str, tuple[str, Any]]:
    """Return the key → (field, type) a scope (top level, ``[files."GLOB"]``) may set.

    ``max_bytes`` is ``max-bytes``; built on first use (resolving hints slows start-up).
    """
    hints = typing.get_type_hints(Settings)
    return {
        name.replace("_", "-"): (name, _without_none(hints[name]))
        for name in (f.name for f in dataclasses.fields(Settings))
        if name != _OPTIONS
    }


def _without_none(hint: Any) -> Any:
    """Return ``X`` for ``X | None``."""
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    return args[0] if len(args) == 1 and type(None) in typing.get_args(hint) else hint


_PARSE_SETTINGS: Final = tuple(
    name for name in PARSE_OPTION_NAMES if name in {f.name for f in dataclasses.fields(Settings)}
)
"""The ``ParseOptions`` fields a scope sets by a key of its own (the others by ``-O``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunSettings:
    """Settings of the whole run; None means "not set here"."""

    include: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    gitignore: bool | None = None
    jobs: int | None = None
    fail_fast: bool | None = None
    manifest: str | None = None
    root: str | None = None
    engine: Engine | None = None
    ray_address: str | None = None

    def over(self, lower: RunSettings) -> RunSettings:
        """Return these settings with ``lower``'s filling what is not set here."""
        return _merge(self, lower)


@dataclass(frozen=True, slots=True)
class Rule:
    """A ``[files."GLOB"]`` section: inputs matching ``glob`` use ``settings``."""

    glob: Glob
    settings: Settings
    where: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Config:
    """A parsed configuration file (or none: every attribute empty).

    Attributes:
        path: the file, or None when there is none.
        where: how messages name the top level (``ragchunk.toml``, ``pyproject.toml
            [tool.ragchunk]``).
        defaults: the top level's chunking settings.
        run: the top level's run settings.
        rules: the ``[files."GLOB"]`` sections in file order.
    """

    path: Path | None = None
    where: str = ""
    defaults: Settings = field(default_factory=Settings)
    run: RunSettings = field(default_factory=RunSettings)
    rules: tuple[Rule, ...] = ()

    def scopes(self) -> Iterator[tuple[str, Settings]]:
        """Yield each scope's name for messages and its settings (a section over the top)."""
        if self.path is None:
            return
        yield self.where, self.defaults
        for rule in self.rules:
            yield rule.where, rule.settings.over(self.defaults)

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
        if "ragchunk" not in path.read_text(encoding="utf-8", errors="replace"):
            return False  # most pyproject.toml files: skip parsing TOML at start-up
        return _tool_table(_read_table(path, str(path))) is not None
    except (UsageError, OSError):
        return False  # a broken pyproject.toml of some other project is not ours to judge


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
    allowed = sorted([*_scope_keys(), *_RUN_KEYS, _OPTIONS, _FILES])
    for key in table:
        if key not in allowed:
            raise UsageError(f"{where}: {_unknown_key(key, allowed)}")
    defaults = _anchored(scope_settings(table, where), path.parent)
    run = RunSettings(**_values(table, _RUN_KEYS, where))
    if run.jobs is not None and run.jobs < 1:
        raise UsageError(f"{where}: jobs must be at least 1 (got {run.jobs})")
    if run.manifest is not None:
        run = dataclasses.replace(run, manifest=str(path.parent / run.manifest))
    if run.root is not None:  # like the manifest, relative to the file: ids pinned for CI
        run = dataclasses.replace(run, root=str(path.parent / run.root))
    rules = tuple(
        dataclasses.replace(rule, settings=_anchored(rule.settings, path.parent))
        for rule in _rules(table.get(_FILES, {}), where)
    )
    return Config(path=path, where=where, defaults=defaults, run=run, rules=rules)


def _anchored(settings: Settings, base: Path) -> Settings:
    """Return ``settings`` with a relative ``cache-dir`` taken from the file's directory."""
    if settings.cache_dir is None:
        return settings
    return dataclasses.replace(settings, cache_dir=str(base / settings.cache_dir))


def _rules(files: object, where: str) -> tuple[Rule, ...]:
    if not isinstance(files, dict):
        raise UsageError(f'{where}: files must be a table of [files."GLOB"] sections')
    rules = []
    section = "tool.ragchunk.files" if "[tool.ragchunk]" in where else "files"
    top = where.split(" [", 1)[0]
    for glob, body in files.items():
        rule_where = f"{top} [{section}.{_quoted(glob)}]"
        if not isinstance(body, dict):
            raise UsageError(f"{rule_where}: must be a table of settings")
        allowed = sorted([*_scope_keys(), _OPTIONS])
        for key in body:
            if key not in allowed:
                raise UsageError(f"{rule_where}: {_unknown_key(key, allowed)}")
        try:
            pattern = Glob(glob)
        except UsageError as exc:
            raise UsageError(f"{rule_where}: {exc}") from None
        rules.append(Rule(pattern, scope_settings(body, rule_where), rule_where))
    return tuple(rules)


def _quoted(glob: str) -> str:
    escaped = glob.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def scope_settings(table: dict[str, Any], where: str) -> Settings:
    """Return one scope's settings (unknown keys are the caller's to reject); ``where`` names it."""
    options = table.get(_OPTIONS, {})
    if not isinstance(options, dict):
        raise UsageError(f"{where}: options must be a table of strategy options")
    return Settings(**_values(table, _scope_keys(), where), options=dict(options))


def _values(table: dict[str, Any], keys: dict[str, tuple[str, Any]], where: str) -> dict[str, Any]:
    values = {}
    for key, (name, tp) in keys.items():
        if key in table:
            try:
                values[name] = convert_value(key, tp, table[key])
            except OptionError as exc:
                raise UsageError(f"{where}: {exc}") from None
    return values


def _unknown_key(key: str, allowed: list[str]) -> str:
    hint = did_you_mean(key, allowed) or f" (known keys: {', '.join(allowed)})"
    return f"unknown key {key!r}{hint}"


def _merge(upper: _Scope, lower: _Scope) -> _Scope:
    """Return ``upper`` with every None field taken from ``lower`` (same dataclass type)."""
    changes = {
        f.name: getattr(lower, f.name)
        for f in dataclasses.fields(upper)
        if getattr(upper, f.name) is None
    }
    return dataclasses.replace(upper, **changes)
