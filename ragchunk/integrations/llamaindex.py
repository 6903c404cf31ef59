"""LlamaIndex: ragchunk as a ``NodeParser`` (``ragchunk[llamaindex]``).

::

    from ragchunk.integrations.llamaindex import RagchunkNodeParser

    parser = RagchunkNodeParser(strategy="markdown", size=600, parents="2000")
    nodes = parser.get_nodes_from_documents(documents)

Every ``TextNode`` holds a chunk's text verbatim, with ``start_char_idx`` and ``end_char_idx``
the chunk's exact span in its document's text (LlamaIndex's own post-processing searches for
each node's text with ``str.find``, which finds the wrong place when a text repeats; this
parser keeps ragchunk's spans), its id the chunk's id, and ragchunk's facts as metadata
(``ragchunk.integrations._records``); only ``headings`` (when there are any) reach the text the
embedding model and the LLM see, the other keys are excluded from both.

Under ``parents`` a parent node comes before its children: the children's ``PARENT``
relationship names it and its ``CHILD`` relationship lists them, as LlamaIndex's
``HierarchicalNodeParser`` links its levels; so ``AutoMergingRetriever`` or a docstore lookup
by ``parent_id`` returns the parent of a child found. ``PREVIOUS``/``NEXT`` link nodes of one
level (parents to parents, children to the children of the same document).

This module imports LlamaIndex at import time (the parser subclasses its ``NodeParser``);
nothing else in ragchunk imports this module.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.node_parser.interface import NodeParser
from llama_index.core.schema import (
    BaseNode,
    Document,
    MetadataMode,
    NodeRelationship,
    RelatedNodeInfo,
    TextNode,
)

from ragchunk.defaults import DEFAULT_TOKENIZER
from ragchunk.integrations._records import OWN_KEYS, chunk_metadata

if TYPE_CHECKING:
    from ragchunk.model import Chunk
    from ragchunk.pipeline.plan import Recipe

__all__ = ["RagchunkNodeParser"]

_HIDDEN = [*OWN_KEYS, "kind", "context"]
"""Metadata keys kept out of the text the embedding model and the LLM see."""


class RagchunkNodeParser(NodeParser):
    """A LlamaIndex node parser that runs a ragchunk strategy (options as ``ragchunk split``'s).

    The options are validated when the parser is made (``UsageError`` names a bad one).
    ``id_func`` is not used: node ids are the chunks' ids, stable for the same document id,
    text and options.
    """

    strategy: str = Field(default="recursive", description="The ragchunk strategy.")
    size: int | None = Field(default=None, description="The hard size limit (--size).")
    overlap: int | None = Field(default=None, description="The overlap (--overlap).")
    unit: str | None = Field(default=None, description="chars or tokens (--unit).")
    tokenizer: str = Field(default=DEFAULT_TOKENIZER, description="The tokenizer (--tokenizer).")
    options: dict[str, Any] = Field(default_factory=dict, description="Strategy options (-O).")
    parents: str | None = Field(
        default=None, description="Parent chunks: [STRATEGY:]SIZE[:OVERLAP] (--parents)."
    )
    _recipe: Any = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        """Validate the options once and keep the plan's recipe."""
        from ragchunk.options import parse_unit
        from ragchunk.pipeline.plan import make_plan
        from ragchunk.settings import shortcuts

        super().model_post_init(context)
        unit = None if self.unit is None else parse_unit(self.unit)
        plan = make_plan(
            shortcuts(
                {
                    "strategy": self.strategy,
                    "size": self.size,
                    "overlap": self.overlap,
                    "unit": unit,
                    "tokenizer": self.tokenizer,
                    "options": self.options,
                    "parents": self.parents,
                }
            )
        )
        self._recipe = plan.recipe

    @classmethod
    def class_name(cls) -> str:
        """Return the name LlamaIndex serialises this parser under."""
        return "RagchunkNodeParser"

    def _parse_nodes(  # LlamaIndex's signature; no progress bar here
        self,
        nodes: Sequence[BaseNode],
        show_progress: bool = False,  # noqa: FBT001, FBT002, ARG002
        **kwargs: Any,  # noqa: ARG002
    ) -> list[BaseNode]:
        from ragchunk.model import Document as RagchunkDocument
        from ragchunk.pipeline.engine import chunk_document

        recipe: Recipe = self._recipe
        parsed: list[BaseNode] = []
        for node in nodes:
            text = node.get_content(metadata_mode=MetadataMode.NONE)
            doc = RagchunkDocument(text=text, source=node.node_id, doc_id=node.node_id)
            parsed += _nodes(chunk_document(doc, recipe), node)
        return parsed

    def _postprocess_parsed_nodes(
        self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]
    ) -> list[BaseNode]:
        """LlamaIndex's post-processing, then ragchunk's spans and level links put back."""
        spans = [
            (n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes
        ]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, span in zip(nodes, spans, strict=True):
            if isinstance(node, TextNode) and span is not None:
                node.start_char_idx, node.end_char_idx = span
        if self.parents is not None:
            _link_levels(nodes, linked=self.include_prev_next_rel)
        return nodes


def _nodes(chunks: list[Chunk], source: BaseNode) -> list[BaseNode]:
    """Return a node per chunk of ``source``, parents linked to their children."""
    made: list[TextNode] = []
    children: dict[str, list[RelatedNodeInfo]] = {}
    for chunk in chunks:
        hidden = _HIDDEN if chunk.headings else [*_HIDDEN, "headings"]
        node = TextNode(
            id_=chunk.id,
            text=chunk.text,
            start_char_idx=chunk.start,
            end_char_idx=chunk.end,
            metadata=chunk_metadata(chunk),
            excluded_embed_metadata_keys=list(hidden),
            excluded_llm_metadata_keys=list(hidden),
        )
        node.relationships[NodeRelationship.SOURCE] = source.as_related_node_info()
        if chunk.parent_id is not None:
            node.relationships[NodeRelationship.PARENT] = RelatedNodeInfo(node_id=chunk.parent_id)
            children.setdefault(chunk.parent_id, []).append(node.as_related_node_info())
        made.append(node)
    for node in made:
        if node.node_id in children:
            node.relationships[NodeRelationship.CHILD] = children[node.node_id]
    return list(made)


def _link_levels(nodes: list[BaseNode], *, linked: bool) -> None:
    """Make ``PREVIOUS``/``NEXT`` link nodes of one level and one source document only."""
    last: dict[tuple[str | None, bool], BaseNode] = {}
    for node in nodes:
        node.relationships.pop(NodeRelationship.PREVIOUS, None)
        node.relationships.pop(NodeRelationship.NEXT, None)
        if not linked:
            continue
        key = (node.ref_doc_id, NodeRelationship.PARENT in node.relationships)
        before = last.get(key)
        if before is not None:
            node.relationships[NodeRelationship.PREVIOUS] = before.as_related_node_info()
            before.relationships[NodeRelationship.NEXT] = node.as_related_node_info()
        last[key] = node
