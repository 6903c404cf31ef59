"""``ragchunk strategies [NAME]``: each strategy, what it is for, its size and its options.

A list, one block per strategy, wrapped to the terminal: a table of four columns cut its cells
short at 80 columns. With NAME, that strategy's block alone.
"""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from ragchunk import strategies
from ragchunk.cli._app import app, stdout_console, usage_errors
from ragchunk.cli._panels import PanelledCommand

if TYPE_CHECKING:
    from rich.text import Text

    from ragchunk.strategies._spec import AnyStrategy

STRATEGIES_HELP = """List the strategies: what each is for, its size and overlap, its options.

Options other than size, overlap and unit are set with -O key=value. Below the list: the
parse options every strategy takes, and how to choose.

Examples:

\b
  ragchunk strategies
  ragchunk strategies semantic       one strategy, with its options
"""


@app.command(
    "strategies",
    cls=PanelledCommand,
    help=STRATEGIES_HELP,
)
def strategies_command(
    name: Annotated[
        Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
        typer.Argument(help="Show only this strategy.", metavar="NAME", show_default=False),
    ] = None,
) -> None:
    """Print the strategies (the help text is STRATEGIES_HELP)."""
    from rich.text import Text

    from ragchunk.errors import UsageError
    from ragchunk.registry import unknown_name_message

    with usage_errors():
        if name is not None and name not in strategies.STRATEGIES:
            raise UsageError(f"strategy {unknown_name_message(name, strategies.STRATEGIES)}")
    chosen = [name] if name is not None else list(strategies.names())
    console = stdout_console()
    blocks = [_strategy(strategies.get(each), console.width) for each in chosen]
    if name is None:
        blocks.append(_parse_options(console.width))
        blocks.append([Text(line) for line in _wrap(GUIDE, console.width, 0, 0)])
    for number, block in enumerate(blocks):
        if number:
            console.print()
        for line in block:
            console.print(line, soft_wrap=True)


def _strategy(strategy: AnyStrategy, width: int) -> list[Text]:
    """Return one strategy's block: its name, what it is for, its size, its options."""
    from rich.text import Text

    from ragchunk.options import option_fields, type_name

    title = Text(strategy.name, style="bold")
    if strategy.name == strategies.DEFAULT_STRATEGY:
        title.append(" (the default strategy)")
    budget = strategy.options().budget
    if strategy.bounded:
        size = f"{budget.size} {budget.unit}"
    else:
        size = f"unbounded unless --size is given (in {budget.unit})"
    lines = [title]
    lines += [Text(line) for line in _wrap(strategy.summary, width, 2, 2)]
    lines += [Text(line) for line in _wrap(f"size: {size}; overlap {budget.overlap}", width, 2, 4)]
    fields = option_fields(strategy.options)
    if fields:
        lines.append(Text("  options (-O key=value):"))
        for field in fields:
            lines += _option(field.name, type_name(field.type), field.default, field.help, width)
    return lines


def _parse_options(width: int) -> list[Text]:
    """Return the -O keys every strategy takes: what the parsers are asked (issue 16)."""
    import dataclasses

    from rich.text import Text

    from ragchunk.options import type_name
    from ragchunk.parsers._spec import ParseOptions

    lines = [Text("Parse options, with any strategy (-O key=value):", style="bold")]
    hints = typing.get_type_hints(ParseOptions)
    for field in dataclasses.fields(ParseOptions):
        kind = type_name(hints[field.name])
        lines += _option(field.name, kind, field.default, field.metadata["help"], width, indent=2)
    return lines


def _option(
    name: str, kind: str, default: object, help_text: str, width: int, *, indent: int = 4
) -> list[Text]:
    """Return an option's lines: its name, type and default, then its help, wrapped under it."""
    from rich.text import Text

    lines = [
        Text(line)
        for line in _wrap(
            f"{name} ({kind}, default {default!r}): {help_text}", width, indent, indent + 2
        )
    ]
    lines[0].stylize("cyan", indent, indent + len(name))
    return lines


def _wrap(text: str, width: int, indent: int, hanging: int) -> list[str]:
    """Return ``text`` wrapped to ``width`` columns, its first line indented by ``indent``.

    Lines never break at a hyphen (``--size`` stays whole); a word longer than a
    line is split over lines.
    """
    import textwrap

    return textwrap.wrap(
        text,
        max(width, 40),
        initial_indent=" " * indent,
        subsequent_indent=" " * hanging,
        break_on_hyphens=False,
    )


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
"""Printed under the list: when each kind of strategy fits, and what it costs."""
