"""The Typer application object and the edge where errors become messages and exit codes."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import typer

from ragchunk.errors import UsageError
from ragchunk.text.printable import one_line as one_line

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK: Final = 0
EXIT_FAILED_INPUTS: Final = 1
EXIT_USAGE: Final = 2

app = typer.Typer(
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
