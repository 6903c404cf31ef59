"""``ragchunk strategies``: each strategy, what it is for, and its options with defaults."""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated

import typer

from ragchunk import strategies
from ragchunk.cli._app import app, stdout_console

if TYPE_CHECKING:
    from rich.text import Text


@app.command("strategies")
def strategies_command(
    name: Annotated[
        str | None, typer.Argument(help="Show only this strategy.", show_default=False)
    ] = None,
) -> None:
    """List the strategies, their options and defaults.

    Options other than size, overlap and unit are set with -O key=value.
    """
    from rich.table import Table
    from rich.text import Text

    from ragchunk.cli._app import usage_errors
    from ragchunk.options import option_fields, type_name

    with usage_errors():
        chosen = [strategies.get(name)] if name else [strategies.get(n) for n in strategies.names()]
    table = Table(show_lines=True, expand=True)
    table.add_column("strategy", no_wrap=True, style="bold")
    table.add_column("what it is for", ratio=2)
    table.add_column("defaults", no_wrap=True)
    table.add_column("options (-O key=value)", ratio=3)
    for strategy in chosen:
        budget = strategy.options().budget
        if strategy.bounded:
            size = f"{budget.size} {budget.unit}"
        else:
            size = f"unbounded unless\n--size is given\n(in {budget.unit})"
        default = f"{size}\noverlap {budget.overlap}"
        if strategy.name == strategies.DEFAULT_STRATEGY:
            default += "\n(default strategy)"
        lines = Text()
        for field in option_fields(strategy.options):
            if lines:
                lines.append("\n")
            lines.append(field.name, style="cyan")
            lines.append(f" ({type_name(field.type)}, default {field.default!r}): {field.help}")
        table.add_row(strategy.name, Text(strategy.summary), default, lines or Text("—"))
    console = stdout_console()
    console.print(table)
    if not name:
        console.print(_parse_options())


def _parse_options() -> Text:
    """Describe the -O keys every strategy takes: what the parsers are asked (issue 16)."""
    import dataclasses

    from rich.text import Text

    from ragchunk.options import type_name
    from ragchunk.parsers._spec import ParseOptions

    lines = Text("Parse options, with any strategy (-O key=value):", style="bold")
    hints = typing.get_type_hints(ParseOptions)
    for field in dataclasses.fields(ParseOptions):
        lines.append("\n  ")
        lines.append(field.name, style="cyan")
        kind = type_name(hints[field.name])
        lines.append(f" ({kind}, default {field.default!r}): {field.metadata['help']}")
    return lines
