"""The data model: Document, Section, Page, Span and Chunk, and the output contract's constants.

All offsets are half-open ``[start, end)`` code-point indices into ``Document.text``, always
absolute. Line and page numbers are 1-based (SPEC §2).
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final, TypeAlias

JSONValue: TypeAlias = str | int | float | bool | list["JSONValue"] | dict[str, "JSONValue"] | None
Metadata: TypeAlias = Mapping[str, JSONValue]

PAGE_SEPARATOR: Final = "\n\n"
"""Joins the text of consecutive pages of a paged format (PDF) in ``Document.text``."""

TOP_LEVEL_SYMBOL: Final = "<top-level>"
"""The symbol of a code chunk that holds no definition and lies in none (imports, scripts)."""

EMPTY_METADATA: Final[Metadata] = MappingProxyType({})
"""The shared, read-only metadata of a record that has none."""


def _no_metadata() -> Metadata:
    return EMPTY_METADATA


@dataclass(frozen=True, slots=True)
class Page:
    """One page of a paged document and its span in ``Document.text``."""

    number: int
    start: int
    end: int


Box: TypeAlias = tuple[int, float, float, float, float]
"""A rectangle on a page: ``(page, x0, y0, x1, y1)``, 1-based page, points from its top-left."""

BOX_FIELDS: Final = ("page", "x0", "y0", "x1", "y1")
"""A ``Box``'s names: the keys of each of a record's ``boxes`` (JSONL objects, Parquet structs)."""

Run: TypeAlias = tuple[int, int, int, float, float, float, float, bool]
"""One line run of a paged document's text: ``(start, end, page, x0, y0, x1, y1, vertical)``."""


@dataclass(frozen=True, slots=True)
class Boxes:
    """Where a paged document's text is printed (PDF): one rectangle per line run.

    Attributes:
        runs: the line runs, sorted by ``start`` and not overlapping: the characters
            ``[start, end)`` of ``Document.text`` printed on one line of page ``page``, inside
            the rectangle ``(x0, y0, x1, y1)`` (points from the page's top-left corner);
            ``vertical`` when the line runs down the page (a rotated page).
        lows, highs: per character of ``Document.text``, where its glyph starts and ends along
            its run's line (x, or y when vertical), NaN for a character with no glyph (spaces,
            text between runs): a run cut by a chunk's edge is narrowed to the characters kept.
    """

    runs: tuple[Run, ...]
    lows: array[float]
    highs: array[float]


