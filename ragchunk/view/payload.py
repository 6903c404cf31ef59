"""The data the page's script reads: the text, its pages and every chunking's records.

Offsets in records are code points (SPEC §2), as the page shows them; JavaScript strings count
UTF-16 code units, so every span the script slices by is also given in those units (they differ
after each character outside the Basic Multilingual Plane). The JSON is made safe to sit inside
a ``<script>`` element: no ``<``, ``>`` or ``&`` appears raw, so no document text can close the
element or open a comment, and lone surrogates (from a PDF or a file name) are escaped.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from ragchunk.model import Chunk, Document, JSONValue
    from ragchunk.view.build import Side

_ASTRAL: Final = re.compile("[\U00010000-\U0010ffff]")
_UNSAFE: Final = re.compile("[<>&\u2028\u2029\ud800-\udfff]")


def utf16_offsets(text: str) -> Callable[[int], int]:
    """Return a function from a code-point offset in ``text`` to its UTF-16 offset."""
    astral = [match.start() for match in _ASTRAL.finditer(text)]
    if not astral:
        return lambda offset: offset
    return lambda offset: offset + bisect.bisect_left(astral, offset)


def side_label(side: Side) -> str:
    """Return a chunking's short name: strategy, size or unbounded, overlap."""
    recipe = side.recipe
    budget = recipe.capacity
    label = recipe.strategy.name
    if recipe.limit is None:
        label += " · unbounded"
    else:
        label += f" · {recipe.limit} {budget.unit}"
    if budget.overlap:
        label += f" · overlap {budget.overlap}"
    return f"{label} · {side.level}" if side.level else label


def chunk_size(chunk: Chunk, unit: str) -> int:
    """Return a chunk's size in ``unit`` (its token count when the unit is tokens)."""
    if unit == "tokens" and chunk.tokens is not None:
        return chunk.tokens
    return chunk.chars


def build_payload(
    doc: Document, sides: tuple[Side, ...], images: tuple[str, ...] = ()
) -> dict[str, JSONValue]:
    """Return the page's data: ``text``, ``pages`` and one entry per chunking.

    A document placed on its pages (a PDF's ``boxes``) adds ``sheets``: each page's width and
    height in points and its image (``images``, ``""`` where there is none).

    Each chunking has ``label``, ``unit``, ``limit``, ``spans`` (``[start, end]`` per chunk in
    UTF-16 units) and ``records``: each chunk's record without its ``text`` (the script slices
    it from the document), except for a chunk whose text is not that slice (SPEC §2).
    """
    at = utf16_offsets(doc.text)
    payload: dict[str, JSONValue] = {
        "text": doc.text,
        "pages": [[page.number, at(page.start)] for page in doc.pages],
        "sides": [_side(doc, side, at) for side in sides],
    }
    if doc.boxes is not None and doc.page_sizes:
        payload["sheets"] = [
            [width, height, images[k] if k < len(images) else ""]
            for k, (width, height) in enumerate(doc.page_sizes)
        ]
    return payload


def _side(doc: Document, side: Side, at: Callable[[int], int]) -> dict[str, JSONValue]:
    unit = side.recipe.capacity.unit
    records: list[JSONValue] = []
    for chunk in side.chunks:
        record = chunk.to_record()
        if chunk.text == doc.text[chunk.start : chunk.end]:
            del record["text"]
        records.append(record)
    spans: list[JSONValue] = [[at(chunk.start), at(chunk.end)] for chunk in side.chunks]
    sizes: list[JSONValue] = [chunk_size(chunk, unit) for chunk in side.chunks]
    return {
        "label": side_label(side),
        "unit": unit,
        "limit": side.recipe.limit,
        "spans": spans,
        "sizes": sizes,
        "records": records,
    }


def script_json(value: JSONValue) -> str:
    """Return ``value`` as JSON that may sit verbatim inside an HTML ``<script>`` element.

    Keys are sorted and the separators fixed, so the same data gives the same bytes.
    """
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
