"""ragchunk: documents into chunks for retrieval-augmented generation, with exact offsets.

The library API mirrors the command line::

    from ragchunk import chunk_text
    for chunk in chunk_text(text, strategy="recursive", size=400, overlap=40):
        assert chunk.text == text[chunk.start:chunk.end]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ragchunk.api import chunk_file, chunk_text
    from ragchunk.backends import EmbedderSpec
    from ragchunk.errors import (
        BackendError,
        CorruptDocumentError,
        EngineError,
        InputError,
        LimitExceededError,
        OptionError,
        RagchunkError,
        StoreError,
        UsageError,
    )
    from ragchunk.model import Chunk, Document, Page, Section, Span
    from ragchunk.options import Budget
    from ragchunk.parsers._spec import ParseOptions
    from ragchunk.runs.dedupe import DedupeOptions, Deduper, dedupe_chunks
    from ragchunk.runs.index import index
    from ragchunk.runs.loop import run
    from ragchunk.runs.query import query
    from ragchunk.settings import Settings

_HOMES = {
    "chunk_file": "api",
    "chunk_text": "api",
    "BackendError": "errors",
    "CorruptDocumentError": "errors",
    "EngineError": "errors",
    "InputError": "errors",
    "LimitExceededError": "errors",
    "OptionError": "errors",
    "RagchunkError": "errors",
    "StoreError": "errors",
    "UsageError": "errors",
    "Chunk": "model",
    "Document": "model",
    "Page": "model",
    "Section": "model",
    "Span": "model",
    "Budget": "options",
    "EmbedderSpec": "backends",
    "DedupeOptions": "runs.dedupe",
    "Deduper": "runs.dedupe",
    "dedupe_chunks": "runs.dedupe",
    "ParseOptions": "parsers._spec",
    "index": "runs.index",
    "query": "runs.query",
    "run": "runs.loop",
    "Settings": "settings",
}
"""Where each public name lives: imported on first use, so ``ragchunk --help`` (which runs
this package's ``__init__`` first) does not pay for the engine's modules."""

__all__ = [
    "BackendError",
    "Budget",
    "Chunk",
    "CorruptDocumentError",
    "DedupeOptions",
    "Deduper",
    "Document",
    "EmbedderSpec",
    "EngineError",
    "InputError",
    "LimitExceededError",
    "OptionError",
    "Page",
    "ParseOptions",
    "RagchunkError",
    "Section",
    "Settings",
    "Span",
    "StoreError",
    "UsageError",
    "chunk_file",
    "chunk_text",
    "dedupe_chunks",
    "index",
    "query",
    "run",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module on first access (PEP 562)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'ragchunk' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"ragchunk.{home}"), name)
    globals()[name] = value
    return value
