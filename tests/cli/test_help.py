"""Help that reads at 80 columns: every command's --help, split's panels, ``strategies [NAME]``."""

from __future__ import annotations

import dataclasses
import re
import typing
from typing import Annotated

import pytest
import typer
import typer.main
from typer.testing import CliRunner

from ragchunk import strategies
from ragchunk.cli import app
from ragchunk.cli._panels import (
    CHAT,
    EMBEDDING,
    FORMATS,
    INPUT,
    ORDER,
    OUTPUT,
    RUN,
    STRATEGY,
    PanelledCommand,
)
from ragchunk.options import option_fields
from ragchunk.parsers._spec import ParseOptions

runner = CliRunner()
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
NARROW = {"COLUMNS": "80"}


def helped(*words: str, columns: int = 80) -> str:
    result = runner.invoke(app, [*words, "--help"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    return result.stdout


def sections(text: str) -> dict[str, str]:
    """Return each help section's heading (``Input``) → its lines."""
    found: dict[str, str] = {}
    heading = ""
    for line in text.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            heading = line[:-1]
            found[heading] = ""
        elif heading:
            found[heading] += line + "\n"
    return found


def words(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("command", [(), *((name,) for name in COMMANDS)], ids=str)
def test_every_help_fits_80_columns_and_shows_every_option(command: tuple[str, ...]) -> None:
    text = helped(*command)
    for line in text.splitlines():
        assert len(line) <= 80, line
        assert line == line.rstrip(), line
        assert "…" not in line
        assert not re.search(r"[A-Za-z]-$", line), f"a word broken at its hyphen: {line!r}"
    click_command = typer.main.get_command(app)
    if command:
        click_command = click_command.commands[command[0]]  # type: ignore[attr-defined]
    for param in click_command.params:
        if param.param_type_name == "option" and not param.hidden:
            assert re.search(rf"(^|[ ,]){re.escape(param.opts[-1])}\b", text, re.M), param.name


def test_root_help_lists_each_command_without_cutting_its_summary() -> None:
    text = helped()
    group = typer.main.get_command(app)
    for name in COMMANDS:
        summary = group.commands[name].short_help  # type: ignore[attr-defined]
        assert f"  {name}" in text
        assert re.search(rf"^  {name} +{re.escape(summary)}$", text, re.M), name
    assert "..." not in text.split("Commands:")[1]


def test_split_help_groups_its_options_in_panels_in_order() -> None:
    text = helped("split")
    titles = [line[:-1] for line in text.splitlines() if line.endswith(":") and line[0] != " "]
    assert titles == ["Arguments", "Options", *ORDER]
    found = sections(text)
    assert found["Options"] == "  -h, --help  Show this message and exit.\n\n"
    panels = {
        INPUT: ("--format", "--include", "--exclude", "--no-gitignore", "--max-bytes"),
        STRATEGY: ("--strategy", "--size", "--overlap", "--unit", "--option", "--parents"),
        FORMATS: ("--pdf-engine", "--ocr", "--keep", "--password", "--hidden-slides"),
        EMBEDDING: ("--refine", "--embed", "--embedder", "--embed-model", "--no-cache"),
        CHAT: ("--api-base", "--model", "--api-retries", "--dry-run"),
        OUTPUT: ("--output", "--table", "--stats", "--hashes", "--dedupe", "--root"),
        RUN: ("--jobs", "--quiet", "--manifest", "--timeout", "--check", "--engine"),
    }
    for title, flags in panels.items():
        for flag in flags:
            assert re.search(rf"^  (-\w, )?{flag}\b", found[title], re.M), (title, flag)


def test_split_examples_fit_and_keep_their_commands() -> None:
    text = helped("split")
    examples = text.split("Examples:\n\n")[1].split("\n\n")[0].splitlines()
    assert len(examples) == 18  # 17 examples, one of them on two lines
    first = "    ragchunk split notes.txt" + " " * 18 + "recursive, 512 chars, overlap 50"
    assert examples[0] == first
    assert max(len(line) for line in examples) <= 78  # Click's own width at 80 columns
    assert "    ragchunk split a.md --embed --embedder openai \\" in examples


def test_view_and_strategies_name_their_arguments_plainly() -> None:
    assert helped("view").startswith("Usage: ragchunk view [OPTIONS] PATH\n")
    assert helped("strategies").startswith("Usage: ragchunk strategies [OPTIONS] [NAME]\n")


def test_an_option_in_an_unknown_panel_is_a_mistake_help_shows() -> None:
    toy = typer.Typer(add_completion=False, rich_markup_mode=None)

    @toy.command(cls=PanelledCommand)
    def toy_command(
        flag: Annotated[bool, typer.Option("--flag", rich_help_panel="Elsewhere")] = False,
    ) -> None:
        """Do nothing."""

    result = runner.invoke(toy, ["--help"])
    assert isinstance(result.exception, ValueError)
    assert "options in panels not in ORDER: ['Elsewhere']" in str(result.exception)


@pytest.mark.parametrize("columns", [80, 60])
def test_strategies_list_fits_and_cuts_nothing_short(columns: int) -> None:
    result = runner.invoke(app, ["strategies"], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0
    assert result.stderr == ""
    lines = result.stdout.splitlines()
    for line in lines:
        assert len(line) <= columns, line
        assert line == line.rstrip(), line
        assert "…" not in line
    flat = words(result.stdout)
    titles = [line.split(" (")[0] for line in lines if line and not line[0].isspace()]
    assert titles[: len(strategies.names())] == list(strategies.names())
    for name in strategies.names():
        strategy = strategies.get(name)
        assert words(strategy.summary) in flat
        for field in option_fields(strategy.options):
            assert words(field.help) in flat, (name, field.name)
    hints = typing.get_type_hints(ParseOptions)
    for field in dataclasses.fields(ParseOptions):
        assert field.name in hints
        assert words(field.metadata["help"]) in flat
    assert "recursive (the default strategy)" in lines
    assert flat.endswith("so reruns and size sweeps cost no embedding.")


def test_strategies_name_shows_that_strategy_alone() -> None:
    result = runner.invoke(app, ["strategies", "hierarchical"], env=NARROW)
    assert result.exit_code == 0
    assert result.stderr == ""
    assert result.stdout == (
        "hierarchical\n"
        "  One chunk per heading subtree down to max_depth (Markdown, DOCX, PDF).\n"
        "  Unbounded by design unless --size is given; then long subtrees are refined.\n"
        "  size: unbounded unless --size is given (in chars); overlap 0\n"
        "  options (-O key=value):\n"
        "    max_depth (int, default 3): The deepest heading level that starts its own\n"
        "      chunk (1-9); deeper subsections stay inside their parent's chunk.\n"
    )
    fixed = runner.invoke(app, ["strategies", "fixed"], env=NARROW)
    assert fixed.stdout == (
        "fixed\n"
        "  Windows of N units, nudged back to the nearest whitespace.\n"
        "  size: 512 chars; overlap 50\n"
    )


def test_an_unknown_strategy_name_is_a_usage_error_with_a_suggestion() -> None:
    result = runner.invoke(app, ["strategies", "recursve"], env=NARROW)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: strategy 'recursve' is unknown (choose from {', '.join(strategies.names())}); "
        "did you mean 'recursive'?\n"
    )
    far = runner.invoke(app, ["strategies", "zzz"], env=NARROW)
    assert (far.exit_code, far.stderr.endswith("token)\n")) == (2, True)
