"""The panels that group a command's options in ``--help``, and the command class that draws them.

Each option names its panel where it is declared (``rich_help_panel=INPUT``); an option with no
panel is listed first, under "Options" (``--help`` and a command's own few options). Panels
follow ``ORDER`` whatever the order of the parameters, so a command's parameters keep the order
their shell completion lists them in. Help is plain text (no rich markup), wrapped by Click to
the terminal (at most 78 columns).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from typer.core import TyperCommand

from ragchunk.settings import _leaf

if TYPE_CHECKING:
    import typer
    from typer._click.formatting import HelpFormatter

# One definition of each panel: the settings tree's leaves name them (ragchunk.settings._leaf).
INPUT: Final = _leaf.INPUT
"""Which files are inputs and how they are recognised: --format, --include, --max-bytes..."""

STRATEGY: Final = _leaf.STRATEGY
"""What shapes the chunks: --strategy, --size, --overlap, --unit, -O, --parents..."""

FORMATS: Final = _leaf.FORMATS
"""How a format is read: --pdf-engine, --ocr, --keep, --password, --notes..."""

EMBEDDING: Final = _leaf.EMBEDDINGS
"""The embedding model and its cache."""

CHAT: Final = _leaf.LLM
"""The chat model that rewriting strategies (and ``eval --generate``) ask."""

OUTPUT: Final = _leaf.OUTPUT
"""Where the chunks go and what each record carries: -o, --table, --hashes, --dedupe..."""

RUN: Final = _leaf.RUN
"""How the run goes: --jobs, --engine, --manifest, --timeout, --check, --config, --quiet..."""

ORDER: Final = _leaf.PANELS
"""The panels in the order ``--help`` shows them, after the options that have none."""

OPTIONS: Final = "Options"
"""The heading of the options that name no panel."""


class PanelledCommand(TyperCommand):
    """A command whose help groups its options into panels, in plain text.

    Its usage line names its arguments plainly (``split [OPTIONS] PATH...``): Typer wraps a
    required argument in braces (``{PATH}``), which reads as a set to choose from.
    """

    def collect_usage_pieces(self, ctx: typer.Context) -> list[str]:  # type: ignore[override]
        # (typer.Context is what Typer passes; mypy sees its vendored click's base class)
        """Return the usage line's pieces, required arguments without braces."""
        pieces = super().collect_usage_pieces(ctx)
        return [p[1:-1] if p.startswith("{") and p.endswith("}") else p for p in pieces]

    def format_options(self, ctx: typer.Context, formatter: HelpFormatter) -> None:  # type: ignore[override]
        """Write the arguments, the options without a panel, then each panel's options."""
        arguments: list[tuple[str, str]] = []
        panels: dict[str, list[tuple[str, str]]] = {}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append(record)
            else:
                panels.setdefault(getattr(param, "rich_help_panel", None) or OPTIONS, []).append(
                    record
                )
        unknown = set(panels) - {OPTIONS, *ORDER}
        if unknown:
            raise ValueError(f"{self.name}: options in panels not in ORDER: {sorted(unknown)}")
        if arguments:
            with formatter.section("Arguments"):
                write_rows(formatter, arguments)
        for title in (OPTIONS, *ORDER):
            if title in panels:
                with formatter.section(title):
                    write_rows(formatter, panels[title])


def write_rows(formatter: HelpFormatter, rows: list[tuple[str, str]]) -> None:
    """Write ``(term, help)`` rows as Click's ``write_dl`` does, never breaking at a hyphen.

    Click wraps at hyphens too, which cuts a flag in two (``--ray-`` / ``address``) and a
    model name (``gt-all-`` / ``minilm-l6-v2``); words longer than the column are still split.
    """
    import textwrap

    first_col = min(max(len(term) for term, _ in rows), _TERM_MAX) + _GAP
    indent = formatter.current_indent
    width = max(formatter.width - first_col - _GAP, 10)
    for term, text in rows:
        formatter.write(f"{'':>{indent}}{term}")
        lines = textwrap.wrap(text, width, break_on_hyphens=False)
        if not lines:
            formatter.write("\n")
            continue
        if len(term) <= first_col - _GAP:
            formatter.write(" " * (first_col - len(term)))
        else:
            formatter.write("\n" + " " * (first_col + indent))
        formatter.write(f"{lines[0]}\n")
        for line in lines[1:]:
            formatter.write(f"{'':>{first_col + indent}}{line}\n")


_TERM_MAX: Final = 30
"""Terms longer than this (``--parents [STRATEGY:]SIZE[:OVERLAP]``) stand on a line of their own."""
_GAP: Final = 2
