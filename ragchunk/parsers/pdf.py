"""pdf: each page's extracted text, joined with ``PAGE_SEPARATOR``, with a page map and headings.

Headings come from the outline (bookmarks) when the file has one: each entry is looked up on
its page (whitespace-insensitive, in outline order) and, when its title is not found, its path
starts at the page start. Without an outline, lines set in a font clearly larger than the body
text are headings, ranked by size. Sections are ``heading`` and ``prose`` spans. Encrypted
files are opened with the empty password, then with ``ParseRequest.password``. Pages without a
text layer are reported. Every pypdf error is wrapped at this boundary; its log messages
(repairs of damaged files) become one warning. Lone surrogates (from broken ToUnicode maps)
become U+FFFD with a warning, so the text always encodes as UTF-8. Resource caps: ``_pdfbudget``.
"""

from __future__ import annotations

import datetime as dt
import io
import logging
import math
import re
import warnings
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import pypdf
from pypdf.errors import DependencyError, LimitReachedError, PdfReadWarning, PyPdfError

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.model import PAGE_SEPARATOR, Document, Page, Section
from ragchunk.parsers._pdfbudget import Budget, OverBudget, configuration, forget_decoded
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from ragchunk.model import JSONValue, Metadata
    from ragchunk.parsers._spec import ParseRequest

HEADING_RATIO: Final = 1.15
"""A line whose font is this many times the body size (or more) is a heading candidate."""
MAX_HEADING_CHARS: Final = 200
MAX_OUTLINE_DEPTH: Final = 32
_HEADER_WINDOW: Final = 1024
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
_OBJECT_ADDRESS: Final = re.compile(r"(IndirectObject\(\d+, \d+), \d+\)")
MAX_REASON: Final = 200
"""pypdf's messages are cut to this many characters in ours."""
_PDF_DATE: Final = re.compile(
    r"(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?"
    r"(?:([Zz+-])(?:(\d{2})'?(?:(\d{2})'?)?)?)?'?"
)
# Python's own errors that pypdf lets escape on damaged files; anything else is a bug to see.
_PYPDF_FAILURES: Final = (
    PyPdfError,
    ValueError,
    KeyError,
    IndexError,
    TypeError,
    AttributeError,
    AssertionError,
    OSError,
    EOFError,
    RecursionError,
    ZeroDivisionError,
    UnicodeError,
    NotImplementedError,  # "Unsupported filter /X" (found by fuzzing)
)


@dataclass(frozen=True, slots=True)
class _Heading:
    """A heading found in the text: its span (empty when only its page is known) and path."""

    start: int
    end: int
    path: tuple[str, ...]


class _LogCollector(logging.Handler):
    """Collects pypdf's log records while one file is parsed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the PDF's text (pages joined by ``PAGE_SEPARATOR``), pages, headings, metadata.

    Offsets are absolute, half-open code-point indices into the joined text.

    Raises:
        CorruptDocumentError: empty, not a PDF, damaged, or encrypted without a right password.
        LimitExceededError: a stream exceeds pypdf's decompression limits, or the decoded
            content or text exceeds ``request.max_bytes``.
    """
    _check_header(data, request)
    logger = logging.getLogger("pypdf")
    collector = _LogCollector()
    logger.addHandler(collector)
    propagate, logger.propagate = logger.propagate, False
    budget = Budget(request.source, request.max_bytes)
    try:
        with warnings.catch_warnings(record=True) as caught, configuration(request.max_bytes):
            # pypdf reports some repairs as Python warnings rather than log records.
            warnings.simplefilter("always", PdfReadWarning)
            doc = _parse(data, request, budget)
        collector.messages += [str(warning.message) for warning in caught]
    except OverBudget as exc:
        raise LimitExceededError(str(exc)) from None
    except LimitReachedError as exc:
        raise LimitExceededError(f"{request.source}: refused: {_reason(exc)}") from exc
    except RecursionError as exc:  # where the recursion gives out varies: one stable message
        raise LimitExceededError(
            f"{request.source}: refused: objects nested too deeply to read"
        ) from exc
    except DependencyError as exc:
        raise CorruptDocumentError(f"{request.source}: cannot decrypt: {_reason(exc)}") from exc
    except _PYPDF_FAILURES as exc:
        raise CorruptDocumentError(
            f"{request.source}: corrupt or truncated PDF: {_reason(exc)}"
        ) from exc
    finally:
        logger.removeHandler(collector)
        logger.propagate = propagate
    if collector.messages:
        request.warn(
            "pdf-repaired",
            f"{request.source}: damaged PDF read with {len(collector.messages)} repair(s); "
            f"first: {_tidy(collector.messages[0])}",
        )
    return doc


