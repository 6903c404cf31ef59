"""What every parser module exposes: ``FORMAT = Format(...)``, and the ``ParseRequest`` it gets.

``ParseOptions`` (declared in ``ragchunk.settings.parsing``, the parsers' options spec) holds
what the user asked of a parse (boilerplate kept, speaker notes...): it shapes the chunks, so it
is part of the plan's recipe (chunk ids and the manifest follow it).
A container format (an mbox) also gives ``Format.members``: the documents inside it, each
parsed by its own format and chunked as a document of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ragchunk.defaults import (
    CLEAN_PARTS,
    DEFAULT_MAX_BYTES,
    OCR_MODES,
    PDF_ENGINES,
    CleanPart,
    OcrMode,
    PdfEngine,
)
from ragchunk.parsers._budget import TextBudget
from ragchunk.settings.parsing import DEFAULT_PARSE, PARSE_OPTION_NAMES, ParseOptions

if TYPE_CHECKING:
    from ragchunk.model import Document

__all__ = [
    "CLEAN_PARTS",
    "DEFAULT_PARSE",
    "OCR_MODES",
    "PARSE_OPTION_NAMES",
    "PDF_ENGINES",
    "CleanPart",
    "OcrMode",
    "ParseOptions",
    "PdfEngine",
]


def _ignore(code: str, message: str) -> None:
    """Drop a warning (the default sink)."""


@dataclass(frozen=True, slots=True, kw_only=True, eq=False, repr=False)
class ParseRequest:
    """What a parser knows besides the bytes.

    Attributes:
        source: the path as the user gave it (``-`` for standard input).
        doc_id: the document id recorded in every chunk.
        password: a PDF password from ``--password``.
        language: a code language forced with ``--language``.
        max_bytes: the cap (``--max-bytes``) on decompressed parts: a DOCX's zip members in
            total, a PDF's streams each and its page contents and text in total, an e-mail's
            attachments each.
        options: what the user asked of the parse (``ParseOptions``).
        depth: how many containers hold this input (an attachment of an e-mail is 1 deep);
            parsers of nesting formats refuse to go past ``MAX_DEPTH``.
        warn: a sink for warnings, ``warn(code, message)``.
        budget: the characters the parse of the whole input may still build (``--max-text``),
            shared by the copies of this request an input's parts and attachments are read
            with (``_budget``).
    """

    source: str = "-"
    doc_id: str = "-"
    password: str | None = None
    language: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    options: ParseOptions = DEFAULT_PARSE
    depth: int = 0
    warn: Callable[[str, str], None] = _ignore
    budget: TextBudget = field(default_factory=TextBudget, compare=False, repr=False)

    def spend_text(self, count: int) -> None:
        """Count ``count`` characters of built text against the input's budget.

        Raises:
            TextBudgetError: the input's text passes ``--max-text``.
        """
        self.budget.spend(count, self.source)


MAX_DEPTH = 8
"""The deepest an input may sit inside others (messages attached to messages)."""


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Member:
    """One document inside a container input (a message of an mbox).

    Attributes:
        name: what is appended to the container's ``doc_id`` to name it (``#3``).
        data: its bytes.
        format: the format that parses it.
        metadata: facts the container knows of it (its position), merged into its document's.
    """

    name: str
    data: bytes
    format: str
    metadata: dict[str, str | int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Format:
    """An input format: its name and the function that parses it.

    Attributes:
        name: the single lowercase word users pass to ``--format``.
        parse: ``parse(data, request)`` returns the Document; raises ``InputError`` subclasses.
            A container's ``parse`` reads an input holding a single member.
        members: for a container format, ``members(data, request)`` yields the documents it
            holds, in order; None for a format whose input is one document.
    """

    name: str
    parse: Callable[[bytes, ParseRequest], Document]
    members: Callable[[bytes, ParseRequest], Iterator[Member]] | None = None
