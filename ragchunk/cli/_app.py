"""The Typer application, its table of commands, and the edge where errors become messages.

``COMMANDS`` names every command, the module that defines it and the one line ``ragchunk
--help`` shows for it. A command's module is imported only when that command runs (or its own
``--help`` is asked for): ``ragchunk --help`` and ``ragchunk split`` never import ``eval`` or
``view``. To add a command, write ``cli/<name>.py`` registering it with ``@app.command("<name>",
...)`` and add one line to ``COMMANDS`` (``Lazy(summary, module)`` when its module is another).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import typer
import typer.main
from typer.core import TyperGroup

from ragchunk.errors import UsageError
from ragchunk.text.printable import one_line as one_line

if TYPE_CHECKING:
    from rich.console import Console
    from typer._click import Command, Context, HelpFormatter

EXIT_OK: Final = 0
EXIT_FAILED_INPUTS: Final = 1
EXIT_USAGE: Final = 2


class Lazy(NamedTuple):
    """A command of the table: its line in ``ragchunk --help``, and the module registering it."""

    summary: str
    module: str | None = None
    """None: ``ragchunk.cli.<name>``."""


COMMANDS: Final[Mapping[str, Lazy]] = {
    "eval": Lazy("Score chunking configurations by retrieval."),
    "index": Lazy("Keep a vector store in step with documents."),
    "inspect": Lazy("Show how ragchunk reads a file."),
    "query": Lazy("Print the chunks of a vector store nearest a question."),
    "split": Lazy("Split documents into chunks, printed as JSONL."),
    "stats": Lazy("Summarise the chunks that split wrote."),
    "strategies": Lazy("List the strategies, their options and defaults."),
    "view": Lazy("Draw a document's chunks as one HTML page."),
}
"""Every command: name → its module and summary. One line per command; the module is
imported when the command is looked up (run, or its own help), never to list it."""


class _Commands(MutableMapping[str, "Command"]):
    """The group's commands by name: those of ``COMMANDS`` are built when first looked up."""

    def __init__(self, built: Mapping[str, Command]) -> None:
        self._built = dict(built)

    def __getitem__(self, name: str) -> Command:
        if name not in self._built:
            if name not in COMMANDS:
                raise KeyError(name)
            self._built[name] = _build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Command) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        del self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({*COMMANDS, *self._built}))

    def __len__(self) -> int:
        return len({*COMMANDS, *self._built})

    def __contains__(self, name: object) -> bool:
        return name in COMMANDS or name in self._built

    def summary(self, name: str) -> str | None:
        """Return the command's line in ``--help`` without importing it (None: not lazy)."""
        lazy = COMMANDS.get(name)
        return None if lazy is None or name in self._built else lazy.summary


def _build(name: str) -> Command:
    """Import the module of command ``name`` and return the Click command it registered."""
    lazy = COMMANDS[name]
    module = lazy.module or f"ragchunk.cli.{name}"
    importlib.import_module(module)
    for info in reversed(app.registered_commands):
        if info.name == name:
            info.short_help = lazy.summary
            return typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=app.pretty_exceptions_short,
                rich_markup_mode=app.rich_markup_mode,
            )
    raise LookupError(f"{module} registers no command {name!r}")


class LazyGroup(TyperGroup):
    """The ``ragchunk`` group: lists ``COMMANDS`` from the table, imports one when it runs."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self.commands = _Commands(self.commands)

    def list_commands(self, ctx: Context) -> list[str]:  # noqa: ARG002 - Click's signature
        """Return the commands' names, sorted, without importing any."""
        return list(self.commands)

    def format_commands(self, ctx: Context, formatter: HelpFormatter) -> None:
        """Write the commands and their summaries, from the table (no command is imported)."""
        commands = self.commands
        rows: list[tuple[str, str]] = []
        for name in self.list_commands(ctx):
            line = commands.summary(name) if isinstance(commands, _Commands) else None
            if line is None:
                command = commands[name]
                if command.hidden:
                    continue
                line = command.get_short_help_str(formatter.width - 6 - len(name))
            rows.append((name, line))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    cls=LazyGroup,
    name="ragchunk",
    help="Turn documents into chunks for retrieval-augmented generation, with exact offsets.",
    no_args_is_help=True,
    add_completion=False,  # static scripts live in completions/ (ragchunk.cli._completion)
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def stderr_console() -> Console:
    """Return the console for warnings, summaries and progress (never data)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def stdout_console() -> Console:
    """Return the console for tables the user asked for on standard output."""
    from rich.console import Console

    return Console(highlight=False)


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """Turn a ``UsageError`` into one line on stderr and exit code 2."""
    try:
        yield
    except UsageError as exc:
        sys.stderr.write(f"Error: {one_line(str(exc))}\n")
        raise typer.Exit(EXIT_USAGE) from None
