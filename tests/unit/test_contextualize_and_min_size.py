"""--contextualize (breadcrumb + text, counted in the size) and --min-size, for every strategy."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import InputError, OptionError
from ragchunk.measure import load_tokenizer
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import parse
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.text.breadcrumb import format_breadcrumb
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants
from tests.meaning import LOCAL

GUIDE = FIXTURES / "markdown" / "station-guide.md"
NAMES = [name for name in LOCAL if name != "token"] + ["token"]


def guide() -> Document:
    return parse(GUIDE.read_bytes(), ParseRequest(source="guide.md", doc_id="guide.md"))


@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("name", NAMES)
def test_every_strategy_gives_contexts_that_fit_with_their_breadcrumb(name: str, unit: str) -> None:
    size = 300 if unit == "chars" else 80
    plan = make_plan(
        shortcuts(
            {
                "strategy": name,
                "size": size,
                "overlap": size // 10,
                "unit": unit,
                "contextualize": True,
            }
        )
    )  # type: ignore[arg-type]
    chunks = assert_invariants(guide(), plan)
    count = len if unit == "chars" else load_tokenizer("cl100k_base").count
    for chunk in chunks:
        assert chunk.context is not None
        crumb = format_breadcrumb(chunk.headings)
        assert chunk.context.startswith(crumb)
        assert chunk.context.endswith(chunk.text)
        assert count(crumb + chunk.text) <= size


def test_the_breadcrumb_is_counted_so_chunks_get_smaller() -> None:
    plain = chunk_document(
        guide(), make_plan(shortcuts({"strategy": "recursive", "size": 200, "overlap": 0})).recipe
    )
    with_context = chunk_document(
        guide(),
        make_plan(
            shortcuts({"strategy": "recursive", "size": 200, "overlap": 0, "contextualize": True})
        ).recipe,
    )
    assert len(with_context) > len(plain)
    assert {c.id for c in plain}.isdisjoint(c.id for c in with_context)


def test_markdown_read_from_plain_text_gets_breadcrumbs_too() -> None:
    doc = Document(text="# Guide\n\n## Setup\n\n" + "Install it first. " * 10)
    plan = make_plan(
        shortcuts({"strategy": "markdown", "size": 80, "overlap": 0, "contextualize": True})
    )
    chunks = assert_invariants(doc, plan)
    assert chunks[-1].context is not None
    assert chunks[-1].context.startswith("Guide > Setup\n\n")
    assert all(len(c.context or "") <= 80 for c in chunks)


def test_a_breadcrumb_larger_than_the_size_fails_the_file_in_one_sentence() -> None:
    with pytest.raises(InputError) as caught:
        chunk_document(
            guide(),
            make_plan(
                shortcuts(
                    {"strategy": "recursive", "size": 30, "overlap": 0, "contextualize": True}
                )
            ).recipe,
        )
    assert str(caught.value) == (
        "guide.md: the heading breadcrumb 'Tide Gauge Station Guide > Before you leave' takes "
        "45 chars, leaving no room for text within --size 30; raise --size or drop "
        "--contextualize"
    )


def test_cli_contextualize_adds_the_context_field() -> None:
    result = CliRunner().invoke(
        app, ["split", str(GUIDE), "-s", "paragraph", "--size", "300", "--contextualize"]
    )
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    last = records[-1]
    assert last["context"] == (
        "Tide Gauge Station Guide > After the visit > Logging the visit > Example entry\n\n"
        + last["text"]
    )
    assert all("context" in r for r in records)


# --- --min-size ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_min_size_merges_within_headings_and_the_size(name: str) -> None:
    doc = guide()
    base = chunk_document(
        doc, make_plan(shortcuts({"strategy": name, "size": 300, "overlap": 0})).recipe
    )
    plan = make_plan(shortcuts({"strategy": name, "size": 300, "overlap": 0, "min_size": 120}))
    merged = assert_invariants(doc, plan)
    assert len(merged) <= len(base)
    starts = {c.start for c in base}
    for chunk in merged:
        assert chunk.start in starts  # merging only joins whole chunks
    for before, after in itertools.pairwise(merged):
        if before.chars < 120 and before.headings == after.headings:
            # a small chunk left alone could not join its neighbour within the size
            joined = doc.text[before.start : max(before.end, after.end)]
            assert len(joined) > 300 or before.metadata != after.metadata or after.context


def test_min_size_never_crosses_a_heading() -> None:
    doc = parse(b"# A\n\nShort.\n\n# B\n\nAlso short.\n", ParseRequest())
    chunks = chunk_document(
        doc, make_plan(shortcuts({"strategy": "markdown", "size": 200, "min_size": 100})).recipe
    )
    assert [c.text for c in chunks] == ["# A\n\nShort.", "# B\n\nAlso short."]
    subtrees = chunk_document(
        doc, make_plan(shortcuts({"strategy": "hierarchical", "min_size": 100})).recipe
    )
    assert [c.headings for c in subtrees] == [("A",), ("B",)]


@pytest.mark.parametrize(
    ("min_size", "message"),
    [
        (0, r"--min-size must be at least 1 \(got 0\)"),
        (600, r"--min-size must not exceed --size \(got 600 > 512\)"),
    ],
)
def test_min_size_is_validated_before_any_file_is_read(min_size: int, message: str) -> None:
    with pytest.raises(OptionError, match=message):
        make_plan(shortcuts({"strategy": "recursive", "size": 512, "min_size": min_size}))


def test_cli_reports_a_breadcrumb_too_large_as_a_failed_input() -> None:
    result = CliRunner().invoke(app, ["split", str(GUIDE), "--size", "30", "--contextualize"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {GUIDE}: the heading breadcrumb 'Tide Gauge Station Guide > Before you leave' "
        "takes 45 chars, leaving no room for text within --size 30; raise --size or drop "
        "--contextualize\n"
    )


def test_a_config_file_sets_both_per_glob_and_flags_win(tmp_path: Path) -> None:
    from ragchunk.pipeline.scopes import make_plans
    from ragchunk.runs.config import load_config
    from ragchunk.settings import scope

    config = tmp_path / "ragchunk.toml"
    config.write_text(
        'size = 300\n[files."*.md"]\nstrategy = "markdown"\ncontextualize = true\nmin-size = 50\n',
        encoding="utf-8",
    )
    plans = make_plans(load_config(str(config)), scope({}))
    guide_plan = plans.for_input(str(tmp_path / "guide.md"), "guide.md")
    assert (guide_plan.recipe.contextualize, guide_plan.recipe.min_size) == (True, 50)
    assert (plans.default.recipe.contextualize, plans.default.recipe.min_size) == (False, 0)
    flagged = make_plans(load_config(str(config)), scope({"min_size": 20}))
    assert flagged.for_input(str(tmp_path / "guide.md"), "guide.md").recipe.min_size == 20


def test_cli_jobs_keep_contexts_and_merges(tmp_path: Path) -> None:
    out_one, out_two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    args = ["split", str(FIXTURES / "markdown"), "-s", "markdown", "--size", "300"]
    args += ["--contextualize", "--min-size", "80"]
    first = CliRunner().invoke(app, [*args, "--jobs", "1", "-o", str(out_one)])
    second = CliRunner().invoke(app, [*args, "--jobs", "2", "-o", str(out_two)])
    assert first.exit_code == second.exit_code == 0, first.stderr + second.stderr
    assert out_one.read_text(encoding="utf-8") == out_two.read_text(encoding="utf-8")
    records = [json.loads(line) for line in out_one.read_text(encoding="utf-8").splitlines()]
    assert all("context" in r for r in records)
