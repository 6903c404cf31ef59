"""The LangChain adapters against the real langchain-core and langchain-text-splitters.

The documents they make must carry exactly ragchunk's own chunks: the same texts, the same
spans (``start_index``/``end_index``), the same ids and metadata, in the same order.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.api import chunk_file, chunk_text
from ragchunk.errors import UsageError
from tests.support.requirements import require_module

require_module("langchain_text_splitters", "pip install 'ragchunk[langchain]'")

from langchain_core.documents import Document  # noqa: E402
from langchain_text_splitters import TextSplitter  # noqa: E402

from ragchunk.integrations.langchain import RagchunkLoader, RagchunkTextSplitter  # noqa: E402

FIXTURES = Path(__file__).parents[3] / "fixtures"
CASES = [
    ("markdown/station-guide.md", "markdown", 300, None),
    ("markdown/git-readme.md", "recursive", 200, "900:100"),
    ("text/field-notes.txt", "sentence", 250, None),
    ("text/apache-2.0.txt", "recursive", 400, "1600"),
    ("code/inventory.py", "code", 300, "1200"),
]


@pytest.mark.parametrize(("name", "strategy", "size", "parents"), CASES)
def test_the_splitter_gives_ragchunks_own_spans(
    name: str, strategy: str, size: int, parents: str | None
) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    splitter = RagchunkTextSplitter(strategy, size=size, parents=parents)
    assert isinstance(splitter, TextSplitter)
    documents = splitter.create_documents([text], [{"source": name, "team": "docs"}])
    own = chunk_text(text, strategy=strategy, size=size, parents=parents, doc_id=name)
    assert [d.page_content for d in documents] == [c.text for c in own]
    assert [(d.metadata["start_index"], d.metadata["end_index"]) for d in documents] == [
        (c.start, c.end) for c in own
    ]
    assert [d.id for d in documents] == [c.id for c in own]
    for document, chunk in zip(documents, own, strict=True):
        assert text[chunk.start : chunk.end] == document.page_content
        assert document.metadata["team"] == "docs"
        assert document.metadata["source"] == name
        assert document.metadata["chunk_id"] == chunk.id
        assert document.metadata["headings"] == list(chunk.headings)
        assert document.metadata.get("parent_id") == chunk.parent_id
        assert {k: document.metadata[k] for k in chunk.metadata} == dict(chunk.metadata)
    assert splitter.split_text(text) == [c.text for c in own]


def test_parents_come_before_their_children() -> None:
    text = (FIXTURES / "markdown" / "git-readme.md").read_text(encoding="utf-8")
    documents = RagchunkTextSplitter(size=200, parents="900").split_documents(
        [Document(page_content=text, metadata={"source": "readme"})]
    )
    parents = {d.id: d for d in documents if d.metadata.get("kind") == "parent"}
    children = [d for d in documents if "parent_id" in d.metadata]
    assert parents
    assert children
    assert len(parents) + len(children) == len(documents)
    for child in children:
        parent = parents[child.metadata["parent_id"]]
        assert parent.metadata["start_index"] <= child.metadata["start_index"]
        assert child.metadata["end_index"] <= parent.metadata["end_index"]


def test_repeated_text_keeps_exact_offsets() -> None:
    # LangChain's own splitters find a chunk's start with str.find: a repeated paragraph
    # would be placed at its first occurrence. ragchunk's offsets come from the split.
    text = "Same paragraph here.\n\n" * 30
    documents = RagchunkTextSplitter(size=50, overlap=0).create_documents([text])
    starts = [d.metadata["start_index"] for d in documents]
    assert starts == sorted(set(starts))
    assert all(
        text[d.metadata["start_index"] : d.metadata["end_index"]] == d.page_content
        for d in documents
    )


def test_texts_sharing_a_source_get_distinct_chunk_ids() -> None:
    documents = RagchunkTextSplitter(size=100).create_documents(
        ["one page", "one page"], [{"source": "a.pdf"}, {"source": "a.pdf"}]
    )
    assert len({d.id for d in documents}) == 2


def test_bad_options_fail_when_the_splitter_is_made() -> None:
    with pytest.raises(UsageError, match="--overlap"):
        RagchunkTextSplitter(size=10, overlap=10)
    with pytest.raises(UsageError, match="--parents"):
        RagchunkTextSplitter(size=500, parents="400")


@pytest.mark.parametrize(
    "name", ["docx/report.docx", "pdf/estuary-report.pdf", "markdown/station-guide.md"]
)
def test_the_loader_gives_chunk_files_records(name: str) -> None:
    path = str(FIXTURES / name)
    loaded = RagchunkLoader(path, size=300, parents="1200").load()
    own = chunk_file(path, size=300, parents="1200")
    assert [(d.page_content, d.id) for d in loaded] == [(c.text, c.id) for c in own]
    for document, chunk in zip(loaded, own, strict=True):
        assert document.metadata["start_index"] == chunk.start
        assert document.metadata["end_index"] == chunk.end
        assert document.metadata["source"] == path
        assert document.metadata["doc_id"] == chunk.doc_id
        assert document.metadata.get("page_start") == chunk.page_start


def test_the_loader_reads_several_files_in_order() -> None:
    paths = [FIXTURES / "text" / "field-notes.txt", FIXTURES / "markdown" / "station-guide.md"]
    loaded = list(RagchunkLoader(paths, "paragraph", size=400).lazy_load())
    sources = list(dict.fromkeys(d.metadata["source"] for d in loaded))
    assert sources == [str(p) for p in paths]
