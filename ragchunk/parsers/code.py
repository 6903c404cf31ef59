"""code: the decoded file is the document, verbatim; top-level definitions are its sections.

The language comes from ``--language``, the extension (``.h`` is C unless it holds C++
constructs) or the first line (a ``#!`` line naming an interpreter, or ``<?php``); with none of
them the input fails. The file is parsed with tree-sitter; sections tile the text: one per
definition outside any class or function (namespaces and modules are looked through), kind
``function``, ``class``... with ``symbol`` in metadata, and ``code`` sections for what lies
between. The document's metadata holds ``language``, so every chunk carries it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragchunk.code.languages import NAMESPACE_KINDS, language_for, language_in, names
from ragchunk.errors import InputError
from ragchunk.model import Document, Section
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.code.syntax import Definition, Syntax
    from ragchunk.parsers._spec import ParseRequest


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the decoded source as a Document with a section per top-level definition.

    Raises:
        InputError: the data is binary, or neither ``--language`` nor the extension names a
            language.
    """
    from ragchunk.code.syntax import parse as parse_syntax

    text = decode(data, request)
    language = _language(text, request)
    syntax = parse_syntax(text, language)
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format="code",
        sections=sections(syntax),
        has_lines=True,
        metadata={"language": language},
    )


def _language(text: str, request: ParseRequest) -> str:
    """Return the forced language, else the one the extension names, else the first line's.

    Raises:
        InputError: none of them names a language.
    """
    if request.language is not None:
        return request.language
    language = language_for(request.source)
    if language is None:
        language = language_in(text)
    if language is None:
        what = "standard input" if request.source == "-" else "the file"
        raise InputError(
            f"{request.source}: cannot tell the programming language of {what} (no known "
            f"extension, no #! line); pass --language (one of {', '.join(names())})"
        )
    if request.source.lower().endswith(".h"):
        return _header_language(text)
    return language


def _header_language(text: str) -> str:
    """Return ``cpp`` for a header holding C++ constructs (a class, a namespace...), else ``c``."""
    from ragchunk.code.syntax import is_cpp

    return "cpp" if is_cpp(text) else "c"


def sections(syntax: Syntax) -> tuple[Section, ...]:
    """Return sections tiling the text: top-level definitions and the code between them.

    A definition's section starts at the comments and decorators above it; its headings are its
    path ending with itself (``("Shop.Orders", "Order")``).
    """
    from ragchunk.code.syntax import top_level

    text = syntax.text
    result: list[Section] = []
    position = 0
    namespaces = _Namespaces(syntax.definitions)
    for definition in top_level(syntax):
        if definition.start > position:
            result.append(_gap(namespaces, position, definition.start))
        result.append(
            Section(
                definition.start,
                definition.end,
                kind=definition.kind,
                headings=(*definition.path, definition.name),
                metadata={"symbol": definition.symbol},
            )
        )
        position = definition.end
    if len(text) > position:
        result.append(_gap(namespaces, position, len(text)))
    return tuple(result)


def _gap(namespaces: _Namespaces, start: int, end: int) -> Section:
    """A ``code`` section between definitions, under the namespaces that hold it."""
    innermost = namespaces.innermost(start)
    headings = () if innermost is None else (*innermost.path, innermost.name)
    return Section(start, end, kind="code", headings=headings)


class _Namespaces:
    """The innermost namespace around offsets asked in increasing order, in linear time.

    Namespaces nest, so those open at an offset form a stack (a file of 60 000 definitions
    made a scan of every definition per gap take minutes).
    """

    def __init__(self, definitions: Sequence[Definition]) -> None:
        found = [d for d in definitions if d.kind in NAMESPACE_KINDS]
        self._pending = sorted(found, key=lambda d: (d.node_start, -d.end))
        self._next = 0
        self._open: list[Definition] = []

    def innermost(self, offset: int) -> Definition | None:
        """Return the innermost namespace with ``node_start <= offset < end``, if any."""
        pending = self._pending
        while self._next < len(pending) and pending[self._next].node_start <= offset:
            self._close(pending[self._next].node_start)
            self._open.append(pending[self._next])
            self._next += 1
        self._close(offset)
        return self._open[-1] if self._open else None

    def _close(self, offset: int) -> None:
        while self._open and self._open[-1].end <= offset:
            self._open.pop()


FORMAT = Format(name="code", parse=parse)
