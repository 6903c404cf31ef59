"""A chunk's facts as the flat metadata of another framework's document or node.

Vector stores take metadata of strings, numbers and (some) lists: the record's fields come out
flat, with its ``metadata`` keys beside them, and fields a record leaves out are left out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.model import Chunk

OWN_KEYS: Final = (
    "chunk_id",
    "doc_id",
    "index",
    "start",
    "end",
    "strategy",
    "chars",
    "tokens",
    "page_start",
    "page_end",
    "timestamp_start",
    "timestamp_end",
    "line_start",
    "line_end",
    "parent_id",
)
"""The record's fields as metadata keys (``id`` becomes ``chunk_id``), besides ``headings``."""


def chunk_metadata(chunk: Chunk) -> dict[str, object]:
    """Return ``chunk``'s record without its text, flat: its ``metadata`` keys, then its fields.

    ``headings`` is a list of strings; ``parent_id`` is present on children (``--parents``),
    ``kind`` (``parent``) on parents; ``context`` when the chunk has one.
    """
    facts: dict[str, object] = dict(chunk.metadata)
    facts["chunk_id"] = chunk.id
    facts["headings"] = list(chunk.headings)
    for key in OWN_KEYS[1:]:
        value = getattr(chunk, key)
        if value is not None:
            facts[key] = value
    if chunk.context is not None:
        facts["context"] = chunk.context
    return facts