@dataclass(frozen=True, slots=True)
class Cue:
    """One cue of a transcript or subtitles (WebVTT, SubRip) and its span in ``Document.text``.

    Attributes:
        start: first code point of the cue's text.
        end: one past its last code point.
        time_start: when the cue is shown, in seconds from the start of the media.
        time_end: when it is hidden, in seconds.
        speakers: the voices that speak in it (WebVTT ``<v Name>`` tags), in order.
    """

    start: int
    end: int
    time_start: float
    time_end: float
    speakers: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Section:
    """A structural block of a document: a heading, a paragraph, a table, a definition...

    Attributes:
        start: first code point of the block in ``Document.text``.
        end: one past its last code point.
        kind: ``heading``, ``prose``, ``list``, ``quote``, ``table``, ``code``, ``html``,
            ``front_matter`` or a format-specific kind (``function``, ``class``...).
        headings: the heading path the block sits under; a heading's own path ends with itself.
        level: the heading level (1 = top) for ``kind == "heading"``, else 0.
        metadata: format-specific facts (a code block's language, a definition's symbol...).
        header: a table's header rows (the header row and the delimiter row), which pieces
            of the table repeat in their ``context``; None for a table without one.
        parts: the spans a block may be split between and never inside: a table's body
            rows, a list's items; empty for other kinds.
    """

    start: int
    end: int
    kind: str
    headings: tuple[str, ...] = ()
    level: int = 0
    metadata: Metadata = field(default_factory=_no_metadata)
    header: tuple[int, int] | None = None
    parts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed input: its full text plus the structure found in it.

    Attributes:
        text: the full text every offset indexes into. For text, Markdown and code this is the
            decoded file, verbatim; for PDF, the pages joined with ``PAGE_SEPARATOR``.
        source: the path as the user gave it (``-`` for standard input).
        doc_id: the path relative to the input root (``-`` for standard input).
        format: the parser's name (``text``, ``markdown``, ``pdf``, ``docx``, ``code``).
        sections: structural blocks in document order.
        pages: the page map, empty when the format has no pages.
        has_lines: whether line numbers mean something (text, Markdown, code).
        metadata: document-level facts copied into every chunk (title, author...).
        wraps: sorted offsets of the line feeds that only join a paragraph's lines (PDF: a
            page break inside a paragraph lists both of its line feeds, and the line after a
            heading; a wrap inside a paragraph is a space, or with ``--keep linebreaks`` a
            listed line feed): chunk boundaries rank them as spaces, below sentence ends.
        extraction: how the text was read, never copied into chunks: what the parser left
            out (a PDF's running headers per page, a DOCX's comments), what it joined or
            replaced, and the engines it used; ``ragchunk inspect`` shows it (SPEC §3.2).
        boxes: where the text is printed (PDF read by PDFium), or None.
        page_sizes: each page's ``(width, height)`` in points (PDF), empty without pages.
    """

    text: str
    source: str = "-"
    doc_id: str = "-"
    format: str = "text"
    sections: tuple[Section, ...] = ()
    pages: tuple[Page, ...] = ()
    has_lines: bool = True
    metadata: Metadata = field(default_factory=_no_metadata)
    wraps: tuple[int, ...] = ()
    extraction: Metadata = field(default_factory=_no_metadata)
    cues: tuple[Cue, ...] = ()
    boxes: Boxes | None = None
    page_sizes: tuple[tuple[float, float], ...] = ()


@dataclass(frozen=True, slots=True)
class Dropped:
    """A span of ``Document.text`` that a template leaves out of every chunk on purpose.

    SPEC §3.2: only templates may drop text (a book's index, a paper's references), and they
    report each span so the run's statistics name it and ``--check`` verifies that exactly
    these spans are missing.

    Attributes:
        start: absolute start offset.
        end: absolute end offset (exclusive).
        reason: what the span is (``table of contents``, ``index``, ``references``...).
    """

    start: int
    end: int
    reason: str


# Not frozen (see Chunk below): strategies build one per chunk on the hot path. Read-only all
# the same: nothing changes a span once a strategy has returned it.
@dataclass(slots=True)
class Span:
    """What a strategy returns: a half-open range of ``Document.text`` plus what it knows of it.

    Attributes:
        start: absolute start offset.
        end: absolute end offset (exclusive).
        headings: the heading path, or None to derive it from the document's sections.
        metadata: strategy-specific keys merged into the chunk's metadata.
        prefix: text the chunk's ``context`` repeats before its own text (a table's header
            rows, a bold label); ``""`` asks for a context that is just the text, None for no
            context of its own (``--contextualize`` still gives every chunk one).
        strategy: the strategy that made the span, when it is not the one the user named
            (``auto`` records its choice here).
        embedding: the chunk's unit vector when the strategy made one (late chunking).
        pages: the page range the chunk reports, when not the one its offsets touch (the
            pieces of a refined chunk keep their parent's).
        text: the chunk's text when it is not ``Document.text[start:end]``: a model's rewrite
            of the span (a proposition, a résumé field), whose ``metadata.kind`` says so.
    """

    start: int
    end: int
    headings: tuple[str, ...] | None = None
    metadata: Metadata = field(default_factory=_no_metadata)
    prefix: str | None = None
    strategy: str | None = None
    embedding: Sequence[float] | None = None
    pages: tuple[int, int] | None = None
    text: str | None = None


# Not frozen, unlike the other model types: a frozen dataclass sets each of these 20 fields
# through object.__setattr__, which made building a chunk six times slower, and assemble() builds
# one per chunk on the hot path. Treat chunks as read-only all the same.
@dataclass(slots=True)
class Chunk:
    """One output record (SPEC §2).

    Build it with ``ragchunk.pipeline.chunks.assemble``; do not mutate it.
    """

    id: str
    doc_id: str
    source: str
    index: int
    text: str
    start: int
    end: int
    strategy: str
    chars: int
    headings: tuple[str, ...] = ()
    page_start: int | None = None
    page_end: int | None = None
    line_start: int | None = None
    line_end: int | None = None
    tokens: int | None = None
    metadata: Metadata = field(default_factory=_no_metadata)
    context: str | None = None
    doc_hash: str | None = None
    hash: str | None = None
    embedding: tuple[float, ...] | None = None
    parent_id: str | None = None
    timestamp_start: float | None = None
    timestamp_end: float | None = None
    boxes: tuple[Box, ...] | None = None

    @property
    def is_parent(self) -> bool:
        """Whether this is a parent record of ``--parents`` (children name it in ``parent_id``)."""
        return self.parent_id is None and self.metadata.get("kind") == "parent"

    def to_record(self) -> dict[str, JSONValue]:
        """Return the JSON object of SPEC §2; optional fields appear only when set."""
        record: dict[str, JSONValue] = {
            "id": self.id,
            "doc_id": self.doc_id,
            "source": self.source,
            "index": self.index,
            "text": self.text,
            "start": self.start,
            "end": self.end,
        }
        if self.page_start is not None:
            record["page_start"] = self.page_start
            record["page_end"] = self.page_end
        if self.timestamp_start is not None:
            record["timestamp_start"] = self.timestamp_start
            record["timestamp_end"] = self.timestamp_end
        if self.line_start is not None:
            record["line_start"] = self.line_start
            record["line_end"] = self.line_end
        record["headings"] = list(self.headings)
        record["strategy"] = self.strategy
        record["chars"] = self.chars
        if self.tokens is not None:
            record["tokens"] = self.tokens
        record["metadata"] = dict(self.metadata)
        if self.boxes is not None:
            record["boxes"] = [dict(zip(BOX_FIELDS, box, strict=True)) for box in self.boxes]
        for name in ("parent_id", "context", "doc_hash", "hash", "embedding"):
            value = getattr(self, name)
            if value is not None:
                record[name] = list(value) if name == "embedding" else value
        return record


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One question: a system and a user message, the JSON schema of the answer wanted.

    ``version`` names the prompt's wording; it is part of the cache key, so a new prompt
    never reuses the old one's answers.
    """

    system: str
    user: str
    schema: dict[str, JSONValue]
    version: str
    name: str = "answer"


CHAT_SKIPPED: Final = "chat-skipped"
"""The code of the warning that a chat endpoint is skipped (its circuit breaker is open): a
rewriting strategy says it once per document, the command line once per run."""


@dataclass(frozen=True, slots=True)
class ChatReply:
    """The answer's text (``content``), or why there is none (``error``, one sentence).

    ``skipped``: the call was never made (the endpoint's circuit breaker was open).
    """

    content: str | None = None
    error: str | None = None
    cached: bool = False
    skipped: bool = False
