"""Parse options: flags, -O keys and configuration keys reach the parsers and the chunk ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import OptionError
from ragchunk.parsers._spec import ParseOptions
from ragchunk.pipeline.plan import make_plan
from ragchunk.runs.manifest import settings_digest
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

runner = CliRunner()
DECK = str(FIXTURES / "pptx" / "results-briefing.pptx")
PAGE = str(FIXTURES / "html" / "harbour-news.html")


def test_o_keys_of_parse_options_set_the_recipe_not_the_strategy() -> None:
    plan = make_plan(
        shortcuts({"strategy": "recursive", "options": {"header": "false", "notes": "true"}})
    )
    assert plan.recipe.parse == ParseOptions(header=False, notes=True)
    with pytest.raises(OptionError, match="must be true or false"):
        make_plan(shortcuts({"strategy": "recursive", "options": {"keep_boilerplate": "maybe"}}))


def test_parse_options_change_chunk_ids_and_the_manifest_digest() -> None:
    plain, notes = (
        make_plan(shortcuts({"strategy": "recursive"})),
        make_plan(shortcuts({"strategy": "recursive", "parsing": ParseOptions(notes=True)})),
    )
    assert plain.recipe.fingerprint != notes.recipe.fingerprint
    assert settings_digest(plain.recipe) != settings_digest(notes.recipe)


def texts(args: list[str]) -> list[str]:
    result = runner.invoke(app, ["split", *args])
    assert result.exit_code == 0, result.stderr
    return [json.loads(line)["text"] for line in result.stdout.splitlines()]


def test_flags_reach_the_parsers() -> None:
    assert not any("Backup: sensor" in t for t in texts([DECK]))
    assert any("Backup: sensor" in t for t in texts([DECK, "--hidden-slides"]))
    assert any("Ask the partners" in t for t in texts([DECK, "--notes"]))
    assert not any("Manage your choices" in t for t in texts([PAGE]))
    assert any("Manage your choices" in t for t in texts([PAGE, "--keep-boilerplate"]))


def test_configuration_keys(tmp_path: Path) -> None:
    config = tmp_path / "ragchunk.toml"
    config.write_text("notes = true\n[options]\nheader = false\n", encoding="utf-8")
    assert any("Ask the partners" in t for t in texts([DECK, "--config", str(config)]))
    table = tmp_path / "t.csv"
    table.write_text("a,b\nc,d\n", encoding="utf-8")
    assert texts([str(table), "--config", str(config)]) == ["a\nb\n\nc\nd"]
