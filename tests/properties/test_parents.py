"""Parent/child chunks (``--parents``): SPEC §3 per level, and the links between the levels.

Every strategy that splits by shape cuts the children, on real fixtures of each format and on
generated text. Besides ``--check``'s own verdict (``ragchunk.pipeline.family``), each test asserts
the contract directly from the records: each parent followed by its children, every ``parent_id``
that of the parent before it, every child inside its parent's span and verbatim, the parents
covering the document and each parent's children covering that parent's text, both levels
within their own size limits.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragchunk.model import Chunk, Document, Dropped
from ragchunk.pipeline.engine import check_chunks, chunk_document, process
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.meaning import SHAPES
from tests.properties.test_invariants import texts

FIXTURES = Path(__file__).parents[2] / "fixtures"
FILES = [
    "markdown/station-guide.md",
    "text/field-notes.txt",
    "docx/report.docx",
    "pdf/estuary-report.pdf",
    "code/inventory.py",
    "templates/services-agreement.txt",
]
_NON_SPACE = re.compile(r"\S")


def families(chunks: list[Chunk]) -> list[tuple[Chunk, list[Chunk]]]:
    """Return each parent with its children, asserting the order and links of the records."""
    found: list[tuple[Chunk, list[Chunk]]] = []
    for position, chunk in enumerate(chunks):
        assert chunk.index == position
        if chunk.parent_id is None:
            assert chunk.metadata["kind"] == "parent"
            found.append((chunk, []))
            continue
        assert found, "a child before any parent"
        parent = found[-1][0]
        assert chunk.parent_id == parent.id
        assert parent.start <= chunk.start < chunk.end <= parent.end
        found[-1][1].append(chunk)
    return found


def uncovered(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> list[int]:
    """Return the offsets of non-whitespace in ``text[start:end]`` that no span holds."""
    covered = bytearray(end - start)
    for a, b in spans:
        covered[a - start : b - start] = b"\1" * (b - a)
    return [
        m.start() for m in _NON_SPACE.finditer(text, start, end) if not covered[m.start() - start]
    ]


def assert_family(
    doc: Document,
    chunks: list[Chunk],
    dropped: list[Dropped],
    sizes: tuple[int, int],
    unit: str = "chars",
) -> None:
    """Assert the contract of parent and child records (module docstring); sizes in ``unit``."""
    child_size, parent_size = sizes

    def size(chunk: Chunk) -> int | None:
        return chunk.tokens if unit == "tokens" else chunk.chars

    grouped = families(chunks)
    text = doc.text
    parents = [parent for parent, _ in grouped]
    assert uncovered(text, 0, len(text), [(p.start, p.end) for p in parents]) == []
    assert [p.start for p in parents] == sorted(p.start for p in parents)
    gaps = [(d.start, d.end) for d in dropped]
    for parent, children in grouped:
        assert parent.text == text[parent.start : parent.end]
        assert (size(parent) or 0) <= parent_size or parent.metadata.get("oversize")
        lost = uncovered(
            text, parent.start, parent.end, [(c.start, c.end) for c in children] + gaps
        )
        assert lost == [], f"parent {parent.index}: characters {lost[:5]} in no child"
        assert [c.start for c in children] == sorted(c.start for c in children)
        for child in children:
            assert child.text == text[child.start : child.end]
            assert (size(child) or 0) <= child_size or child.metadata.get("oversize")


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("strategy", SHAPES)
def test_parents_on_fixtures(strategy: str, name: str) -> None:
    sizes = (160, 700)
    plan = make_plan(
        shortcuts(
            {
                "strategy": strategy,
                "size": sizes[0],
                "overlap": 16,
                "parents": f"{sizes[1]}:40",
                "check": True,
            }
        )
    )
    result = process(str(FIXTURES / name), name, plan, keep_document=True)
    if result.error is not None:  # a template that does not fit the file says so: no crash
        assert "internal error" not in result.error
        pytest.skip(result.error)
    assert result.violations == ()
    assert result.document is not None
    dropped = [span for _, span in result.dropped]
    unit = plan.recipe.capacity.unit
    assert_family(result.document, list(result.chunks), dropped, sizes, unit)
    assert any(c.parent_id is not None for c in result.chunks)


@settings(max_examples=60, deadline=None)
@given(
    text=texts,
    strategy=st.sampled_from(SHAPES),
    child=st.integers(1, 60),
    extra=st.integers(1, 200),
    overlap=st.integers(0, 100),
)
def test_parents_on_generated_text(
    text: str, strategy: str, child: int, extra: int, overlap: int
) -> None:
    parent = child + extra
    plan = make_plan(
        shortcuts(
            {
                "strategy": strategy,
                "size": child,
                "overlap": 0,
                "parents": f"{parent}:{min(overlap, parent - 1)}",
            }
        )
    )
    doc = Document(text=text, source="gen", doc_id="gen")
    dropped: list[Dropped] = []
    chunks = chunk_document(doc, plan.recipe, dropped=dropped)
    assert check_chunks(doc, chunks, plan.recipe, dropped) == ()
    assert_family(doc, chunks, dropped, (child, parent), plan.recipe.capacity.unit)


def test_records_without_parents_have_no_parent_fields() -> None:
    plan = make_plan(shortcuts({"strategy": "recursive", "size": 200}))
    chunks = chunk_document(Document(text="One. Two.\n\nThree " * 40), plan.recipe)
    records = [chunk.to_record() for chunk in chunks]
    assert all("parent_id" not in r and "kind" not in r["metadata"] for r in records)


def test_overlapping_parents_give_children_distinct_ids() -> None:
    text = " ".join(f"word{n}." for n in range(400))
    plan = make_plan(
        shortcuts({"strategy": "fixed", "size": 50, "overlap": 0, "parents": "300:150"})
    )
    chunks = chunk_document(Document(text=text), plan.recipe)
    ids = [chunk.id for chunk in chunks]
    assert len(ids) == len(set(ids))
    spans = [(c.start, c.end) for c in chunks if c.parent_id is not None]
    assert len(spans) > len(set(spans))  # the overlap of two parents is cut twice
