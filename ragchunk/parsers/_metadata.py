"""Caps on a document's metadata, which every one of its chunks carries (SPEC §2).

A document's metadata is copied into each chunk's record, so a value that grows with the input
(a CSV's column names, an e-mail's ``To`` list) would grow the output by the input's size times
its number of chunks. ``capped`` keeps the first ``MAX_METADATA_ITEMS`` items of a list and
the first ``MAX_METADATA_CHARS`` characters of a string; ``KEY_more`` then says how many items
or characters were left out: ``{"columns": [first 50], "columns_more": 250}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ragchunk.model import JSONValue

MAX_METADATA_ITEMS: Final = 50
"""The most items of a list kept in a document's metadata; ``KEY_more`` counts the rest."""
MAX_METADATA_CHARS: Final = 1000
"""The most characters of a string kept in a document's metadata; ``KEY_more`` counts the rest."""


def capped(metadata: Mapping[str, JSONValue]) -> dict[str, JSONValue]:
    """Return ``metadata`` with long lists and strings cut, each cut counted in ``KEY_more``.

    Nested mappings are capped the same way; items of a list are kept as they are.
    """
    out: dict[str, JSONValue] = {}
    for key, value in metadata.items():
        left_out = 0
        if isinstance(value, str) and len(value) > MAX_METADATA_CHARS:
            value, left_out = value[:MAX_METADATA_CHARS], len(value) - MAX_METADATA_CHARS
        elif isinstance(value, list) and len(value) > MAX_METADATA_ITEMS:
            value, left_out = value[:MAX_METADATA_ITEMS], len(value) - MAX_METADATA_ITEMS
        elif isinstance(value, dict):
            value = capped(value)
        out[key] = value
        if left_out:
            out[f"{key}_more"] = left_out
    return out
