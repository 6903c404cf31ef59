"""mbox: a mail folder, one document per message (``doc_id`` + ``#N``, N counting from 1).

Messages start at lines beginning ``From `` (the mbox separator); a body line that was escaped
as ``>From `` (mboxrd, mboxo) reads ``From `` again. Each message is parsed by the e-mail
parser as a document of its own, with ``metadata.message`` its number; one that fails is named
and the others are still chunked. A file that does not begin with a ``From `` line is not an
mbox.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError, InputError
from ragchunk.parsers._spec import Format, Member

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest

_SEPARATOR: Final = re.compile(rb"^From [^\r\n]*\r?\n", re.MULTILINE)
_ESCAPED: Final = re.compile(rb"^>(>*From )", re.MULTILINE)


def members(data: bytes, request: ParseRequest) -> Iterator[Member]:
    """Yield the messages of an mbox in order, unescaped, as e-mail members ``#1``, ``#2``...

    Raises:
        CorruptDocumentError: the data does not begin with a ``From`` line.
    """
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data.strip():
        return
    if not data.startswith(b"From "):
        raise CorruptDocumentError(f"{request.source}: not an mbox: it does not begin with 'From '")
    starts = [match.end() for match in _SEPARATOR.finditer(data)]
    ends = [*[match.start() for match in _SEPARATOR.finditer(data)][1:], len(data)]
    for number, (start, end) in enumerate(zip(starts, ends, strict=True), start=1):
        body = _ESCAPED.sub(rb"\1", data[start:end])
        yield Member(f"#{number}", body, "email", {"message": number})


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the document of an mbox holding one message.

    Raises:
        InputError: it holds no message or several (read those with ``members``).
    """
    from ragchunk.parsers.email import parse as parse_message

    found = list(members(data, request))
    if len(found) != 1:
        raise InputError(
            f"{request.source}: an mbox of {len(found)} messages is not one document "
            "(ragchunk.pipeline.reading.parse_documents reads each)"
        )
    return parse_message(found[0].data, request)


FORMAT = Format(name="mbox", parse=parse, members=members)
