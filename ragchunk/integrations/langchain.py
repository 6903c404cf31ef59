"""LangChain: ragchunk as a ``TextSplitter`` and as a document loader (``ragchunk[langchain]``).

``RagchunkTextSplitter`` splits the text of LangChain documents with any ragchunk strategy::

    from ragchunk.integrations.langchain import RagchunkTextSplitter

    splitter = RagchunkTextSplitter("markdown", size=600, parents="2000")
    chunks = splitter.split_documents(docs)

Each document it returns holds a chunk's text verbatim, with ``start_index`` — the chunk's
exact offset into the text it came from, never searched for with ``str.find`` as LangChain's
own splitters do — and ``end_index``, plus ragchunk's facts (``ragchunk.integrations._records``:
``chunk_id``, ``headings``, ``index``, ``strategy``, ``chars``, lines, ``parent_id`` and the
strategy's metadata) after the metadata of the document it split. Its ``id`` is the chunk's id.
Under ``parents`` the parents come too, each before its children (``metadata["kind"] ==
"parent"``): index the children, keep the parents in a docstore by ``chunk_id``, and hand the
model the parent of each child found (``parent_id``).

``RagchunkLoader`` reads files of any format ragchunk parses (``ragchunk.api.chunk_file``) and
yields their chunks as documents, with ``source`` (the path) and ``doc_id`` besides.

This module imports LangChain at import time (its classes subclass LangChain's); nothing else in
ragchunk imports this module.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document as LangChainDocument
from langchain_text_splitters import TextSplitter

from ragchunk.defaults import DEFAULT_TOKENIZER
from ragchunk.integrations._records import chunk_metadata

if TYPE_CHECKING:
    from ragchunk.model import Chunk
    from ragchunk.options import Unit
    from ragchunk.pipeline.plan import Plan

__all__ = ["RagchunkLoader", "RagchunkTextSplitter"]


class RagchunkTextSplitter(TextSplitter):
    """A LangChain text splitter that runs a ragchunk strategy (options as ``ragchunk split``'s).

    The options are validated here, once (``UsageError`` names a bad one). ``chunk_size`` and
    ``chunk_overlap`` of LangChain's base class are the strategy's size and overlap; text is
    never stripped (chunks are verbatim). ``add_start_index`` (default True) adds
    ``start_index`` and ``end_index``.
    """

    def __init__(
        self,
        strategy: str = "recursive",
        *,
        size: int | None = None,
        overlap: int | None = None,
        unit: Unit | None = None,
        tokenizer: str = DEFAULT_TOKENIZER,
        options: Mapping[str, object] | None = None,
        parents: str | None = None,
        add_start_index: bool = True,
    ) -> None:
        from ragchunk.pipeline.plan import make_plan
        from ragchunk.settings import shortcuts

        self._plan: Plan = make_plan(
            shortcuts(
                {
                    "strategy": strategy,
                    "size": size,
                    "overlap": overlap,
                    "unit": unit,
                    "tokenizer": tokenizer,
                    "options": options,
                    "parents": parents,
                }
            )
        )
        budget = self._plan.recipe.capacity
        super().__init__(
            chunk_size=budget.size,
            chunk_overlap=budget.overlap,
            add_start_index=add_start_index,
            strip_whitespace=False,
        )

    def chunks(self, text: str, doc_id: str = "-") -> list[Chunk]:
        """Return ragchunk's own chunks of ``text`` (``doc_id`` is part of every chunk id)."""
        from ragchunk.model import Document
        from ragchunk.pipeline.engine import chunk_document

        doc = Document(text=text, source=doc_id, doc_id=doc_id)
        return chunk_document(doc, self._plan.recipe)

    def split_text(self, text: str) -> list[str]:
        """Return the chunks' texts (parents too under ``parents``), verbatim, in order."""
        return [chunk.text for chunk in self.chunks(text)]

    def create_documents(
        self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None
    ) -> list[LangChainDocument]:
        """Return a document per chunk of each text, with exact offsets and ragchunk's metadata.

        A text's ``doc_id`` (part of its chunks' ids) is its metadata's ``source``, numbered
        when several texts share one (``report.pdf#2``), else its position in ``texts``.
        """
        given = metadatas or [{}] * len(texts)
        seen: dict[str, int] = {}
        documents: list[LangChainDocument] = []
        for position, (text, metadata) in enumerate(zip(texts, given, strict=True)):
            name = str(metadata.get("source", position))
            seen[name] = seen.get(name, 0) + 1
            doc_id = name if seen[name] == 1 else f"{name}#{seen[name]}"
            chunks = self.chunks(text, doc_id)
            documents += (self._document(chunk, copy.deepcopy(metadata)) for chunk in chunks)
        return documents

    def _document(self, chunk: Chunk, metadata: dict[Any, Any]) -> LangChainDocument:
        facts = chunk_metadata(chunk)
        for key in ("doc_id", "start", "end"):  # a made-up name; offsets are LangChain's keys
            del facts[key]
        metadata.update(facts)
        if self._add_start_index:
            metadata["start_index"] = chunk.start
            metadata["end_index"] = chunk.end
        return LangChainDocument(page_content=chunk.text, metadata=metadata, id=chunk.id)


class RagchunkLoader(BaseLoader):
    """Load files as chunk documents: each file parsed and chunked by ragchunk.

    ``paths`` is one file or several; every format ``ragchunk split`` reads is read (PDF,
    DOCX, HTML, code...). ``start_index`` and ``end_index`` index the parsed text
    (``ragchunk inspect FILE --text``); ``doc_id`` is the path relative to ``root``. A file
    that cannot be read raises ``InputError`` naming it.
    """

    def __init__(
        self,
        paths: str | Path | Sequence[str | Path],
        strategy: str = "recursive",
        *,
        size: int | None = None,
        overlap: int | None = None,
        unit: Unit | None = None,
        tokenizer: str = DEFAULT_TOKENIZER,
        options: Mapping[str, object] | None = None,
        parents: str | None = None,
        root: str = ".",
    ) -> None:
        from ragchunk.pipeline.plan import make_plan
        from ragchunk.settings import shortcuts

        if isinstance(paths, str | Path):
            paths = [paths]
        self.paths = [str(path) for path in paths]
        self.strategy, self.root = strategy, root
        self.settings: dict[str, Any] = {
            "size": size,
            "overlap": overlap,
            "unit": unit,
            "tokenizer": tokenizer,
            "options": options,
            "parents": parents,
        }
        make_plan(shortcuts({"strategy": strategy, **self.settings}))  # checked before reading

    def lazy_load(self) -> Iterator[LangChainDocument]:
        """Yield the chunks of each file in turn, in order."""
        from ragchunk.api import chunk_file

        for path in self.paths:
            for chunk in chunk_file(path, strategy=self.strategy, root=self.root, **self.settings):
                metadata = {"source": chunk.source, **chunk_metadata(chunk)}
                metadata["start_index"], metadata["end_index"] = (
                    metadata.pop("start"),
                    metadata.pop("end"),
                )
                yield LangChainDocument(page_content=chunk.text, metadata=metadata, id=chunk.id)