def _check_header(data: bytes, request: ParseRequest) -> None:
    if not data:
        raise CorruptDocumentError(f"{request.source}: empty file, not a PDF")
    if b"%PDF-" not in data[:_HEADER_WINDOW]:
        raise CorruptDocumentError(f"{request.source}: not a PDF (no %PDF- header)")


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return _tidy(text.splitlines()[0]) if text else type(exc).__name__


def _tidy(message: str) -> str:
    """Return a pypdf message on one short line, without the memory addresses it may hold.

    pypdf prints objects as ``IndirectObject(6, 0, 140495803165712)``: the last number is an
    ``id()``, which would make the message, and so the run's output, differ between runs.
    """
    text = " ".join(_OBJECT_ADDRESS.sub(r"\1)", message).split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def _parse(data: bytes, request: ParseRequest, budget: Budget) -> Document:
    reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
    _decrypt(reader, request)
    texts: list[str] = []
    sizes: list[list[tuple[int, int, float]]] = []
    for page in reader.pages:
        streams = budget.count_page(page)
        text, runs = _page_text(page, budget)
        forget_decoded(streams)
        texts.append(text)
        sizes.append(runs)
    texts = _replace_surrogates(texts, request)
    pages = _page_map(texts)
    text = PAGE_SEPARATOR.join(texts)
    _warn_empty_pages(texts, request)
    headings = _outline_headings(reader, text, pages)
    if headings is None:
        headings = _font_headings(text, pages, sizes)
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format="pdf",
        sections=tuple(_sections(text, headings)),
        pages=pages,
        has_lines=False,
        metadata=_metadata(reader),
    )


def _decrypt(reader: Any, request: ParseRequest) -> None:
    """Open an encrypted file with the empty password, else with ``--password``."""
    if not reader.is_encrypted:
        return
    if reader.decrypt(""):
        return
    if request.password is None:
        raise CorruptDocumentError(
            f"{request.source}: encrypted PDF: a password is needed (give it with --password)"
        )
    if not reader.decrypt(request.password):
        raise CorruptDocumentError(
            f"{request.source}: encrypted PDF: the password given with --password is wrong"
        )


def _page_text(page: Any, budget: Budget) -> tuple[str, list[tuple[int, int, float]]]:
    """Return a page's text and its runs as ``(start, end, font size)`` offsets into it.

    pypdf calls the visitor with exactly the pieces it joins into its result; when that ever
    does not hold, the text is kept and the font sizes are dropped rather than misplaced.

    Raises:
        OverBudget: the document's text grew past its budget (checked piece by piece).
    """
    pieces: list[tuple[str, float]] = []

    def visit(
        text: str, cm: Sequence[float], tm: Sequence[float], _font: Any, font_size: Any
    ) -> None:
        budget.count_text(text)
        pieces.append((text, _effective_size(font_size, cm, tm)))

    def check(operator: bytes, operands: Any, _cm: Any, _tm: Any) -> None:
        budget.check_operation(operator, operands)

    text: str = page.extract_text(visitor_text=visit, visitor_operand_before=check)
    runs: list[tuple[int, int, float]] = []
    if "".join(piece for piece, _ in pieces) != text:
        return text, runs
    offset = 0
    for piece, size in pieces:
        if piece.strip():
            runs.append((offset, offset + len(piece), size))
        offset += len(piece)
    return text, runs


def _replace_surrogates(texts: list[str], request: ParseRequest) -> list[str]:
    """Replace lone surrogates with U+FFFD (one for one: offsets keep), with one warning."""
    count = sum(len(_SURROGATE.findall(text)) for text in texts)
    if not count:
        return texts
    request.warn(
        "pdf-surrogates",
        f"{request.source}: {count} invalid character(s) (lone surrogates) in the text "
        "replaced with U+FFFD",
    )
    return [_SURROGATE.sub("\ufffd", text) for text in texts]


