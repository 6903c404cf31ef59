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
        console.print(Text(GUIDE))


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


GUIDE = (
    "Choosing: the shape strategies (all but semantic and late) need no model and cut by "
    "structure: recursive for prose, markdown and hierarchical for documents with headings, "
    "code for source, token or sentence for even sizes. semantic cuts where the meaning of the "
    "sentences changes: for long text whose topics change without headings. It embeds every "
    "sentence once: a model pass over the whole text (on a CPU, thousands of times slower than "
    "a shape strategy; see benchmarks/), or one endpoint request per batch of sentences. late "
    "gives each chunk a vector that saw the text around it (a pronoun's referent, the subject "
    "of a section): one pass of the local model over the text in 256-token windows; --size "
    "counts --tokenizer tokens. --refine embeds only the chunks over the size (hierarchical's "
    "long subtrees) and splits them by meaning; --embed adds a vector to every record (one pass "
    "over the chunks). Vectors are cached on disk, so reruns and size sweeps cost no embedding."
)
"""Printed under the table: when each kind of strategy fits, and what it costs."""
