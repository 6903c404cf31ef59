"""What ragchunk eval reads and compares: DOCS parsed once and named, sweeps and named setups."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.errors import UsageError
from ragchunk.evaluation.corpus import load_documents
from ragchunk.evaluation.questions import read_questions, resolve
from ragchunk.evaluation.setups import read_setups, sweep
from ragchunk.pipeline.scopes import plan_from_settings
from ragchunk.settings import scope
from tests.conftest import FIXTURES

PLAN = plan_from_settings(scope({}))
QUESTIONS = FIXTURES / "questions.jsonl"


def test_the_bundled_questions_resolve_against_the_parsed_fixtures() -> None:
    corpus = load_documents(str(FIXTURES), PLAN, skip=[str(QUESTIONS)])
    names = [name for name, _ in corpus.documents]
    assert "questions.jsonl" not in names
    assert "email/harbour-list.mbox#2" in names  # a container's documents, each named
    texts = corpus.texts()
    for question in resolve(read_questions(str(QUESTIONS)), texts, str(QUESTIONS)):
        text = texts[question.document]
        for piece, (start, end) in zip(question.evidence, question.spans, strict=True):
            assert (piece.start, piece.end) == (start, end)
            assert text[start:end] == piece.excerpt
            assert text.count(text[start:end]) == 1


def test_one_file_is_named_by_its_file_name(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "notes.txt"
    path.parent.mkdir()
    path.write_text("Some notes.\n", encoding="utf-8")
    corpus = load_documents(str(path), PLAN)
    assert [name for name, _ in corpus.documents] == ["notes.txt"]


def test_an_unreadable_input_is_reported_and_left_out(tmp_path: Path) -> None:
    (tmp_path / "good.md").write_text("# Good\n\ntext\n", encoding="utf-8")
    (tmp_path / "bad.pdf").write_bytes(b"%PDF-1.4 not really")
    corpus = load_documents(str(tmp_path), PLAN)
    assert [name for name, _ in corpus.documents] == ["good.md"]
    assert len(corpus.failed) == 1
    assert "bad.pdf" in corpus.failed[0]


def test_missing_docs() -> None:
    with pytest.raises(UsageError, match="DOCS: no such file or directory: nowhere"):
        load_documents("nowhere", PLAN)


def test_a_sweep_is_the_product_in_order() -> None:
    made = sweep(scope({"unit": "tokens"}), ["recursive", "token"], [100, 200], [0, None])
    assert [s.name for s in made] == [
        "recursive 100 +0",
        "recursive 100",
        "recursive 200 +0",
        "recursive 200",
        "token 100 +0",
        "token 100",
        "token 200 +0",
        "token 200",
    ]
    assert {s.plan.recipe.capacity.unit for s in made} == {"tokens"}
    assert made[3].plan.recipe.capacity.size == 200


def test_a_sweep_names_the_combination_that_fails() -> None:
    with pytest.raises(UsageError, match=r"^recursive 50 \+60: --overlap"):
        sweep(scope({}), ["recursive"], [100, 50], [60])


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "setups.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_named_setups_share_the_top_level_and_flags_win(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        'size = 300\noverlap = 0\n\n[setups.a]\nstrategy = "sentence"\n\n'
        '[setups.b]\nstrategy = "markdown"\nsize = 500\n[setups.b.options]\nmin_level = 2\n',
    )
    a, b = read_setups(path, scope({"overlap": 10}))
    assert (a.name, a.strategy, a.plan.recipe.capacity.size) == ("a", "sentence", 300)
    assert a.plan.recipe.capacity.overlap == 10
    assert (b.name, b.plan.recipe.capacity.size) == ("b", 500)
    assert b.plan.recipe.options.min_level == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("size = 3\n", r"setups.toml: no \[setups.NAME\] tables"),
        ("[setups.a]\nstrategyy = 'token'\n", r"\[setups.a\]: unknown key 'strategyy'.*strategy"),
        ("[setups.a]\nsize = 'big'\n", r"\[setups.a\]: .*size"),
        ("[setups.a]\nstrategy = 'nope'\n", r"\[setups.a\]: --strategy 'nope' is unknown"),
        ("sizes = 3\n[setups.a]\n", r"setups.toml: unknown key 'sizes'"),
        ("[setups]\na = 3\n", r"\[setups.a\]: must be a table of settings"),
        ("[setups.a\n", r"setups.toml: invalid TOML"),
    ],
)
def test_bad_setups_files(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        read_setups(write(tmp_path, text), scope({}))
