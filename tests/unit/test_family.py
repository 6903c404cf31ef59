"""--parents: the spec's syntax and checks, the windows children are cut in, and the checker
of parent/child records (each broken link named)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ragchunk.errors import OptionError
from ragchunk.model import Chunk, Document, Page, Section
from ragchunk.pipeline.engine import check_chunks, chunk_document
from ragchunk.pipeline.family import find_family_violations, window
from ragchunk.pipeline.parents import ParentSpec, parse_parents
from ragchunk.pipeline.plan import Plan, make_plan
from ragchunk.pipeline.scopes import make_plans
from ragchunk.runs.config import load_config
from ragchunk.settings import scope, shortcuts

TEXT = "".join(f"Paragraph {n} holds a sentence or two. It ends here.\n\n" for n in range(40))


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("800", ParentSpec("recursive", 800, 0)),
        ("800:100", ParentSpec("recursive", 800, 100)),
        ("markdown", ParentSpec("markdown", None, 0)),
        ("markdown:2000", ParentSpec("markdown", 2000, 0)),
        ("paragraph:900:50", ParentSpec("paragraph", 900, 50)),
    ],
)
def test_parse_parents(text: str, spec: ParentSpec) -> None:
    assert parse_parents(text) == spec


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "expects SIZE"),
        ("800:x", "expects SIZE"),
        ("1:2:3", "expects SIZE"),
        ("-5", "expects SIZE"),
        ("0", "size must be at least 1"),
        ("800:800", "overlap must be smaller"),
        ("100", "larger than the children's --size"),
        ("semantic:900", "cannot cut parents with semantic"),
        ("book:900", "cannot cut parents with book"),
        ("recursve:900", "did you mean 'recursive'"),
    ],
)
def test_bad_parents_name_the_option(text: str, message: str) -> None:
    with pytest.raises(OptionError, match=message) as caught:
        make_plan(shortcuts({"strategy": "recursive", "size": 200, "parents": text}))
    assert caught.value.option == "--parents"


def test_parents_change_no_id_without_them_and_every_id_with_them() -> None:
    plain = make_plan(shortcuts({"strategy": "recursive", "size": 200})).recipe
    assert (
        make_plan(
            shortcuts({"strategy": "recursive", "size": 200, "parents": None})
        ).recipe.fingerprint
        == plain.fingerprint
    )
    family = make_plan(shortcuts({"strategy": "recursive", "size": 200, "parents": "800"})).recipe
    assert family.fingerprint != plain.fingerprint
    assert family.parents is not None
    assert family.parents.capacity.size == 800
    assert family.parents.capacity.unit == "chars"
    tokens = make_plan(
        shortcuts({"strategy": "recursive", "size": 50, "unit": "tokens", "parents": "300"})
    ).recipe
    assert tokens.parents is not None
    assert tokens.parents.capacity.unit == "tokens"


def test_a_config_file_sets_parents(tmp_path: Path) -> None:
    path = tmp_path / "ragchunk.toml"
    path.write_text('size = 200\nparents = "900:50"\n', encoding="utf-8")
    plans = make_plans(load_config(str(path)), scope({}))
    parents = plans.default.recipe.parents
    assert parents is not None
    assert (parents.capacity.size, parents.capacity.overlap) == (900, 50)


def test_auto_keeps_the_parents_of_its_choice() -> None:
    recipe = make_plan(shortcuts({"strategy": "auto", "size": 200, "parents": "800"})).recipe
    chosen = recipe.for_document(Document(text=TEXT))
    assert chosen.parents is recipe.parents


def test_a_window_clips_sections_pages_and_wraps() -> None:
    doc = Document(
        text="abcdefghij" * 3,
        sections=(
            Section(0, 12, "table", header=(0, 4), parts=((4, 8), (8, 12))),
            Section(12, 30, "prose"),
        ),
        pages=(Page(1, 0, 14), Page(2, 15, 30)),
        wraps=(3, 9, 20),
    )
    part = window(doc, 6, 22)
    assert part.text == doc.text[6:22]
    assert [(s.start, s.end) for s in part.sections] == [(0, 6), (6, 16)]
    assert part.sections[0].header is None  # its header rows lie before the window
    assert part.sections[0].parts == ((0, 2), (2, 6))
    assert [(p.number, p.start, p.end) for p in part.pages] == [(1, 0, 8), (2, 9, 16)]
    assert part.wraps == (3, 14)
    assert window(doc, 0, len(doc.text)) is doc


def family() -> tuple[Document, list[Chunk], Plan]:
    plan = make_plan(
        shortcuts({"strategy": "recursive", "size": 120, "overlap": 0, "parents": "600"})
    )
    doc = Document(text=TEXT, source="t", doc_id="t")
    return doc, chunk_document(doc, plan.recipe), plan


def test_a_family_passes_the_checker() -> None:
    doc, chunks, plan = family()
    assert find_family_violations(doc, chunks, plan.recipe, []) == []
    assert check_chunks(doc, chunks, plan.recipe) == ()
    assert chunks[0].parent_id is None
    assert chunks[0].metadata["kind"] == "parent"
    assert all(c.index == n for n, c in enumerate(chunks))


def broken(chunks: list[Chunk], position: int, **changes: object) -> list[Chunk]:
    return [dataclasses.replace(c, **changes) if n == position else c for n, c in enumerate(chunks)]  # type: ignore[arg-type]


def test_the_checker_names_each_broken_link() -> None:
    doc, chunks, plan = family()
    second = next(n for n, c in enumerate(chunks) if n and c.parent_id is None)

    def problems(records: list[Chunk]) -> str:
        return "\n".join(find_family_violations(doc, records, plan.recipe, []))

    assert "is not the parent before it" in problems(broken(chunks, 1, parent_id="nobody"))
    child = chunks[second + 1]
    moved = broken(chunks, second + 1, parent_id=chunks[0].id)
    assert "is not the parent before it" in problems(moved)
    outside = broken(
        chunks, 1, end=chunks[0].end + 5, text=doc.text[chunks[1].start : chunks[0].end + 5]
    )
    assert "lies outside its parent" in problems(outside)
    assert "is not kind 'parent'" in problems(broken(chunks, 0, metadata={}))
    assert "index 7 where 1 was expected" in problems(broken(chunks, 1, index=7))
    dropped = [c for c in chunks if c.id != child.id]
    for n, c in enumerate(dropped):
        c.index = n
    assert f"children of parent {second} [" in problems(dropped)
    assert "lies in no chunk" in problems(dropped)
    big = broken(chunks, 0, end=len(doc.text), text=doc.text, chars=len(doc.text))
    assert "parents: chunk 0" in problems(big)
