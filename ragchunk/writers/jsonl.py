"""JSONL: one chunk record per line (SPEC §2)."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable
from json.encoder import encode_basestring
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ragchunk.model import Chunk, Metadata

_dumps = json.JSONEncoder(ensure_ascii=False, check_circular=False).encode
_quote = encode_basestring  # the C string encoder behind ensure_ascii=False
_SURROGATE = re.compile("[\ud800-\udfff]")


def escape_surrogates(json_text: str) -> str:
    r"""Return JSON text with lone surrogates written as ``\udcff`` escapes.

    A file name that is not UTF-8 reaches Python with its bad bytes as lone surrogates
    (``os.fsdecode``); raw, they cannot be written as UTF-8, while the escapes are valid JSON
    that reads back as the same string (``os.fsencode`` then gives the name's bytes).
    """
    return _SURROGATE.sub(lambda match: f"\\u{ord(match.group()):04x}", json_text)


@functools.lru_cache(maxsize=256)  # every chunk of a document repeats its doc_id and source
def _quote_name(name: str) -> str:
    quoted = _quote(name)
    return quoted if name.isascii() else escape_surrogates(quoted)


_quote_word = functools.lru_cache(maxsize=64)(_quote)  # strategy names repeat on every chunk


def record_line(chunk: Chunk) -> str:
    """Return ``json.dumps(chunk.to_record(), ensure_ascii=False)`` plus a newline, faster.

    The record's shape is fixed, so only strings and metadata go through the JSON encoder; a
    property test holds this byte-identical to the generic path.
    """
    pages = lines = tokens = extra = ""
    if chunk.page_start is not None:
        pages = f', "page_start": {chunk.page_start}, "page_end": {chunk.page_end}'
    if chunk.line_start is not None:
        lines = f', "line_start": {chunk.line_start}, "line_end": {chunk.line_end}'
    if chunk.tokens is not None:
        tokens = f', "tokens": {chunk.tokens}'
    if chunk.context is not None or chunk.doc_hash is not None or chunk.hash is not None:
        extra = "".join(
            f', "{name}": {_quote(value)}'
            for name, value in (
                ("context", chunk.context),
                ("doc_hash", chunk.doc_hash),
                ("hash", chunk.hash),
            )
            if value is not None
        )
    if chunk.embedding is not None:  # floats as json writes them (repr: shortest round trip)
        extra += f', "embedding": [{", ".join(map(repr, chunk.embedding))}]'
    headings = ", ".join(map(_quote, chunk.headings)) if chunk.headings else ""
    metadata = _dumps(dict(chunk.metadata)) if chunk.metadata else "{}"
    return (
        f'{{"id": "{chunk.id}", "doc_id": {_quote_name(chunk.doc_id)}, '
        f'"source": {_quote_name(chunk.source)}, "index": {chunk.index}, '
        f'"text": {_quote(chunk.text)}, "start": {chunk.start}, "end": {chunk.end}{pages}{lines}, '
        f'"headings": [{headings}], "strategy": {_quote_word(chunk.strategy)}, '
        f'"chars": {chunk.chars}{tokens}, "metadata": {metadata}{extra}}}\n'
    )


def metadata_text(metadata: Metadata) -> str:
    """Return a record's ``metadata`` as the JSON text its JSONL line holds."""
    return _dumps(dict(metadata)) if metadata else "{}"


def lines(chunks: Iterable[Chunk]) -> str:
    """Return the JSONL text of ``chunks``: one object per line, each line ending in a newline."""
    return "".join(map(record_line, chunks))
