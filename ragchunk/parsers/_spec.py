"""What every parser module exposes: ``FORMAT = Format(...)``, and the ``ParseRequest`` it gets.

``ParseOptions`` holds what the user asked of a parse (boilerplate kept, speaker notes...): it
shapes the chunks, so it is part of the plan's recipe (chunk ids and the manifest follow it).
A container format (an mbox) also gives ``Format.members``: the documents inside it, each
parsed by its own format and chunked as a document of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.defaults import (
    CLEAN_PARTS,
    DEFAULT_MAX_BYTES,
    OCR_MODES,
    PARSE_HELP,
    PDF_ENGINES,
    CleanPart,
    OcrMode,
    PdfEngine,
)
from ragchunk.errors import OptionError

if TYPE_CHECKING:
    from ragchunk.model import Document

__all__ = ["CLEAN_PARTS", "OCR_MODES", "PDF_ENGINES", "CleanPart", "OcrMode", "PdfEngine"]
_OCR_LANGUAGE_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz_+")


def _ignore(code: str, message: str) -> None:
    """Drop a warning (the default sink)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseOptions:
    """How parsers read their inputs: part of a recipe, so of chunk ids and the manifest digest.

    Fields are grouped by the issue that brought them and each says which formats read it. Each
    is a configuration key of the same name (dashes for underscores) and an ``-O key=value``;
    most are also flags of ``split`` and ``inspect``.
    """

    # PDF and DOCX (issue 12).
    pdf_engine: PdfEngine = field(default="pdfium", metadata={"help": PARSE_HELP["pdf_engine"]})
    ocr: OcrMode = field(default="off", metadata={"help": PARSE_HELP["ocr"]})
    ocr_language: str = field(default="eng", metadata={"help": PARSE_HELP["ocr_language"]})
    keep: tuple[CleanPart, ...] = field(default=(), metadata={"help": PARSE_HELP["keep"]})
    comments: bool = field(default=False, metadata={"help": PARSE_HELP["comments"]})

    # HTML, PPTX, e-mail, tables (issue 16).
    keep_boilerplate: bool = field(default=False, metadata={"help": PARSE_HELP["keep_boilerplate"]})
    main_content: bool = field(default=False, metadata={"help": PARSE_HELP["main_content"]})
    notes: bool = field(default=False, metadata={"help": PARSE_HELP["notes"]})
    hidden_slides: bool = field(default=False, metadata={"help": PARSE_HELP["hidden_slides"]})
    header: bool | None = field(default=None, metadata={"help": PARSE_HELP["header"]})

    def __post_init__(self) -> None:
        if self.pdf_engine not in PDF_ENGINES:
            listed = ", ".join(PDF_ENGINES)
            raise OptionError("--pdf-engine", f"must be one of {listed} (got {self.pdf_engine!r})")
        if self.ocr not in OCR_MODES:
            raise OptionError("--ocr", f"must be one of {', '.join(OCR_MODES)} (got {self.ocr!r})")
        if not self.ocr_language or not set(self.ocr_language) <= _OCR_LANGUAGE_CHARS:
            raise OptionError(
                "--ocr-language",
                f"must be Tesseract language names joined with + (got {self.ocr_language!r})",
            )
        unknown = [part for part in self.keep if part not in CLEAN_PARTS]
        if unknown:
            listed = ", ".join(CLEAN_PARTS)
            raise OptionError("--keep", f"must be among {listed} (got {unknown[0]!r})")
        # Sorted and without repeats: the same choice always gives the same ids.
        object.__setattr__(self, "keep", tuple(sorted(set(self.keep))))

    def cleans(self, part: CleanPart) -> bool:
        """Return whether PDF cleaning does ``part`` (not turned off with ``--keep``)."""
        return part not in self.keep


DEFAULT_PARSE: Final = ParseOptions()

PARSE_OPTION_NAMES: Final = tuple(f.name for f in dataclasses.fields(ParseOptions))
"""The ``-O`` keys that set ``ParseOptions`` rather than the strategy's options."""


@dataclass(frozen=True, slots=True, kw_only=True)
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
    """

    source: str = "-"
    doc_id: str = "-"
    password: str | None = None
    language: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    options: ParseOptions = DEFAULT_PARSE
    depth: int = 0
    warn: Callable[[str, str], None] = _ignore


MAX_DEPTH = 8
"""The deepest an input may sit inside others (messages attached to messages)."""


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
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
