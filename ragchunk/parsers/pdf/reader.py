"""Opening a PDF with pypdf: every error wrapped, repairs collected, the outline and metadata read.

The ``pypdf`` engine starts here, and the ``pdfium`` engine with a file ``precheck`` doubts or an
encrypted one: pypdf opens the file (empty password first, then ``--password``), its
log records and warnings (repairs of a damaged file) are collected while the file is read, and
its exceptions become one-line ``InputError``s. The outline gives each entry's page and, for
``/XYZ`` destinations, its position on the page. Messages never hold memory addresses.
"""

from __future__ import annotations

import io
import logging
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

import pypdf
from pypdf.errors import DependencyError, LimitReachedError, PdfReadWarning, PyPdfError

from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.parsers.pdf.budget import OverBudget, configuration
from ragchunk.parsers.pdf.info import (
    MAX_OUTLINE_DEPTH,
    SURROGATE,
    OutlineEntry,
    metadata_of,
)

if TYPE_CHECKING:
    from ragchunk.model import Metadata
    from ragchunk.parsers._spec import ParseRequest

MAX_REASON: Final = 200
"""pypdf's messages are cut to this many characters in ours."""
_OBJECT_ADDRESS: Final = re.compile(r"(IndirectObject\(\d+, \d+), \d+\)")
# Python's own errors that pypdf lets escape on damaged files; anything else is a bug to see.
PYPDF_FAILURES: Final = (
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


@dataclass(slots=True)
class Repairs:
    """pypdf's messages about the damage it repaired while one file was read."""

    messages: list[str] = field(default_factory=list)


class _LogCollector(logging.Handler):
    """Collects pypdf's log records while one file is parsed."""

    def __init__(self, repairs: Repairs) -> None:
        super().__init__(logging.WARNING)
        self.repairs = repairs

    def emit(self, record: logging.LogRecord) -> None:
        self.repairs.messages.append(record.getMessage())


@contextmanager
def guarded(request: ParseRequest) -> Iterator[Repairs]:
    """Run pypdf inside: its repairs are collected, its errors become ``InputError``s.

    On leaving, collected repairs become one ``pdf-repaired`` warning.

    Raises:
        CorruptDocumentError: damaged beyond reading, or encrypted with an unknown password.
        LimitExceededError: a resource cap was reached (see ``budget``).
    """
    logger = logging.getLogger("pypdf")
    repairs = Repairs()
    collector = _LogCollector(repairs)
    logger.addHandler(collector)
    propagate, logger.propagate = logger.propagate, False
    try:
        with warnings.catch_warnings(record=True) as caught, configuration(request.max_bytes):
            # pypdf reports some repairs as Python warnings rather than log records.
            warnings.simplefilter("always", PdfReadWarning)
            yield repairs
        repairs.messages += [str(warning.message) for warning in caught]
    except OverBudget as exc:
        raise LimitExceededError(str(exc)) from None
    except LimitReachedError as exc:
        raise LimitExceededError(f"{request.source}: refused: {reason(exc)}") from exc
    except RecursionError as exc:  # where the recursion gives out varies: one stable message
        raise LimitExceededError(
            f"{request.source}: refused: objects nested too deeply to read"
        ) from exc
    except DependencyError as exc:
        raise CorruptDocumentError(f"{request.source}: cannot decrypt: {reason(exc)}") from exc
    except PYPDF_FAILURES as exc:
        raise CorruptDocumentError(
            f"{request.source}: corrupt or truncated PDF: {reason(exc)}"
        ) from exc
    finally:
        logger.removeHandler(collector)
        logger.propagate = propagate
    if repairs.messages:
        request.warn(
            "pdf-repaired",
            f"{request.source}: damaged PDF read with {len(repairs.messages)} repair(s); "
            f"first: {tidy(repairs.messages[0])}",
        )


def open_reader(data: bytes, request: ParseRequest) -> Any:
    """Return a pypdf reader of ``data``, decrypted (call inside ``guarded``).

    Raises:
        CorruptDocumentError: encrypted and neither the empty password nor ``--password``
            opens it.
    """
    reader = pypdf.PdfReader(io.BytesIO(data), strict=False)
    if not reader.is_encrypted or reader.decrypt(""):
        return reader
    if request.password is None:
        raise CorruptDocumentError(
            f"{request.source}: encrypted PDF: a password is needed (give it with --password)"
        )
    if not reader.decrypt(request.password):
        raise CorruptDocumentError(
            f"{request.source}: encrypted PDF: the password given with --password is wrong"
        )
    return reader


def password_of(reader: Any, request: ParseRequest) -> str | None:
    """Return the password that opened ``reader`` (None when it is not encrypted)."""
    if not reader.is_encrypted:
        return None
    if request.password is None or _opens_with(reader, ""):  # --password is for other files
        return ""
    return request.password


def _opens_with(reader: Any, password: str) -> bool:
    """Whether ``password`` opens ``reader`` (an encrypted file with no user password: ``""``)."""
    try:
        return bool(reader._encryption.verify(password))  # no public check
    except (AttributeError, *PYPDF_FAILURES):
        return False


def reason(exc: BaseException) -> str:
    """Return an exception's message on one short line."""
    text = str(exc).strip()
    return tidy(text.splitlines()[0]) if text else type(exc).__name__


def tidy(message: str) -> str:
    """Return a pypdf message on one short line, without the memory addresses it may hold.

    pypdf prints objects as ``IndirectObject(6, 0, 140495803165712)``: the last number is an
    ``id()``, which would make the message, and so the run's output, differ between runs.
    """
    text = " ".join(_OBJECT_ADDRESS.sub(r"\1)", message).split())
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def outline(reader: Any) -> list[OutlineEntry]:
    """Return the outline's entries in order; empty when there is none or it is broken."""
    try:
        return list(_outline_entries(reader))
    except PYPDF_FAILURES:
        return []  # a broken outline is no reason to lose the text: font sizes decide


def _outline_entries(reader: Any) -> Iterator[OutlineEntry]:
    """Yield the entries depth-first, bounded in depth; nested lists are children."""
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
        title = SURROGATE.sub("\ufffd", " ".join(str(item.title or "").split()))
        page_index = reader.get_destination_page_number(item)
        last_title = (*parent, title)
        if title and page_index is not None and 0 <= page_index < len(reader.pages):
            yield OutlineEntry(title, page_index, _top(reader, item, page_index), last_title)


def _top(reader: Any, item: Any, page_index: int) -> float | None:
    """Return an ``/XYZ`` destination's distance from its page's top edge, else None."""
    if item.get("/Type") not in ("/XYZ", "/FitH", "/FitBH"):
        return None
    top = item.get("/Top")
    if top is None:
        return None
    box = reader.pages[page_index].mediabox
    return float(box.top) - float(top)


def metadata(reader: Any) -> Metadata:
    """Return title, author and creation date (ISO 8601) when the file records them."""
    try:
        info = reader.metadata
        title, author = (info.title, info.author) if info else (None, None)
        created = info.creation_date_raw if info else None
    except PYPDF_FAILURES:
        return {}
    return metadata_of(title, author, None if created is None else str(created))
