"""Configuration files: discovery, typed keys, per-glob sections, precedence, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.errors import UsageError
from ragchunk.pipeline.scopes import make_plans
from ragchunk.runs.config import Config, _run_keys, find_config, load_config, scope_keys
from ragchunk.settings import Run, merge, scope


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# Keys other branches add (language, contextualize...) must not break these messages' tests.
SECTION_KEYS = ", ".join(sorted([*scope_keys(), "options"]))
TOP_KEYS = ", ".join(sorted([*scope_keys(), *_run_keys(), "options", "files"]))

CONFIG = """
strategy = "recursive"
size = 400
overlap = 40
include = ["*.txt", "*.md"]
jobs = 3
manifest = "state/manifest.json"

[options]
separators = ["\\n\\n", "\\n"]

[files."data/*.txt"]
size = 300
overlap = 30

[files."*.log"]
strategy = "fixed"
size = 100
"""


def test_discovery_prefers_ragchunk_toml_and_skips_foreign_pyprojects(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    assert find_config(deep) is None
    write(tmp_path / "a" / "pyproject.toml", "[tool.ragchunk]\nsize = 100\n")
    write(tmp_path / "a" / "b" / "pyproject.toml", '[project]\nname = "other"\n')
    assert find_config(deep) == tmp_path / "a" / "pyproject.toml"
    write(tmp_path / "a" / "ragchunk.toml", "size = 200\n")
    assert find_config(deep) == tmp_path / "a" / "ragchunk.toml"
    write(tmp_path / "a" / "b" / "c" / "pyproject.toml", "[tool.ragchunk]\nsize = 300\n")
    assert load_config(cwd=deep).defaults.chunking.size == 300


def test_values_are_typed_and_paths_relative_to_the_file(tmp_path: Path) -> None:
    config = load_config(str(write(tmp_path / "ragchunk.toml", CONFIG)))
    assert config.defaults == scope(
        {
            "strategy": "recursive",
            "size": 400,
            "overlap": 40,
            "options": {"separators": ["\n\n", "\n"]},
            "include": ("*.txt", "*.md"),
            "jobs": 3,
            "manifest": str(tmp_path / "state" / "manifest.json"),
        }
    )
    assert config.defaults.run == Run(
        include=("*.txt", "*.md"), jobs=3, manifest=str(tmp_path / "state" / "manifest.json")
    )
    assert [rule.glob.text for rule in config.rules] == ["data/*.txt", "*.log"]
    assert config.rules[1].where == f'{tmp_path / "ragchunk.toml"} [files."*.log"]'


def test_rules_match_paths_relative_to_the_config_directory(tmp_path: Path) -> None:
    config = load_config(str(write(tmp_path / "ragchunk.toml", CONFIG)))
    plans = make_plans(config, scope({}))
    data = plans.for_input(str(tmp_path / "data" / "a.txt"), "a.txt")
    other = plans.for_input(str(tmp_path / "notes" / "a.txt"), "a.txt")
    log = plans.for_input(str(tmp_path / "x" / "y.log"), "y.log")
    assert (data.recipe.options.budget.size, data.recipe.options.budget.overlap) == (300, 30)
    assert data.recipe.options.separators == (
        "\n\n",
        "\n",
    )  # the section inherits the top's options
    assert (other.recipe.options.budget.size, other.recipe.options.budget.overlap) == (400, 40)
    assert (log.recipe.strategy.name, log.recipe.options.budget.size) == ("fixed", 100)
    assert plans.for_input("-", "-") is plans.default


def test_flags_win_over_the_file_and_its_sections(tmp_path: Path) -> None:
    config = load_config(str(write(tmp_path / "ragchunk.toml", CONFIG)))
    plans = make_plans(config, scope({"size": 250}))
    data = plans.for_input(str(tmp_path / "data" / "a.txt"), "a.txt")
    assert (data.recipe.options.budget.size, data.recipe.options.budget.overlap) == (250, 30)
    assert data.recipe.options.separators == ("\n\n", "\n")
    log = plans.for_input(str(tmp_path / "a.log"), "a.log")
    assert (log.recipe.strategy.name, log.recipe.options.budget.size) == ("fixed", 250)
    forced = make_plans(config, scope({"strategy": "token"}))
    token = forced.for_input(str(tmp_path / "a.log"), "a.log")
    assert (token.recipe.strategy.name, token.recipe.options.budget.size) == ("token", 100)


def test_flag_options_replace_the_file_s_and_must_fit_every_section(tmp_path: Path) -> None:
    flags = scope({"options": {"separators": '[" "]'}})
    config = load_config(str(write(tmp_path / "ragchunk.toml", CONFIG)))
    with pytest.raises(UsageError) as caught:
        make_plans(config, flags)
    assert str(caught.value) == (
        "separators is not an option of the fixed strategy (its options: none) "
        f'(for the inputs of {tmp_path / "ragchunk.toml"} [files."*.log"])'
    )
    config = load_config(str(write(tmp_path / "other.toml", CONFIG.split("[files")[0])))
    assert make_plans(config, flags).default.recipe.options.separators == (" ",)


def test_options_belong_to_the_strategy_of_their_scope(tmp_path: Path) -> None:
    path = write(tmp_path / "ragchunk.toml", CONFIG)
    plans = make_plans(load_config(str(path)), scope({"strategy": "fixed"}))
    assert plans.default.recipe.strategy.name == "fixed"  # recursive's separators are not applied


def test_pyproject_tool_table(tmp_path: Path) -> None:
    write(
        tmp_path / "pyproject.toml",
        '[tool.ragchunk]\nunit = "tokens"\n[tool.ragchunk.files."*.md"]\nsize = 64\n',
    )
    config = load_config(cwd=tmp_path)
    assert config.defaults.chunking.unit == "tokens"
    assert config.rules[0].where == 'pyproject.toml [tool.ragchunk.files."*.md"]'


def test_the_engine_and_the_cluster_can_be_set_once_for_a_project(tmp_path: Path) -> None:
    text = 'engine = "ray"\nray-address = "ray://head.example:10001"\n'
    config = load_config(str(write(tmp_path / "ragchunk.toml", text)))
    assert config.defaults.run == Run(engine="ray", ray_address="ray://head.example:10001")
    assert merge(scope({"engine": "local"}), config.defaults).run.engine == "local"  # flag wins


def test_no_file_is_an_empty_config(tmp_path: Path) -> None:
    assert load_config(cwd=tmp_path) == Config()
    assert list(Config().scopes()) == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sise = 3\n", "ragchunk.toml: unknown key 'sise'; did you mean 'size'?"),
        (
            "zzz = 1\n",
            f"ragchunk.toml: unknown key 'zzz' (known keys: {TOP_KEYS})",
        ),
        ('size = "big"\n', "ragchunk.toml: size must be a whole number (got 'big')"),
        ("size = 1.5\n", "ragchunk.toml: size must be a whole number (got 1.5)"),
        ('unit = "words"\n', "ragchunk.toml: unit must be one of chars, tokens (got 'words')"),
        ("include = 3\n", "ragchunk.toml: include must be a list (got 3)"),
        ("jobs = 0\n", "ragchunk.toml: jobs must be at least 1 (got 0)"),
        ('engine = "spark"\n', "ragchunk.toml: engine must be one of local, ray (got 'spark')"),
        ("size = \n", "ragchunk.toml: invalid TOML (Invalid value (at line 1, column 8))"),
        (
            '[files."*.md"]\ninclude = ["x"]\n',
            f"ragchunk.toml [files.\"*.md\"]: unknown key 'include' (known keys: {SECTION_KEYS})",
        ),
        (
            '[files."*.md"]\nsize = -1\n',
            'ragchunk.toml [files."*.md"]: --size must be at least 1 (got -1)',
        ),
        (
            "[options]\nseparator = []\n",
            "ragchunk.toml: separator is not an option of the recursive strategy (its options: "
            "separators); did you mean 'separators'?",
        ),
        (
            "size = 10\noverlap = 20\n",
            "ragchunk.toml: --overlap must be smaller than --size (got 20 >= 10)",
        ),
    ],
)
def test_bad_files_are_usage_errors_naming_the_key_and_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    write(tmp_path / "ragchunk.toml", text)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as caught:
        make_plans(load_config(), scope({}))
    assert str(caught.value) == message


def test_a_missing_config_file_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"^--config: cannot read .*nope.toml \(No such file"):
        load_config(str(tmp_path / "nope.toml"))


def test_an_unknown_strategy_in_a_section_names_the_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "ragchunk.toml", '[files."*.md"]\nstrategy = "recursve"\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError) as caught:
        make_plans(load_config(), scope({}))
    message = str(caught.value)
    assert message.startswith("ragchunk.toml [files.\"*.md\"]: --strategy 'recursve' is unknown")
    assert message.endswith("; did you mean 'recursive'?")


EMBEDDING_CONFIG = """
embedder = "openai"
embed-url = "http://127.0.0.1:9/v1"
embed-model = "nomic-embed-text"
embed-key-env = "MY_KEY"
embed-batch-size = 8
embed-timeout = 5.5
embed-concurrency = 2
embed-retries = 1
cache-dir = "cache"

