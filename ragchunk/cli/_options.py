"""The commands' options, made from the settings tree, and the typed settings read back from them.

Every leaf of ``ragchunk.settings`` declares its flag, help, panel and default once;
``settings_command`` turns the leaves a command names into options of that command (in the
order named, among the command's own parameters) and calls the command with ``flags``: the
``Settings`` scope the user typed. A flag not typed leaves its setting unset, so a
configuration file's value is not overridden by a default. The recipe options
(``RECIPE_FLAGS``: what shapes the chunks of an already parsed document) are also what
``view --compare`` parses from its string, with the same declarations (``parse_recipe_flags``).
"""

from __future__ import annotations

import inspect
import shlex
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, Final, Optional

import typer
import typer.main

# Typer 0.28 vendors Click and re-exports only some of its exceptions (never their base).
from typer._click.core import Context as ClickContext
from typer._click.exceptions import ClickException

from ragchunk import strategies
from ragchunk.cli._app import usage_errors
from ragchunk.errors import UsageError
from ragchunk.settings import OPTIONS, Setting, Settings, scope, setting, settings
from ragchunk.settings._leaf import RUN

FLAGS: Final = "flags"
"""The parameter a settings command receives its ``Settings`` scope in."""

RECIPE_FLAGS: Final = (
    "strategy",
    "size",
    "overlap",
    "unit",
    "tokenizer",
    "options",
    "count_tokens",
    "contextualize",
    "min_size",
)
"""The settings that shape the chunks of a parsed document (what ``--compare`` may change)."""


def flags_of(group: str) -> tuple[str, ...]:
    """Return the leaves of a group of the tree that have a flag, in declaration order."""
    return tuple(found.name for found in settings() if found.group == group and found.leaf.flags)


READING_FLAGS: Final = flags_of("parsing")
"""How inputs are read (``ParseOptions``): ``split`` and ``inspect`` offer every one of these,
so a parse option declared there needs no change here."""

ConfigFlag = Annotated[
    Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
    typer.Option(
        "--config",
        help="Read settings from this file instead of the ragchunk.toml or "
        "pyproject.toml found from here up.",
        metavar="FILE",
        show_default=False,
        rich_help_panel=RUN,
    ),
]


def _complete_strategy(incomplete: str) -> list[str]:
    return [name for name in strategies.names() if name.startswith(incomplete)]


def _complete_embedder() -> list[str]:
    from ragchunk import backends

    return list(backends.names("embedder"))


def option(found: Setting) -> inspect.Parameter:
    """Return the command parameter of a leaf: its Typer option, type and default.

    A flag whose default is shown (``--strategy``, ``--timeout``) has that default; the others
    default to None (a switch to False) and say their default in their help, if anywhere.
    """
    declared = found.leaf
    value_type = _value_type(found.type)
    default = declared.command_line if declared.command_line is not None else found.default
    kind: Any  # a type expression
    shown: object
    if value_type is bool or declared.negative:
        kind, shown = bool, False
    elif declared.show_default and default is not None:
        kind, shown = value_type, default
    else:
        kind, shown = Optional[value_type], None  # noqa: UP045 - Typer needs Optional on 3.11
    completions = declared.completions
    extra: dict[str, Any] = {}
    if declared.metavar is not None:
        extra["metavar"] = declared.metavar
    if found.name == "strategy":
        extra["autocompletion"] = _complete_strategy
    elif found.name == "embedder":
        extra["autocompletion"] = _complete_embedder
    elif completions:
        extra["autocompletion"] = lambda: list(completions)
    declaration = typer.Option(
        *declared.flags,
        help=declared.flag_help,
        show_default=declared.show_default,
        rich_help_panel=declared.panel,
        **extra,
    )
    return inspect.Parameter(
        found.param,
        inspect.Parameter.KEYWORD_ONLY,
        default=shown,
        annotation=Annotated[kind, declaration],
    )


def _value_type(hint: Any) -> Any:  # a type expression
    """Return the type Click converts a leaf's value to (closed sets and lists as strings)."""
    args = [arg for arg in typing.get_args(hint) if arg is not type(None)]
    if typing.get_origin(hint) in (types.UnionType, typing.Union) and len(args) == 1:
        hint = args[0]
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return str
    if origin is tuple or origin is Mapping or hint is Mapping:
        return list[str]
    return hint


_Command = Callable[..., None]


