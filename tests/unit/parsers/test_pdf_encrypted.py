"""Encrypted PDFs always say so (issue 31, finding 8): never "corrupt" for a password problem.

The files are made here with pypdf's writer from a fixture: AES-256 (revision 6) with a user
password, and with only an owner password (the empty user password opens it).
"""

from __future__ import annotations

import io

import pypdf
import pytest

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.pdf.pdfium import open_document
from tests.conftest import FIXTURES
from tests.unit.parsers.test_pdf import ENGINES, load

LETTER = FIXTURES / "pdf" / "inspection-letter.pdf"


def r6(user: str, owner: str = "owner-secret") -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(LETTER.read_bytes()))
    writer.encrypt(user, owner_password=owner, algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    data = buffer.getvalue()
    assert pypdf.PdfReader(io.BytesIO(data))._encryption.R == 6  # the revision
    return data


@pytest.mark.parametrize("engine", ENGINES)
def test_r6_with_a_user_password_asks_for_it(engine: str) -> None:
    with pytest.raises(CorruptDocumentError) as caught:
        load(r6("harbour"), engine)
    assert str(caught.value) == (
        "in.pdf: encrypted PDF: a password is needed (give it with --password)"
    )
    doc, _ = load(r6("harbour"), engine, password="harbour")
    assert doc.text == load(LETTER, engine)[0].text


@pytest.mark.parametrize("engine", ENGINES)
def test_a_file_the_empty_password_opens_ignores_a_password_given_for_others(engine: str) -> None:
    # `--password` is one for the whole run: a file without a user password still opens
    doc, _ = load(r6(""), engine, password="harbour")
    assert doc.text == load(LETTER, engine)[0].text


@pytest.mark.parametrize(
    ("password", "says"),
    [
        (None, "a password is needed (give it with --password)"),
        ("guess", "the password given with --password is wrong"),
    ],
)
def test_pdfium_refusing_the_password_says_so(password: str | None, says: str) -> None:
    with pytest.raises(CorruptDocumentError) as caught:
        open_document(r6("harbour"), password, ParseRequest(source="in.pdf"))
    assert str(caught.value) == f"in.pdf: encrypted PDF: {says}"
