"""Reading one input: its bytes (capped), then its Document from the right parser (SPEC §1, §6).

An input larger than ``--max-bytes`` is refused before it is read whole; a stream (standard
input, a pipe) is read up to one byte past the cap. The format is forced (``--format``,
``--language``) or detected from the extension, then the first bytes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Final

from ragchunk import parsers
from ragchunk.defaults import DEFAULT_MAX_BYTES
from ragchunk.errors import InputError, LimitExceededError
from ragchunk.inputs import STDIN

if TYPE_CHECKING:
    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest

_READ_BLOCK: Final = 1024 * 1024


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


def parse_bytes(data: bytes, request: ParseRequest, *, format: str | None = None) -> Document:
    """Parse ``data`` with the ``format`` parser, else the one detected for it.

    A language in the request (``--language``) implies the ``code`` format.

    Raises:
        InputError: the data cannot be parsed.
    """
    name = format or (
        "code" if request.language else parsers.detect(request.source, data[:8], data)
    )
    return parsers.get(name).parse(data, request)
