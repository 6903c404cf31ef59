"""The text builder of the parsers that write their own text (every format but the verbatim ones).

A parser that does not keep its input verbatim (DOCX, HTML, PPTX, CSV and XLSX, e-mail, EPUB,
PDF) assembles ``Document.text`` here while it records what it knows of it:

- **Offsets.** ``append`` and ``add`` return where the text they add starts; ``length`` is
  always the length of the text so far, so every span is absolute (half-open code-point
  indices into the finished ``text()``) the moment it is recorded.
- **Separators.** Blocks are joined with ``BLOCK_SEPARATOR`` and the lines of one block (list
  items, table rows, the cells of a row) with ``LINE_SEPARATOR``; ``append`` writes none before
  the first text, ``add`` writes what it is given. ``line`` adds a block's next line.
  ``document`` returns the finished ``Document``.
- **Sections** are recorded under the current heading path (``record``, ``add_block``); a section
  ends where the text ends unless told otherwise. ``add_heading`` enters the path and records the
  heading; ``add_table`` records rows with the first as header; ``splice`` adds a whole parsed
  document, its spans shifted.
- **Pages** span from their first text to the end of their last (the separators around them
  are left out): ``open_page`` then ``close_page``.
- **Budget.** A builder given ``spend`` (``ParseRequest.spend_text``) counts every character
  it adds against the input's text budget (``_budget``) before keeping it.
- **Headings.** ``HeadingPath`` is the path of titles above the text being read: a heading of
  rank ``r`` closes every open heading of rank ``r`` or more. The verbatim parsers (Markdown,
  reStructuredText) and the PDF heading finder use it alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.model import EMPTY_METADATA, Document, Page, Section

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ragchunk.model import Metadata
    from ragchunk.parsers._spec import ParseRequest

BLOCK_SEPARATOR: Final = "\n\n"
"""Between blocks (paragraphs, headings, lists, tables, rows of tabular data)."""
LINE_SEPARATOR: Final = "\n"
"""Between the lines of one block (list items, table rows, a row's cells)."""

Span = tuple[int, int]


@dataclass(slots=True)
class HeadingPath:
    """The open headings, outermost first: ``(rank, title)`` pairs."""

    entries: list[tuple[int, str]] = field(default_factory=list)

    def enter(self, rank: int, title: str) -> None:
        """Open a heading: it closes the open headings of rank ``rank`` or more."""
        while self.entries and self.entries[-1][0] >= rank:
            self.entries.pop()
        self.entries.append((rank, title))

    def clear(self) -> None:
        """Close every open heading."""
        self.entries.clear()

    def titles(self) -> tuple[str, ...]:
        """Return the titles of the open headings, outermost first."""
        return tuple(title for _, title in self.entries)


@dataclass(slots=True)
class TextBuilder:
    """A document's text with its sections and pages, built front to back (see the module)."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    sections: list[Section] = field(default_factory=list)
    pages: list[Page] = field(default_factory=list)
    path: HeadingPath = field(default_factory=HeadingPath)
    page_start: int | None = None
    """Where the open page's text starts (None before its first text)."""
    page_opened: int = 0
    """The length of the text when the open page started."""
    spend: Callable[[int], None] | None = None
    """Counts every character added against the input's text budget before it is kept
    (``ParseRequest.spend_text``; it raises past ``--max-text``), or None to count nothing."""

    # --- text ---------------------------------------------------------------------------------

    def add(self, text: str, separator: str = "") -> int:
        """Write ``separator`` then ``text``; return where ``text`` starts.

        Raises:
            TextBudgetError: through ``spend``, the input's text passes ``--max-text``.
        """
        if self.spend is not None:
            self.spend(len(separator) + len(text))
        if separator:
            self.parts.append(separator)
            self.length += len(separator)
        start = self.length
        if self.page_start is None:
            self.page_start = start
        self.parts.append(text)
        self.length += len(text)
        return start

    def append(self, text: str, separator: str = BLOCK_SEPARATOR) -> int:
        """Write ``text`` after ``separator`` (none at the start); return where it starts."""
        return self.add(text, separator if self.length else "")

    def line(self, text: str, spans: list[Span]) -> int:
        """Add the next line of a block whose lines so far are ``spans``; record its span.

        The first line starts a block (after ``BLOCK_SEPARATOR``), the others follow a line feed.
        """
        start = self.append(text, LINE_SEPARATOR if spans else BLOCK_SEPARATOR)
        spans.append((start, self.length))
        return start

    def text(self) -> str:
        """Return the text built so far (its parts are joined once, then kept whole)."""
        joined = "".join(self.parts)
        self.parts = [joined]
        return joined

    def document(
        self,
        request: ParseRequest,
        format: str,
        metadata: Metadata,
        *,
        pages: tuple[Page, ...] | None = None,
        extraction: Metadata = EMPTY_METADATA,
    ) -> Document:
        """Return the finished Document of ``request``.

        It has the text built, its sections and its pages (``pages`` instead where the format
        maps them itself); its lines are not the input's (``has_lines`` is false).
        """
        return Document(
            text=self.text(),
            source=request.source,
            doc_id=request.doc_id,
            format=format,
            sections=tuple(self.sections),
            pages=tuple(self.pages) if pages is None else pages,
            has_lines=False,
            metadata=metadata,
            extraction=extraction,
        )

    # --- sections -----------------------------------------------------------------------------

    def headings(self) -> tuple[str, ...]:
        """Return the current heading path."""
        return self.path.titles()

    def record(
        self,
        start: int,
        kind: str,
        *,
        end: int | None = None,
        level: int = 0,
        metadata: Metadata = EMPTY_METADATA,
        header: Span | None = None,
        parts: tuple[Span, ...] = (),
    ) -> Section:
        """Record a section from ``start`` to ``end`` (the text's end) under the current path."""
        section = Section(
            start,
            self.length if end is None else end,
            kind,
            self.headings(),
            level,
            metadata,
            header,
            parts,
        )
        self.sections.append(section)
        return section

    def add_block(
        self,
        text: str,
        kind: str = "prose",
        *,
        level: int = 0,
        metadata: Metadata = EMPTY_METADATA,
    ) -> int:
        """Append ``text`` as a block and record it as a section; return where it starts."""
        start = self.append(text)
        self.record(start, kind, level=level, metadata=metadata)
        return start

    def add_heading(
        self,
        text: str,
        rank: int,
        *,
        title: str | None = None,
        level: int | None = None,
        metadata: Metadata = EMPTY_METADATA,
    ) -> int:
        """Append a heading; return where it starts.

        ``title`` (else ``text``) enters the path at ``rank``, then a ``heading`` section of
        ``level`` (else ``rank``) is recorded under the new path.
        """
        start = self.append(text)
        self.path.enter(rank, text if title is None else title)
        self.record(start, "heading", level=rank if level is None else level, metadata=metadata)
        return start

    def add_table(self, rows: Sequence[Span], *, header: bool = True) -> None:
        """Record a ``table`` section over ``rows``, the first its header when ``header``."""
        self.record(
            rows[0][0],
            "table",
            end=rows[-1][1],
            header=rows[0] if header else None,
            parts=tuple(rows[1:] if header else rows),
        )

    def splice(
        self,
        doc: Document,
        *,
        path: tuple[str, ...],
        level: int,
        metadata: Metadata,
        keep_top: bool = True,
    ) -> None:
        """Add a parsed document's text and sections, shifted and nested under ``path``.

        Heading levels move down by ``level``; every section gets ``metadata``. Without
        ``keep_top``, the document's own top heading is not added to ``path`` (it stands
        for ``path``'s last title, as an EPUB chapter's heading does for its navigation title).
        The builder's own heading path is left as it is.
        """
        text = doc.text.rstrip()  # a text attachment's final line feeds
        if not text:
            return
        offset = self.append(text)
        last = self.length

        def shift(span: Span) -> Span:
            return span[0] + offset, min(span[1] + offset, last)

        top = _top_heading(doc) if not keep_top else None
        for s in doc.sections:
            own = s.headings[1:] if top is not None and s.headings[:1] == (top,) else s.headings
            self.sections.append(
                Section(
                    s.start + offset,
                    min(s.end + offset, last),
                    s.kind,
                    path + own,
                    s.level + level if s.level else 0,
                    {**s.metadata, **metadata},
                    None if s.header is None else shift(s.header),
                    tuple(shift(p) for p in s.parts),
                )
            )
        if not doc.sections:
            self.sections.append(Section(offset, last, "prose", path, 0, dict(metadata)))

    # --- pages --------------------------------------------------------------------------------

    def open_page(self, separator: str = "") -> None:
        """Start a page, after ``separator`` (written even at the start: PDF's page breaks)."""
        if separator:
            self.parts.append(separator)
            self.length += len(separator)
        self.page_start = None
        self.page_opened = self.length

    def close_page(self, number: int, *, keep_empty: bool = False) -> None:
        """End the open page as page ``number``: from its first text to the text's end.

        A page where nothing was written is left out, unless ``keep_empty`` (then it is
        empty, at the end).
        """
        if self.length > self.page_opened or keep_empty:
            start = self.length if self.page_start is None else self.page_start
            self.pages.append(Page(number, start, self.length))


def _top_heading(doc: Document) -> str | None:
    """Return the title of a document's first heading when it is of the top level."""
    first = next((s for s in doc.sections if s.kind == "heading"), None)
    return first.headings[-1] if first is not None and first.level == 1 else None