def _effective_size(font_size: Any, cm: Sequence[float], tm: Sequence[float]) -> float:
    """Return the font size as rendered: the ``Tf`` size scaled by the text and CTM matrices."""
    try:
        size = float(font_size)
        b = tm[0] * cm[1] + tm[1] * cm[3]
        d = tm[2] * cm[1] + tm[3] * cm[3]
    except (TypeError, ValueError, IndexError):
        return 0.0
    return round(abs(size) * math.hypot(b, d), 1)


def _page_map(texts: Sequence[str]) -> tuple[Page, ...]:
    pages = []
    offset = 0
    for number, text in enumerate(texts, start=1):
        pages.append(Page(number, offset, offset + len(text)))
        offset += len(text) + len(PAGE_SEPARATOR)
    return tuple(pages)


def _warn_empty_pages(texts: Sequence[str], request: ParseRequest) -> None:
    empty = [str(number) for number, text in enumerate(texts, start=1) if not text.strip()]
    if empty:
        listed = ", ".join(empty[:20]) + (", ..." if len(empty) > 20 else "")
        request.warn(
            "pdf-no-text",
            f"{request.source}: {len(empty)} of {len(texts)} page(s) have no text layer "
            f"(scanned images?): page {listed}",
        )


def _outline_headings(reader: Any, text: str, pages: Sequence[Page]) -> list[_Heading] | None:
    """Return the outline's headings placed in the text, or None when there is no outline."""
    try:
        entries = list(_outline_entries(reader))
    except _PYPDF_FAILURES:
        return None  # a broken outline is no reason to lose the text: use font sizes
    if not entries:
        return None
    headings: list[_Heading] = []
    cursor = 0
    for title, page_index, path in entries:
        page = pages[page_index]
        found = _find_title(text, title, max(cursor, page.start), page.end)
        if found is None:
            headings.append(_Heading(page.start, page.start, path))
        else:
            headings.append(_Heading(found[0], found[1], path))
            cursor = found[1]
    headings.sort(key=lambda heading: heading.start)
    return headings


def _outline_entries(reader: Any) -> Iterator[tuple[str, int, tuple[str, ...]]]:
    """Yield ``(title, page index, heading path)`` per outline entry, depth-first, bounded."""
    stack: list[tuple[Iterator[Any], tuple[str, ...]]] = [(iter(reader.outline), ())]
    last_title: tuple[str, ...] = ()
    while stack:
        items, parent = stack[-1]
        item = next(items, None)
        if item is None:
            stack.pop()
            continue
        if isinstance(item, list):
            # A nested list holds the children of the entry just before it.
            if len(stack) < MAX_OUTLINE_DEPTH:
                stack.append((iter(item), last_title))
            continue
        title = _SURROGATE.sub("\ufffd", " ".join(str(item.title or "").split()))
        page_index = reader.get_destination_page_number(item)
        last_title = (*parent, title)
        if title and page_index is not None and 0 <= page_index < len(reader.pages):
            yield title, page_index, last_title


def _find_title(text: str, title: str, start: int, end: int) -> tuple[int, int] | None:
    """Return the span of ``title`` in ``text[start:end]``, spaces matching any whitespace.

    A match filling a whole line wins over one inside running text (a body sentence above
    the heading may use the same words); a match must not cut a word either way.
    """
    words = r"\s+".join(re.escape(word) for word in title.split())
    for pattern in (rf"^[ \t]*({words})[ \t]*$", rf"(?<!\w)({words})(?!\w)"):
        match = re.compile(pattern, re.IGNORECASE | re.MULTILINE).search(text, start, end)
        if match:
            return match.start(1), match.end(1)
    return None


def _font_headings(
    text: str, pages: Sequence[Page], sizes: Sequence[Sequence[tuple[int, int, float]]]
) -> list[_Heading]:
    """Return headings from lines set larger than the body text, ranked by size."""
    lines = list(_sized_lines(text, pages, sizes))
    weights: Counter[float] = Counter()
    for start, end, size in lines:
        weights[size] += end - start
    if not weights:
        return []
    body = weights.most_common(1)[0][0]
    candidates = [
        (start, end, size)
        for start, end, size in lines
        if size >= body * HEADING_RATIO and end - start <= MAX_HEADING_CHARS
    ]
    ordered = sorted({size for *_, size in candidates}, reverse=True)
    ranks = {size: rank for rank, size in enumerate(ordered, start=1)}
    return _heading_paths(text, _merge_wrapped(text, candidates), ranks)


