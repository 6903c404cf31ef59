"""The settings tree: one declaration per setting, one merge, and every surface made from them."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import OptionError
from ragchunk.pipeline.plan import make_plan
from ragchunk.pipeline.scopes import make_plans, plan_from_settings
from ragchunk.runs.config import load_config, scope_keys
from ragchunk.settings import (
    PANELS,
    Chunking,
    ParseOptions,
    Settings,
    command_line,
    given,
    merge,
    scope,
    settings,
    shortcuts,
)
from tests.conftest import ROOT

PARSE_FLAGS = [found for found in settings() if found.group == "parsing" and found.leaf.flags]


def test_every_leaf_has_one_name_one_flag_help_and_a_panel() -> None:
    names = [found.name for found in settings()]
    assert len(names) == len(set(names))
    flags = [flag for found in settings() for flag in found.leaf.flags]
    assert len(flags) == len(set(flags))
    for found in settings():
        assert found.leaf.help, found.name
        assert found.leaf.panel in PANELS, found.name


def test_a_scope_sets_only_what_it_names_and_the_upper_scope_wins() -> None:
    file = scope({"strategy": "markdown", "size": 600, "notes": True})
    flags = scope({"size": 300, "strategy": "recursive"})  # the default value, typed: it wins
    merged = merge(flags, file)
    assert (merged.chunking.strategy, merged.chunking.size) == ("recursive", 300)
    assert merged.parsing.notes is True
    assert given(merged) == {"strategy", "size", "notes"}
    assert given(Settings(chunking=Chunking(size=3))) == {"size"}  # a tree built by hand


def test_options_follow_their_strategy_and_parse_options_always_carry_over() -> None:
    file = scope({"strategy": "recursive", "options": {"separators": '[" "]', "notes": "true"}})
    assert file.chunking.options == {"separators": '[" "]'}
    assert file.parsing.notes is True  # -O notes=true is the parse option
    same = merge(scope({"options": {"keep_separator": "end"}}), file)
    assert same.chunking.options == {"separators": '[" "]', "keep_separator": "end"}
    other = merge(scope({"strategy": "fixed"}), file)
    assert other.chunking.options == {}
    assert other.parsing.notes is True


def test_the_command_line_has_its_own_timeout_the_library_none() -> None:
    assert command_line() == scope({"timeout": 300.0})
    assert make_plan().policy.timeout is None
    assert plan_from_settings(scope({})).policy.timeout == 300.0
    assert plan_from_settings(scope({"timeout": 2.5})).policy.timeout == 2.5


def test_groups_check_their_values_as_the_flags_name_them() -> None:
    with pytest.raises(OptionError, match=r"^--unit must be one of chars, tokens \(got 'x'\)$"):
        scope({"unit": "x"})
    with pytest.raises(OptionError, match=r"^--engine must be one of local, ray"):
        scope({"engine": "spark"})
    with pytest.raises(OptionError, match=r"^main_content must be true or false"):
        scope({"options": {"main_content": "maybe"}})


def test_an_unknown_setting_is_named_with_the_closest() -> None:
    with pytest.raises(OptionError, match=r"^sise is not a setting; did you mean 'size'\?$"):
        shortcuts({"sise": 3})


def test_a_group_is_given_whole_as_its_own_type_only() -> None:
    from ragchunk.backends.chat import ChatSpec

    with pytest.raises(OptionError, match=r"^chat must be a Chat \(got ChatSpec\("):
        shortcuts({"chat": ChatSpec(url="http://127.0.0.1:9/v1", model="m")})


def test_the_backends_specs_default_to_the_trees_defaults() -> None:
    from ragchunk.backends import EmbedderSpec
    from ragchunk.backends.chat import ChatSpec
    from ragchunk.pipeline.plan import chat_spec, embedder_spec

    assert embedder_spec(Settings()) == EmbedderSpec()
    assert chat_spec(Settings()) == ChatSpec()


def test_make_plan_takes_the_tree_and_shortcuts_build_one() -> None:
    tree = Settings(chunking=Chunking(strategy="fixed", size=100, overlap=10))
    assert (
        make_plan(tree).recipe
        == make_plan(
            shortcuts({"strategy": "fixed", "size": 100, "overlap": 10, "unit": None})
        ).recipe
    )
    parsed = make_plan(shortcuts({"parsing": ParseOptions(notes=True)})).recipe.parse
    assert parsed == ParseOptions(notes=True)


def _sample(found_type: object) -> object:
    """Return a value of a parse option's type that is not its default."""
    origin = typing.get_origin(found_type)
    if found_type is bool:
        return True
    if origin is typing.Literal:
        return typing.get_args(found_type)[-1]
    if origin is tuple:
        return (typing.get_args(typing.get_args(found_type)[0])[0],)
    return "deu"


