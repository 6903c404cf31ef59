"""ragchunk: documents into chunks for retrieval-augmented generation, with exact offsets.

The library API mirrors the command line::

    from ragchunk import chunk_text
    for chunk in chunk_text(text, strategy="recursive", size=400, overlap=40):
        assert chunk.text == text[chunk.start:chunk.end]
"""

from __future__ import annotations

from ragchunk.api import chunk_file, chunk_text
from ragchunk.errors import (
    BackendError,
    CorruptDocumentError,
    InputError,
    LimitExceededError,
    OptionError,
    RagchunkError,
    UsageError,
)
from ragchunk.model import Chunk, Document, Page, Section, Span
from ragchunk.options import Budget

__all__ = [
    "BackendError",
    "Budget",
    "Chunk",
    "CorruptDocumentError",
    "Document",
    "InputError",
    "LimitExceededError",
    "OptionError",
    "Page",
    "RagchunkError",
    "Section",
    "Span",
    "UsageError",
    "chunk_file",
    "chunk_text",
]
