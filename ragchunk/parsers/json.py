"""json: a JSON file verbatim, cut between its members (``_keypaths``).

The standard library's parser checks the file (an error names its line and column) and a
small scanner finds where each key and list item starts, which the standard library does not
tell: the key path of a chunk is where it starts (``servers › 0 › ports``; list items by
their 0-based index), a top-level key holding an object or array is a heading, and no chunk
of a structure-aware strategy cuts a string or number in two unless it alone is larger than
the size.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.parsers._decode import decode
from ragchunk.parsers._keypaths import Member, document, key, sections
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest

# One token after optional whitespace: a string, a structural character, or a bare scalar.
_TOKEN: Final = re.compile(
    r'[ \t\r\n]*(?:("[^"\\]*(?:\\.[^"\\]*)*")|([{}\[\],:])|([^\s{}\[\],:"]+))', re.S
)


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the JSON file verbatim with a ``value`` section per member.

    Raises:
        InputError: binary data.
        CorruptDocumentError: not valid JSON (the message names line and column).
        LimitExceededError: nested too deeply to read.
    """
    text = decode(data, request)
    if text.strip():
        check(text, request.source)
    found = sections(text, members(text, 0, len(text), ()))
    return document(text, request, "json", found, {})


def check(text: str, source: str, line: int = 0) -> None:
    """Raise the error naming ``source``'s line and column unless ``text`` is valid JSON.

    ``line`` is added to the line numbers (JSONL: the line ``text`` is).
    """
    try:
        json.loads(text)
    except json.JSONDecodeError as exc:
        raise CorruptDocumentError(
            f"{source}: invalid JSON at line {exc.lineno + line}:{exc.colno}: {exc.msg}"
        ) from None
    except RecursionError:
        raise LimitExceededError(f"{source}: JSON nested too deeply to read") from None


class _Frame:
    __slots__ = ("count", "expects_key", "is_object", "path")

    def __init__(self, path: tuple[str, ...], *, is_object: bool) -> None:
        self.path = path
        self.is_object = is_object
        self.count = 0
        self.expects_key = is_object


def members(
    text: str, start: int, end: int, path: tuple[str, ...], *, headings: bool = True
) -> Iterator[Member]:
    """Yield the members of the valid JSON value in ``text[start:end]``, the root first.

    ``path`` is the root's key path; the root is never a first member. With ``headings``, a
    key of the root object whose value is an object or an array is a heading member.
    """
    stack: list[_Frame] = []
    pending: tuple[int, str, bool] | None = None  # an object's key: start, name, first
    for match in _TOKEN.finditer(text, start, end):
        string, mark = match.group(1, 2)
        if mark == ",":
            if stack[-1].is_object:
                stack[-1].expects_key = True
            continue
        if mark == ":":
            continue
        if mark == "}" or mark == "]":
            stack.pop()
            continue
        at = match.start(1 if string else 2 if mark else 3)
        top = stack[-1] if stack else None
        if string is not None and top is not None and top.expects_key:
            name = json.loads(string) if "\\" in string else string[1:-1]
            pending = (at, key(name), top.count == 0)
            top.count += 1
            top.expects_key = False
            continue
        opens = mark in ("{", "[")
        if top is None:
            own, parent, first, begin = path, path, False, at
        elif top.is_object and pending is not None:
            begin, name, first = pending
            own, parent = (*top.path, name), top.path
        else:
            begin, own, parent, first = at, (*top.path, str(top.count)), top.path, top.count == 0
            top.count += 1
        heading = headings and opens and len(stack) == 1 and stack[0].is_object
        yield Member(begin, own if opens else parent, first, heading)
        if opens:
            stack.append(_Frame(own, is_object=mark == "{"))


FORMAT = Format(name="json", parse=parse)