[files."*.md"]
strategy = "semantic"
refine = true

[files."*.txt"]
embed = true
no-cache = true
"""


def test_embedding_settings_come_from_the_file_and_flags_win(tmp_path: Path) -> None:
    config = load_config(str(write(tmp_path / "ragchunk.toml", EMBEDDING_CONFIG)))
    plans = make_plans(config, scope({"embed_batch_size": 16}))
    guide = plans.for_input(str(tmp_path / "guide.md"), "guide.md")
    spec = guide.recipe.embedder
    assert (spec.backend, spec.url, spec.model, spec.key_env) == (
        "openai",
        "http://127.0.0.1:9/v1",
        "nomic-embed-text",
        "MY_KEY",
    )
    assert (spec.batch_size, spec.timeout, spec.concurrency, spec.retries) == (16, 5.5, 2, 1)
    assert (guide.recipe.strategy.name, guide.recipe.refine, guide.recipe.embed) == (
        "semantic",
        True,
        False,
    )
    assert guide.policy.cache == str(tmp_path / "cache")  # relative to the file
    notes = plans.for_input(str(tmp_path / "notes.txt"), "notes.txt")
    assert (notes.recipe.embed, notes.policy.cache) == (True, None)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('device = "tpu"', "--device must be cpu, cuda, cuda:N or mps (got 'tpu')"),
        ('embedder = "cohere"', "--embedder must be one of local, openai (got 'cohere')"),
        ('embedder = "openai"', "--embed-url is needed with --embedder openai"),
    ],
)
def test_bad_embedding_settings_name_the_file(tmp_path: Path, line: str, message: str) -> None:
    config = load_config(str(write(tmp_path / "ragchunk.toml", line + "\n")))
    with pytest.raises(UsageError) as raised:
        make_plans(config, scope({}))
    assert str(raised.value) == f"{tmp_path / 'ragchunk.toml'}: {message}"


@pytest.mark.parametrize(
    ("text", "may"),
    [
        ("[tool.ragchunk]\nsize = 1\n", True),
        ('[ tool . "ragchunk" ]\n', True),
        ("[tool.ragchunk.files.'*.md']\n", True),
        ("tool.ragchunk.size = 1\n", True),
        ("[tool]\nragchunk = { size = 1 }\n", True),
        ('[tool]\n"rag\\u0063hunk".size = 1\n', True),  # an escaped key: parsed to be sure
        ('[tool.setuptools]\npackages = ["ragchunk"]\n', True),  # "ragchunk"] may be a key
        ('[project]\ndependencies = ["ragchunk>=0.1", "ragchunk[pdf]"]\n', False),
        ('[project]\nname = "other"\n', False),
    ],
)
def test_a_pyproject_is_parsed_only_when_it_may_hold_the_table(text: str, *, may: bool) -> None:
    from ragchunk.runs.config import _may_name_table

    assert _may_name_table(text) is may
    if not may:  # what the shortcut skips, parsing finds too
        import tomllib

        assert tomllib.loads(text).get("tool", {}).get("ragchunk") is None
