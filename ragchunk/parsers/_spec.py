"""What every parser module exposes: ``FORMAT = Format(...)``, and the ``ParseRequest`` it gets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragchunk.defaults import DEFAULT_MAX_BYTES

if TYPE_CHECKING:
    from ragchunk.model import Document


def _ignore(code: str, message: str) -> None:
    """Drop a warning (the default sink)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseRequest:
    """What a parser knows besides the bytes.

    Attributes:
        source: the path as the user gave it (``-`` for standard input).
        doc_id: the document id recorded in every chunk.
        password: a PDF password from ``--password``.
        language: a code language forced with ``--language``.
        max_bytes: the cap (``--max-bytes``) on decompressed parts: a DOCX's zip members in
            total, a PDF's streams each and its page contents and text in total.
        warn: a sink for warnings, ``warn(code, message)``.
    """

    source: str = "-"
    doc_id: str = "-"
    password: str | None = None
    language: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES
    warn: Callable[[str, str], None] = _ignore


@dataclass(frozen=True, slots=True)
class Format:
    """An input format: its name and the function that parses it.

    Attributes:
        name: the single lowercase word users pass to ``--format``.
        parse: ``parse(data, request)`` returns the Document; raises ``InputError`` subclasses.
    """

    name: str
    parse: Callable[[bytes, ParseRequest], Document]
