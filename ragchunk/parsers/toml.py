"""toml: a TOML file verbatim, cut between its tables and keys (``_keypaths``).

``tomllib`` checks the file (an error names its line and column); a line scanner then finds
each table header and each key: a table's path is its header (``tool › ruff``; an array of
tables counts its entries, ``tool › gauges › site › 1``), a key whose value is an array or
inline table adds its own path, a dotted key its leading parts. Multi-line strings and arrays
are skipped whole, so nothing inside them is read as a key; comment lines right above a key or
table go with it. A table's header line is a ``heading`` section: a chunk starts there.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers._decode import decode
from ragchunk.parsers._keypaths import Member, document, key, sections
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest

_PART: Final = re.compile(
    r"""[ \t]*(?:([A-Za-z0-9_-]+)|"((?:[^"\\]|\\.)*)"|'([^']*)')[ \t]*(\.?)"""
)
_WHERE: Final = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_CLOSERS: Final = {'"""': re.compile(r'(?<!\\)(?:\\\\)*"""'), "'''": re.compile(r"'''")}


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the TOML file verbatim with a ``value`` section per table and key.

    Raises:
        InputError: binary data.
        CorruptDocumentError: not valid TOML (the message names line and column).
    """
    import tomllib

    text = decode(data, request)
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        found = _WHERE.search(message)
        where = f" at line {found.group(1)}:{found.group(2)}" if found else ""
        reason = message[: found.start()] if found else message
        raise CorruptDocumentError(f"{request.source}: invalid TOML{where}: {reason}") from None
    return document(text, request, "toml", sections(text, _members(text), comment="#"), {})


def _keys(text: str, at: int) -> tuple[tuple[str, ...], int]:
    """Return the parts of the (dotted) key at ``at`` and where the text after it starts."""
    parts: list[str] = []
    while True:
        match = _PART.match(text, at)
        if match is None:
            return tuple(parts), at
        bare, basic, literal, dot = match.groups()
        parts.append(key(bare if bare is not None else basic if basic is not None else literal))
        at = match.end()
        if not dot:
            return tuple(parts), at


def _members(text: str) -> Iterator[Member]:
    table: tuple[str, ...] = ()
    entries: dict[tuple[str, ...], int] = {}
    first = False  # the first key of the file is in the root's section anyway
    at = 0
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        lead = at + len(text[at:end]) - len(text[at:end].lstrip())
        mark = text[lead : lead + 2]
        if lead >= end or mark[:1] == "#":
            at = end + 1
            continue
        if mark[:1] == "[":
            double = mark == "[["
            parts, _ = _keys(text, lead + (2 if double else 1))
            if double:
                entries[parts] = entries.get(parts, -1) + 1
                parts = (*parts, str(entries[parts]))
            table = parts
            yield Member(lead, table, heading=True)
            first = True
            at = end + 1
            continue
        parts, after = _keys(text, lead)
        value = after + 1 + len(text[after + 1 : end]) - len(text[after + 1 : end].lstrip())
        container = text[value : value + 1] in ("[", "{")
        yield Member(lead, (*table, *parts) if container else (*table, *parts[:-1]), first)
        first = False
        at = _value_end(text, value) + 1


def _value_end(text: str, at: int) -> int:
    """Return where the value starting at ``at`` ends: the line feed after it (or the end)."""
    depth = 0
    while at < len(text):
        char = text[at]
        triple = text[at : at + 3]
        if triple in _CLOSERS:
            closer = _CLOSERS[triple].search(text, at + 3)
            at = len(text) if closer is None else closer.end()
            while at < len(text) and text[at] == triple[0]:  # up to two quotes end the string
                at += 1
            continue
        if char in "\"'":
            at = _string_end(text, at)
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == "#":
            found = text.find("\n", at)
            at = len(text) if found < 0 else found
            continue
        elif char == "\n" and depth <= 0:
            return at
        at += 1
    return at


def _string_end(text: str, at: int) -> int:
    """Return the index of the quote closing the one-line string opened at ``at``."""
    quote = text[at]
    at += 1
    while at < len(text) and text[at] != quote and text[at] != "\n":
        at += 2 if quote == '"' and text[at] == "\\" else 1
    return at


FORMAT = Format(name="toml", parse=parse)