def settings_command(*order: str) -> Callable[[_Command], _Command]:
    """Give a command the options of the leaves ``order`` names, and ``flags`` their settings.

    ``order`` lists the command's options as ``--help`` shows them: leaf names, and the names
    of the command's own parameters among them (those not named keep their place after).
    The command takes ``ctx`` (if it wants it), its own parameters and ``flags``: the
    ``Settings`` scope of the leaves' flags the user typed, read inside ``usage_errors`` (a bad
    ``--unit`` or ``-O`` is exit 2 before anything else happens).
    """

    def decorate(command: _Command) -> _Command:
        own = inspect.signature(command, eval_str=True).parameters
        wants_ctx = "ctx" in own
        declared = {name: param for name, param in own.items() if name not in ("ctx", FLAGS)}
        leaves = [setting(name) for name in order if name not in declared]
        generated = {found.param: option(found) for found in leaves}
        placed = [
            declared[name] if name in declared else generated[setting(name).param] for name in order
        ]
        rest = [param for name, param in declared.items() if name not in order]
        positional = [param for param in rest if param.kind is not inspect.Parameter.KEYWORD_ONLY]
        keyword = [param for param in rest if param.kind is inspect.Parameter.KEYWORD_ONLY]
        context = inspect.Parameter(
            "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
        )
        parameters = [context, *positional, *_keyword(placed), *keyword]
        names = {found.param: found for found in leaves}

        def run(ctx: typer.Context, **values: object) -> None:
            mine = {name: value for name, value in values.items() if name not in names}
            with usage_errors():
                flags = settings_from_flags(values, given_flags(ctx) & set(names))
            if wants_ctx:
                mine["ctx"] = ctx
            command(**mine, flags=flags)

        run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]  # read by Typer
        run.__doc__ = command.__doc__
        run.__name__ = command.__name__
        run.__module__ = command.__module__
        return run

    return decorate


def _keyword(params: Iterable[inspect.Parameter]) -> list[inspect.Parameter]:
    return [param.replace(kind=inspect.Parameter.KEYWORD_ONLY) for param in params]


def given_flags(ctx: ClickContext) -> set[str]:
    """Return the parameters the user set (a flag wins over a configuration file)."""
    sources = {name: ctx.get_parameter_source(name) for name in ctx.params}
    return {name for name, source in sources.items() if source and source.name != "DEFAULT"}


def settings_from_flags(params: Mapping[str, object], given: Iterable[str]) -> Settings:
    """Return the settings the flags set: a scope whose unset leaves are the flags not given.

    ``params`` are a command's parameters by name (``click.Context.params``) and ``given``
    those the user typed; a command without one of the tree's options leaves that setting
    unset. Each value is the one its leaf declares: Click converted it to the option's type,
    the leaf's group checks it (``--unit``, ``--ocr``, ``--engine``...). ``--emit-passages``
    is the strategy option ``emit_passages``.

    Raises:
        UsageError: a bad value, or an ``-O`` assignment without ``=``.
    """
    chosen = set(given)
    values: dict[str, object] = {}
    for found in settings():
        if found.param in chosen and found.leaf.flags:
            values[found.name] = _typed(params[found.param], negative=found.leaf.negative)
    options = parse_assignments(_texts(values.pop(OPTIONS, None)))
    if params.get("emit_passages"):
        options["emit_passages"] = "true"
    if options:
        values[OPTIONS] = options
    return scope(values)


def _typed(value: object, *, negative: bool) -> object:
    """Return a flag's value as its leaf holds it: lists as tuples, a ``--no-...`` as False."""
    if negative:
        return False
    return tuple(value) if isinstance(value, list) else value


def _texts(value: object) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list | tuple) else []


def parse_assignments(assignments: Iterable[str]) -> dict[str, str]:
    """Return ``-O key=value`` assignments as a mapping (the last of a key wins).

    Raises:
        UsageError: an assignment without ``=`` or without a key.
    """
    values: dict[str, str] = {}
    for assignment in assignments:
        key, sep, value = assignment.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"-O expects key=value (got {assignment!r})")
        values[key.strip()] = value
    return values


def parse_recipe_flags(text: str, flag: str) -> Settings:
    """Parse a string of recipe options (``'-s recursive --size 300'``) into settings.

    The string is split as a shell would and parsed with the same option declarations as the
    command line (``RECIPE_FLAGS``); ``flag`` names the option that carried it in messages.

    Raises:
        UsageError: the string does not split, names an unknown option or a bad value.
    """
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise UsageError(f"{flag} {text!r} does not split into options: {exc}") from None
    command = typer.main.get_command(recipe_app)
    try:
        with command.make_context(flag, words) as ctx:
            return settings_from_flags(ctx.params, given_flags(ctx))
    except ClickException as exc:
        raise UsageError(f"{flag}: {exc.format_message()}") from None


recipe_app = typer.Typer(add_completion=False, rich_markup_mode=None)
"""The options of ``--compare`` (its command is never run)."""


@recipe_app.command(context_settings={"help_option_names": []})
@settings_command(*RECIPE_FLAGS)
def _recipe(flags: Settings) -> None:
    """Parse the recipe options of ``--compare`` (never run)."""
