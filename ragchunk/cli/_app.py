"""The Typer application object and the edge where errors become messages and exit codes."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import typer
from typer._click.formatting import HelpFormatter
from typer.core import TyperCommand

from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

_OTHER: Final = "Other options"
EXIT_OK: Final = 0
EXIT_FAILED_INPUTS: Final = 1
EXIT_USAGE: Final = 2

# Line breaks, other control characters, and the lone surrogates standing for the bytes of a
# file name that is not UTF-8 (os.fsdecode's surrogateescape).
_UNPRINTABLE: Final = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_ESCAPES: Final = {"\n": "\\n", "\r": "\\r"}

app = typer.Typer(
    name="ragchunk",
    help="Turn documents into chunks for retrieval-augmented generation, with exact offsets.",
    no_args_is_help=True,
    add_completion=False,  # static scripts live in completions/ (ragchunk.cli._completion)
    pretty_exceptions_show_locals=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


class PlainUsage(TyperCommand):
    """A command whose usage line names its arguments plainly: ``split [OPTIONS] PATH...``.

    Typer wraps a required argument in braces (``{PATH}``), which reads as a set to choose from.
    """

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        # (typer.Context is what Typer passes; mypy sees its vendored click's base class)
        """Return the usage line's pieces, required arguments without braces."""
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]


class Panelled(PlainUsage):
    """A command whose ``--help`` lists its options in panels (``rich_help_panel``), in order.

    The panels are the settings tree's (``ragchunk.settings.PANELS``); options of no panel
    (``--help``) come last.
    """

    def format_options(self, ctx: typer.Context, formatter: HelpFormatter) -> None:  # type: ignore[override]
        """Write the arguments, then each panel's options under its title."""
        from ragchunk.settings import PANELS

        arguments: list[tuple[str, str]] = []
        panels: dict[str, list[tuple[str, str]]] = {panel: [] for panel in PANELS}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append(record)
            else:
                panel = getattr(param, "rich_help_panel", None) or _OTHER
                panels.setdefault(panel, []).append(record)
        for title, records in (("Arguments", arguments), *panels.items()):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


def stderr_console() -> Console:
    """Return the console for warnings, summaries and progress (never data)."""
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def stdout_console() -> Console:
    """Return the console for tables the user asked for on standard output."""
    from rich.console import Console

    return Console(highlight=False)


def one_line(message: str) -> str:
    r"""Return ``message`` on one printable line: control characters and stray bytes escaped.

    A file name may hold a line feed or bytes that are not UTF-8 (``\xff``, as the name's
    byte); messages name files, and each must stay one line (SPEC §6).
    """
    return _UNPRINTABLE.sub(_escape, message)


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _ESCAPES:
        return _ESCAPES[char]
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the undecodable byte itself
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


@contextlib.contextmanager
def usage_errors() -> Iterator[None]:
    """Turn a ``UsageError`` into one line on stderr and exit code 2."""
    try:
        yield
    except UsageError as exc:
        sys.stderr.write(f"Error: {one_line(str(exc))}\n")
        raise typer.Exit(EXIT_USAGE) from None
