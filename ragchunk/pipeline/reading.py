"""Reading one input: its bytes (capped), then its Document from the right parser (SPEC §1, §6).

An input larger than ``--max-bytes`` is refused before it is read whole; a stream (standard
input, a pipe) is read up to one byte past the cap. The format is forced (``--format``,
``--language``) or detected from the extension, then the first bytes.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final

from ragchunk import parsers
from ragchunk.defaults import DEFAULT_MAX_BYTES, STDIN
from ragchunk.errors import InputError, LimitExceededError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Document
    from ragchunk.parsers._spec import Member, ParseRequest

_READ_BLOCK: Final = 1024 * 1024
_SNIFF: Final = 1024
"""The first bytes format detection looks at."""


def read_input(
    source: str, max_bytes: int = DEFAULT_MAX_BYTES, *, path: str | None = None
) -> bytes:
    """Return the bytes of a file, or of standard input for ``-``, refusing more than a cap.

    A regular file's size is checked before reading; anything else (standard input, a pipe,
    a device) is read up to one byte past the cap, so an endless stream cannot fill memory.
    ``path``, when given, is where the file is read (an absolute path, for a process working
    in another directory); messages still name ``source``.

    Raises:
        InputError: the file cannot be read.
        LimitExceededError: it holds more than ``max_bytes`` bytes.
    """
    if source == STDIN and path is None:
        return _read_capped(sys.stdin.buffer, source, max_bytes)
    try:
        with Path(source if path is None else path).open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise _too_large(source, max_bytes, size)
            return _read_capped(handle, source, max_bytes)
    except IsADirectoryError:
        raise InputError(f"{source}: is a directory") from None
    except OSError as exc:
        raise InputError(f"{source}: cannot read ({exc.strerror or exc})") from None


def check_size(data: bytes, source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """Return ``data``, the bytes of ``source`` read elsewhere, unless they exceed the cap.

    Raises:
        LimitExceededError: ``data`` holds more than ``max_bytes`` bytes.
    """
    if len(data) > max_bytes:
        raise _too_large(source, max_bytes, len(data))
    return data


def _read_capped(handle: BinaryIO, source: str, max_bytes: int) -> bytes:
    blocks: list[bytes] = []
    total = 0
    while total <= max_bytes and (block := handle.read(min(_READ_BLOCK, max_bytes + 1 - total))):
        blocks.append(block)
        total += len(block)
    if total > max_bytes:
        raise _too_large(source, max_bytes)
    return b"".join(blocks)


def _too_large(source: str, max_bytes: int, size: int | None = None) -> LimitExceededError:
    if size is None:
        return LimitExceededError(f"{source}: refused: more than --max-bytes {max_bytes} bytes")
    return LimitExceededError(f"{source}: refused: {size} bytes, more than --max-bytes {max_bytes}")


def choose_format(data: bytes, request: ParseRequest, *, format: str | None = None) -> str:
    """Return the name of the format that parses ``data``: ``format``, else the detected one.

    A language in the request (``--language``) implies the ``code`` format.
    """
    if format:
        return format
    if request.language:
        return "code"
    return parsers.detect(request.source, data[:_SNIFF], data)


def parse_bytes(data: bytes, request: ParseRequest, *, format: str | None = None) -> Document:
    """Parse ``data`` with the ``format`` parser, else the one detected for it.

    A container (an mbox) must hold a single document here; ``parse_documents`` reads all.

    Raises:
        InputError: the data cannot be parsed.
    """
    return parsers.get(choose_format(data, request, format=format)).parse(data, request)


def parse_documents(
    data: bytes, request: ParseRequest, *, format: str | None = None
) -> Iterator[Document | InputError]:
    """Yield every document of ``data``: one, or each member of a container (an mbox).

    A member that cannot be parsed is yielded as its error, and the next one is read; the
    documents of members keep the container's path as ``source`` and get ``doc_id`` + the
    member's name (``list.mbox#3``).

    Raises:
        InputError: the input (or the container itself) cannot be parsed.
    """
    fmt = parsers.get(choose_format(data, request, format=format))
    if fmt.members is None:
        yield fmt.parse(data, request)
        return
    for member in fmt.members(data, request):
        try:
            yield parse_member(member, request)
        except InputError as exc:
            yield exc


def parse_member(member: Member, request: ParseRequest) -> Document:
    """Parse one member of a container with its own format.

    Its request's ``source`` names it for messages (``list.mbox#3``); its document keeps the
    container's path as ``source``, gets ``doc_id`` + the member's name, and the container's
    facts about it in its metadata.

    Raises:
        InputError: the member cannot be parsed.
    """
    named = replace(
        request, source=request.source + member.name, doc_id=request.doc_id + member.name
    )
    doc = parsers.get(member.format).parse(member.data, named)
    return replace(doc, source=request.source, metadata={**member.metadata, **doc.metadata})


def check_not_empty(doc: Document) -> None:
    """Fail an input whose parser found no text in it (SPEC §6: never a silent empty success).

    Only extracted text counts (PDF, DOCX...): a text, Markdown or code file is its own text,
    so an empty one is empty on purpose (an ``__init__.py``) and gives no chunk, no error.

    Raises:
        InputError: the document has no text; ``--allow-empty`` accepts it.
    """
    if doc.has_lines or doc.text.strip():
        return
    hint = ""
    if doc.format == "pdf" and not doc.extraction.get("ocr_pages"):
        hint = "; its pages have no text layer (a scan? --ocr auto recognises it)"
    raise InputError(f"{doc.source}: no text found{hint}; --allow-empty accepts it")
