"""The Typer application object and the edge where errors become messages and exit codes."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

import typer

from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

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