def _sized_lines(
    text: str, pages: Sequence[Page], sizes: Sequence[Sequence[tuple[int, int, float]]]
) -> Iterator[tuple[int, int, float]]:
    """Yield each non-blank line of the text as ``(start, end, largest font size on it)``."""
    for page, runs in zip(pages, sizes, strict=True):
        first_run = 0
        line_start = page.start
        for line in text[page.start : page.end].split("\n"):
            line_end = line_start + len(line)
            stripped = line.strip()
            if stripped:
                lead = line_start + len(line) - len(line.lstrip())
                # Lines and runs both come in text order: walk them together (linear).
                while first_run < len(runs) and runs[first_run][1] + page.start <= lead:
                    first_run += 1
                size = 0.0
                k = first_run
                while k < len(runs) and runs[k][0] + page.start < line_end:
                    size = max(size, runs[k][2])
                    k += 1
                yield lead, lead + len(stripped), size
            line_start = line_end + 1


def _merge_wrapped(
    text: str, candidates: Sequence[tuple[int, int, float]]
) -> list[tuple[int, int, float]]:
    """Join consecutive candidate lines of one size: a heading that wrapped onto two lines."""
    merged: list[tuple[int, int, float]] = []
    for start, end, size in candidates:
        previous = merged[-1] if merged else None
        if (
            previous is not None
            and previous[2] == size
            and text.count("\n", previous[1], start) == 1
            and not text[previous[1] : start].strip()
        ):
            merged[-1] = (previous[0], end, size)
            continue
        merged.append((start, end, size))
    return merged


def _heading_paths(
    text: str, lines: Sequence[tuple[int, int, float]], ranks: dict[float, int]
) -> list[_Heading]:
    headings: list[_Heading] = []
    path: list[tuple[int, str]] = []
    for start, end, size in lines:
        rank = ranks[size]
        while path and path[-1][0] >= rank:
            path.pop()
        path.append((rank, " ".join(text[start:end].split())))
        headings.append(_Heading(start, end, tuple(title for _, title in path)))
    return headings


def _sections(text: str, headings: Sequence[_Heading]) -> Iterator[Section]:
    """Yield heading sections and the prose between them, each trimmed of outer whitespace."""
    position = 0
    path: tuple[str, ...] = ()
    for heading in headings:
        yield from _prose(text, position, heading.start, path)
        if heading.end > heading.start:
            level = len(heading.path)
            yield Section(heading.start, heading.end, "heading", heading.path, level)
        position, path = max(position, heading.end), heading.path
    yield from _prose(text, position, len(text), path)


def _prose(text: str, start: int, end: int, path: tuple[str, ...]) -> Iterator[Section]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        yield Section(start, end, "prose", path)


def _metadata(reader: Any) -> Metadata:
    """Return title, author and creation date (ISO 8601) when the file records them."""
    try:
        info = reader.metadata
        title, author = (info.title, info.author) if info else (None, None)
        created = info.creation_date_raw if info else None
    except _PYPDF_FAILURES:
        return {}
    metadata: dict[str, JSONValue] = {}
    if isinstance(title, str) and title.strip():
        metadata["title"] = _SURROGATE.sub("\ufffd", title.strip())
    if isinstance(author, str) and author.strip():
        metadata["author"] = _SURROGATE.sub("\ufffd", author.strip())
    date = parse_pdf_date(str(created)) if created is not None else None
    if date is not None:
        metadata["created"] = date
    return metadata


def parse_pdf_date(raw: str) -> str | None:
    """Return a PDF date (``D:YYYYMMDDHHmmSSOHH'mm'``, parts optional) as ISO 8601, or None.

    Written here because real producers emit forms pypdf rejects (LibreOffice's ``Z'``).
    """
    match = _PDF_DATE.fullmatch(raw.strip())
    if match is None:
        return None
    year, month, day, hour, minute, second, sign, tz_hour, tz_minute = match.groups()
    try:
        tz = None
        if sign in ("Z", "z"):
            tz = dt.UTC
        elif sign:
            offset = dt.timedelta(hours=int(tz_hour or 0), minutes=int(tz_minute or 0))
            tz = dt.timezone(-offset if sign == "-" else offset)
        moment = dt.datetime(
            int(year),
            int(month or 1),
            int(day or 1),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=tz,
        )
    except ValueError:
        return None
    return moment.isoformat()


FORMAT = Format(name="pdf", parse=parse)
