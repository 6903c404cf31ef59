r"""JSONL: one chunk record per line (SPEC §2), in one exact byte format.

Each line is the record as compact JSON, UTF-8, ending in ``\n``: no space after ``,`` or
``:``; fields in the order of SPEC §2; non-ASCII characters written as themselves; ``"`` and
``\`` escaped with a backslash, control characters as ``\n``, ``\t``, ``\r``, ``\b``,
``\f`` or ``\u00XX``. orjson writes it. The standard library writes the same bytes where
orjson cannot be imported, or cannot encode a record: a lone surrogate (a file name that is not
UTF-8, which reaches Python with its bad bytes as surrogates) is then written as a ``\udcXX``
escape, and an integer past 64 bits as its digits. (Floats in metadata are the one place the two
differ: ``1e-05`` against orjson's ``0.00001``.) docs/output.md documents the format.

orjson is handed one record at a time, and only a record of at most ``ORJSON_MOST_CHARS``
characters of text, context and metadata strings: orjson crashes the process (SIGSEGV) when
an allocation fails, where the standard library raises ``MemoryError``, which fails the one
input. A record longer than ``MAX_RECORD_BYTES`` encoded is refused (``LimitExceededError``).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from ragchunk.errors import LimitExceededError
from ragchunk.model import BOX_FIELDS
from ragchunk.sinks._spec import SinkSpec

if TYPE_CHECKING:
    from collections.abc import Callable

    from ragchunk.model import Chunk, Metadata
    from ragchunk.pipeline.results import FileResult
    from ragchunk.sinks._spec import Destination

_SURROGATE: Final = "[\ud800-\udfff]"
"""A lone surrogate (a pattern string: ``re`` compiles it when first used, not at start-up)."""

MAX_RECORD_BYTES: Final = 64 * 1024 * 1024
"""The longest JSONL record written, in bytes; an input with a longer one fails."""
ORJSON_MOST_CHARS: Final = 1024 * 1024
"""The most characters of strings in a record handed to orjson; longer ones go to json."""


def escape_surrogates(json_text: str) -> str:
    r"""Return JSON text with lone surrogates written as ``\udcff`` escapes.

    A file name that is not UTF-8 reaches Python with its bad bytes as lone surrogates
    (``os.fsdecode``); raw, they cannot be written as UTF-8, while the escapes are valid JSON
    that reads back as the same string (``os.fsencode`` then gives the name's bytes).
    """
    return re.sub(_SURROGATE, lambda match: f"\\u{ord(match.group()):04x}", json_text)


def _as_dict(value: object) -> dict[str, Any]:
    # Metadata may hold read-only mappings (MappingProxyType), which orjson does not know.
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


_std_dumps = json.JSONEncoder(
    ensure_ascii=False, check_circular=False, separators=(",", ":"), default=_as_dict
).encode


def _std_line(record: dict[str, Any]) -> bytes:
    """Return the line of ``record`` written by the standard library: the fallback path."""
    return (escape_surrogates(_std_dumps(record)) + "\n").encode("utf-8")


def _make_line() -> Callable[[dict[str, Any]], bytes]:
    try:
        import orjson
    except ImportError:  # a platform without an orjson wheel: the same bytes, slower
        return _std_line
    dumps, options, error = orjson.dumps, orjson.OPT_APPEND_NEWLINE, orjson.JSONEncodeError

    def line(record: dict[str, Any]) -> bytes:
        try:
            return dumps(record, default=_as_dict, option=options)
        except error:  # a lone surrogate, an integer past 64 bits: the standard library can
            return _std_line(record)

    return line


_fast_line = _make_line()


def record_bytes_of(record: dict[str, Any]) -> bytes:
    """Return the JSONL line (with its newline) of one record dictionary, as UTF-8 bytes.

    A record holding more than ``ORJSON_MOST_CHARS`` characters is written by the standard
    library (see the module docstring).

    Raises:
        MemoryError: there is no memory for it.
    """
    if _size(record, 4) > ORJSON_MOST_CHARS:
        return _std_line(record)
    return _fast_line(record)


def _record(chunk: Chunk) -> dict[str, Any]:
    """Return ``chunk.to_record()``, faster: no copies (the encoders take tuples and mappings)."""
    record: dict[str, Any] = {
        "id": chunk.id,
        "doc_id": chunk.doc_id,
        "source": chunk.source,
        "index": chunk.index,
        "text": chunk.text,
        "start": chunk.start,
        "end": chunk.end,
    }
    if chunk.page_start is not None:
        record["page_start"] = chunk.page_start
        record["page_end"] = chunk.page_end
    if chunk.timestamp_start is not None:
        record["timestamp_start"] = chunk.timestamp_start
        record["timestamp_end"] = chunk.timestamp_end
    if chunk.line_start is not None:
        record["line_start"] = chunk.line_start
        record["line_end"] = chunk.line_end
    record["headings"] = chunk.headings
    record["strategy"] = chunk.strategy
    record["chars"] = chunk.chars
    if chunk.tokens is not None:
        record["tokens"] = chunk.tokens
    record["metadata"] = chunk.metadata or {}
    if chunk.boxes is not None:
        record["boxes"] = [dict(zip(BOX_FIELDS, box, strict=True)) for box in chunk.boxes]
    if chunk.parent_id is not None:
        record["parent_id"] = chunk.parent_id
    if chunk.context is not None:
        record["context"] = chunk.context
    if chunk.doc_hash is not None:
        record["doc_hash"] = chunk.doc_hash
    if chunk.hash is not None:
        record["hash"] = chunk.hash
    if chunk.embedding is not None:
        record["embedding"] = chunk.embedding
    return record


def record_bytes(chunk: Chunk) -> bytes:
    """Return the JSONL line of one chunk, newline included, as UTF-8 bytes.

    Raises:
        LimitExceededError: the line is longer than ``MAX_RECORD_BYTES``.
        MemoryError: there is no memory for it.
    """
    record = _record(chunk)
    if _chars(chunk) > ORJSON_MOST_CHARS:
        line = _std_line(record)
        if len(line) > MAX_RECORD_BYTES:
            raise LimitExceededError(
                f"{chunk.source}: refused: chunk {chunk.index} makes a JSONL record of "
                f"{len(line)} bytes (limit {MAX_RECORD_BYTES})"
            )
        return line
    return _fast_line(record)


def _chars(chunk: Chunk) -> int:
    """Return about how many characters ``chunk``'s strings hold: text, context, metadata."""
    total = len(chunk.text) + len(chunk.context or "")
    return total + _size(chunk.metadata, 4) if chunk.metadata else total


def _size(value: object, depth: int) -> int:
    if isinstance(value, str):
        return len(value)
    if depth and isinstance(value, Mapping):
        return sum(len(k) + _size(v, depth - 1) for k, v in value.items())
    if depth and isinstance(value, list | tuple):
        return sum(_size(v, depth - 1) for v in value)
    return len(value) * 64 if isinstance(value, list | tuple | Mapping) else 8


def encode(chunks: Iterable[Chunk]) -> bytes:
    """Return the JSONL bytes of ``chunks``: one object per line, each line ending in a newline.

    Raises:
        LimitExceededError: a record is longer than ``MAX_RECORD_BYTES``.
        MemoryError: there is no memory for them.
    """
    line = record_bytes
    return b"".join([line(chunk) for chunk in chunks])


def lines(chunks: Iterable[Chunk]) -> str:
    """Return the JSONL text of ``chunks``: ``encode`` decoded from UTF-8."""
    return encode(chunks).decode("utf-8")


def metadata_text(metadata: Metadata) -> str:
    """Return a record's ``metadata`` as the JSON text its JSONL line holds."""
    return record_bytes_of(dict(metadata))[:-1].decode("utf-8") if metadata else "{}"


class JsonlSink:
    """The JSONL sink: each input's rendered lines, as they are, to one text stream."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, result: FileResult) -> None:
        """Write the JSONL pieces the run rendered for one input (``SINK.render``)."""
        pieces = result.rendered or ()
        buffer = getattr(self._stream, "buffer", None)
        if buffer is None:  # a text-only stream (io.StringIO)
            self._stream.writelines(piece.decode("utf-8") for piece in pieces)
            return
        self._stream.flush()  # what the text layer holds goes first
        buffer.writelines(pieces)


@contextlib.contextmanager
def open_sink(to: Destination) -> Iterator[JsonlSink]:
    """Yield the JSONL sink of a stream, or of a file written atomically (``atomic``)."""
    if not isinstance(to, str):
        yield JsonlSink(to)
        return
    from ragchunk.sinks.atomic import atomic_writer

    with atomic_writer(Path(to)) as handle:
        yield JsonlSink(handle)


SINK = SinkSpec(
    name="jsonl",
    summary="One JSON record per line (SPEC §2), to standard output or -o.",
    open=open_sink,
    render=encode,
)
