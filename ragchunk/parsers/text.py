"""text: the decoded file is the document, verbatim; no structure is guessed (SPEC §1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragchunk.model import Document
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from ragchunk.parsers._spec import ParseRequest


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the decoded text as a Document with line numbers and no sections.

    Raises:
        InputError: the data is binary.
    """
    return Document(
        text=decode(data, request),
        source=request.source,
        doc_id=request.doc_id,
        format="text",
    )


FORMAT = Format(name="text", parse=parse)