def _flag_words(name: str, value: object) -> list[str]:
    flag = next(found for found in PARSE_FLAGS if found.name == name).leaf.flags[0]
    if value is True:
        return [flag]
    items = value if isinstance(value, tuple) else (value,)
    return [word for item in items for word in (flag, str(item))]


@pytest.mark.parametrize("found", PARSE_FLAGS, ids=lambda found: found.name)
def test_a_parse_option_is_a_flag_a_key_and_an_o_from_its_declaration_alone(
    found: typing.Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adding a parse option touches the parser and its options spec only (issue 28).

    Whatever ``ParseOptions`` declares with a flag is offered by ``split`` and ``inspect`` with
    the declared help, is a configuration key and an ``-O`` key, and reaches the recipe.
    """
    monkeypatch.setattr(
        "ragchunk.pipeline.plan.check_parse", lambda _parse: None
    )  # no tesseract here
    value = _sample(found.type)
    root = typer.main.get_command(app)
    for command in ("split", "inspect"):
        params = {p.name: p for p in root.commands[command].params}  # type: ignore[attr-defined]
        assert params[found.param].opts[0] == found.leaf.flags[0]
        assert params[found.param].help == found.leaf.flag_help
    assert found.key in scope_keys()
    wanted = ParseOptions(**{found.name: value})
    raw = value if not isinstance(value, tuple) else list(value)
    (tmp_path / "ragchunk.toml").write_text(f"{found.key} = {_toml(raw)}\n", encoding="utf-8")
    from_file = make_plans(load_config(str(tmp_path / "ragchunk.toml")), scope({}))
    assert from_file.default.recipe.parse == wanted
    text = ",".join(value) if isinstance(value, tuple) else str(value).lower()
    if not isinstance(value, tuple):
        from_o = make_plan(shortcuts({"options": {found.name: text}})).recipe.parse
        assert from_o == wanted
    from ragchunk.cli._options import settings_from_flags

    command = root.commands["split"]  # type: ignore[attr-defined]
    with command.make_context("split", ["x", *_flag_words(found.name, value)]) as ctx:
        from ragchunk.cli._options import given_flags

        flags = settings_from_flags(ctx.params, given_flags(ctx))
    assert flags.parsing == wanted


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(f'"{item}"' for item in value) + "]"
    return f'"{value}"'


def test_hidden_slides_lives_in_its_parser_and_its_options_spec_only() -> None:
    """The issue's example: ``--hidden-slides`` was written in 8 files and read in one."""
    pattern = re.compile(r"hidden[_-]slides")
    found = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "ragchunk").rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    )
    assert found == ["ragchunk/parsers/pptx.py", "ragchunk/settings/parsing.py"]


def test_embed_retries_lives_in_its_leaf_and_the_backend_only() -> None:
    """The issue's other example: ``--embed-retries`` crossed six files to reach the backend."""
    pattern = re.compile(r"embed[_-]retries")
    found = sorted(
        str(path.relative_to(ROOT))
        for path in (ROOT / "ragchunk").rglob("*.py")
        if pattern.search(path.read_text(encoding="utf-8"))
    )
    leaf = "ragchunk/settings/backends.py"  # flag, key, default, help, panel, spec field
    assert leaf in found
    assert all(path == leaf or path.startswith("ragchunk/backends/") for path in found), found


def test_split_help_is_in_panels() -> None:
    result = CliRunner().invoke(app, ["split", "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0
    titles = [
        line[:-1]
        for line in result.stdout.splitlines()
        if line and line.endswith(":") and not line.startswith(" ")
    ]
    assert [title for title in titles if title in PANELS] == list(PANELS)
