"""The command line: ``ragchunk split | strategies | inspect | stats | view | eval | index``...

The commands: ``split``, ``strategies``, ``inspect``, ``stats``, ``view``, ``eval``, ``index``
and ``query``.

Exit codes: 0 every input chunked; 1 some inputs failed (the others were written and a summary
names each failure); 2 bad usage or options.
"""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from ragchunk.cli._app import EXIT_OK, app  # the commands: cli._app.COMMANDS, imported lazily

__all__ = ["app", "main"]


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        sys.stdout.write(f"ragchunk {version('ragchunk')}\n")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        Optional[bool],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version."),
    ] = None,
) -> None:
    """Turn documents into chunks for retrieval-augmented generation, with exact offsets.

    Start with `ragchunk split FILE --table`; `ragchunk strategies` lists the strategies and
    their options.
    """


def main() -> None:
    """Run the command line.

    A closed standard output (``| head``) is handled where the data is written
    (``cli._batch``): Click turns a broken pipe inside a command into exit code 1 before it
    could reach this function.
    """
    app(prog_name="ragchunk")
