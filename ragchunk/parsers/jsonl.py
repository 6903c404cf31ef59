"""jsonl: JSON Lines, one JSON value per line, verbatim, each line's members its sections.

Each line is checked as JSON (an error names the file's line and the column); blank lines are
allowed. A record's key path starts with ``line N`` (its 1-based line), then its keys and list
indices as in ``json``; every record starts a section.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from ragchunk.parsers._decode import decode
from ragchunk.parsers._keypaths import document, sections
from ragchunk.parsers._spec import Format
from ragchunk.parsers.json import check, members

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Document
    from ragchunk.parsers._keypaths import Member
    from ragchunk.parsers._spec import ParseRequest

_LINE: Final = re.compile(r"[^\n]*\n?")


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the JSON Lines file verbatim with a ``value`` section per member.

    Raises:
        InputError: binary data.
        CorruptDocumentError: a line that is not valid JSON (the message names it).
        LimitExceededError: a line nested too deeply to read.
    """
    text = decode(data, request)
    return document(text, request, "jsonl", sections(text, _members(text, request)), {})


def _members(text: str, request: ParseRequest) -> Iterator[Member]:
    for number, match in enumerate(_LINE.finditer(text), start=1):
        start, end = match.span()
        if start == end or not text[start:end].strip():
            continue
        check(text[start:end].rstrip("\r\n"), request.source, number - 1)
        yield from members(text, start, end, (f"line {number}",), headings=False)


FORMAT = Format(name="jsonl", parse=parse)
