"""The LlamaIndex node parser against the real llama-index-core.

Its nodes must carry exactly ragchunk's own chunks: texts, ``start_char_idx``/``end_char_idx``,
ids and metadata, in order; under ``parents`` the PARENT and CHILD relationships link the
levels as the records' ``parent_id`` does.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from ragchunk.api import chunk_text
from ragchunk.errors import UsageError
from tests.support.requirements import require_module

require_module("llama_index.core", "pip install 'ragchunk[llamaindex]'")

from llama_index.core import Document  # noqa: E402
from llama_index.core.node_parser import NodeParser  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode  # noqa: E402

from ragchunk.integrations.llamaindex import RagchunkNodeParser  # noqa: E402

FIXTURES = Path(__file__).parents[3] / "fixtures"
CASES = [
    ("markdown/station-guide.md", "markdown", 300, None),
    ("markdown/git-readme.md", "recursive", 200, "900:100"),
    ("text/field-notes.txt", "sentence", 250, "1000"),
    ("text/apache-2.0.txt", "fixed", 400, None),
    ("code/inventory.py", "code", 300, "1200"),
]


def nodes_of(parser: RagchunkNodeParser, text: str, doc_id: str) -> list[TextNode]:
    nodes = parser.get_nodes_from_documents([Document(text=text, id_=doc_id)])
    assert all(isinstance(node, TextNode) for node in nodes)
    return [node for node in nodes if isinstance(node, TextNode)]


@pytest.mark.parametrize(("name", "strategy", "size", "parents"), CASES)
def test_nodes_carry_ragchunks_own_spans(
    name: str, strategy: str, size: int, parents: str | None
) -> None:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    parser = RagchunkNodeParser(strategy=strategy, size=size, parents=parents)
    assert isinstance(parser, NodeParser)
    nodes = nodes_of(parser, text, name)
    own = chunk_text(text, strategy=strategy, size=size, parents=parents, doc_id=name)
    assert [n.get_content(metadata_mode=MetadataMode.NONE) for n in nodes] == [c.text for c in own]
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in own]
    assert [n.node_id for n in nodes] == [c.id for c in own]
    for node, chunk in zip(nodes, own, strict=True):
        assert node.ref_doc_id == name
        assert node.metadata["headings"] == list(chunk.headings)
        assert {k: node.metadata[k] for k in chunk.metadata} == dict(chunk.metadata)
        assert "chunk_id" not in node.get_content(metadata_mode=MetadataMode.EMBED)


def test_parent_and_child_relationships() -> None:
    text = (FIXTURES / "markdown" / "git-readme.md").read_text(encoding="utf-8")
    nodes = nodes_of(RagchunkNodeParser(size=200, parents="900"), text, "readme")
    by_id = {node.node_id: node for node in nodes}
    parents = [n for n in nodes if NodeRelationship.PARENT not in n.relationships]
    children = [n for n in nodes if NodeRelationship.PARENT in n.relationships]
    assert parents
    assert children
    for child in children:
        parent = by_id[child.relationships[NodeRelationship.PARENT].node_id]
        assert child.metadata["parent_id"] == parent.node_id
        assert parent.start_char_idx <= child.start_char_idx  # type: ignore[operator]
        assert child.end_char_idx <= parent.end_char_idx  # type: ignore[operator]
        listed = parent.relationships[NodeRelationship.CHILD]
        assert isinstance(listed, list)
        assert child.node_id in [info.node_id for info in listed]
    for level in (parents, children):  # PREVIOUS/NEXT stay within a level
        for before, after in itertools.pairwise(level):
            assert after.relationships[NodeRelationship.PREVIOUS].node_id == before.node_id
            assert before.relationships[NodeRelationship.NEXT].node_id == after.node_id


def test_repeated_text_keeps_exact_offsets() -> None:
    # LlamaIndex's post-processing looks each node's text up with str.find; a text repeated
    # across parents and children would be placed wrong. The parser keeps ragchunk's spans.
    text = "Same paragraph here.\n\n" * 40
    nodes = nodes_of(RagchunkNodeParser(size=50, overlap=0, parents="200"), text, "rep")
    own = chunk_text(text, size=50, overlap=0, parents="200", doc_id="rep")
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in own]


def test_two_documents_get_distinct_node_ids() -> None:
    parser = RagchunkNodeParser(size=100)
    nodes = parser.get_nodes_from_documents(
        [Document(text="The same text.", id_="a"), Document(text="The same text.", id_="b")]
    )
    assert len({node.node_id for node in nodes}) == 2
    assert [node.ref_doc_id for node in nodes] == ["a", "b"]


def test_bad_options_fail_when_the_parser_is_made() -> None:
    with pytest.raises(UsageError, match="--parents"):
        RagchunkNodeParser(size=300, parents="2:1:0:9")
    with pytest.raises(UsageError, match="--unit"):
        RagchunkNodeParser(unit="words")
