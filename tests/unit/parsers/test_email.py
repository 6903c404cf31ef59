"""E-mail and mbox: headers, bodies, attachments by their own parsers, one document per message."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from ragchunk.errors import CorruptDocumentError, InputError
from ragchunk.model import Document
from ragchunk.parsers import detect
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.email import parse
from ragchunk.parsers.mbox import members
from ragchunk.pipeline.reading import parse_documents
from tests.conftest import FIXTURES

MAIL = FIXTURES / "email"


def read(name: str, warnings: list[str] | None = None) -> Document:
    sink = [] if warnings is None else warnings
    request = ParseRequest(source=name, warn=lambda _code, message: sink.append(message))
    return parse((MAIL / name).read_bytes(), request)


def parts(doc: Document) -> list[tuple[str, str]]:
    return [(str(s.metadata["part"]), s.kind) for s in doc.sections]


def test_headers_then_body_with_quote_and_signature() -> None:
    doc = read("survey-plan.eml")
    assert doc.text.startswith(
        "From: Helen Marsh <helen.marsh@example.org>\nTo: Survey crew <crew@wend-estuary.example>"
        "\nCc: Owen Pryce <owen.pryce@saltmarsh.example>\nDate: Mon, 27 May 2024 17:42:10 +0100"
        "\nSubject: Re: June survey – logger mooring at Tanner’s Reach\n\nHi all,"
    )
    kinds = parts(doc)
    assert kinds[0] == ("headers", "headers")
    assert ("body", "quote") in kinds
    assert kinds[-1] == ("body", "signature")
    assert doc.metadata["subject"] == "Re: June survey – logger mooring at Tanner’s Reach"
    assert doc.metadata["date"] == "2024-05-27T17:42:10+01:00"
    assert doc.metadata["cc"] == "Owen Pryce <owen.pryce@saltmarsh.example>"
    assert all(s.headings == (doc.metadata["subject"],) for s in doc.sections)


def test_attachments_are_parsed_by_their_own_formats() -> None:
    doc = read("results-with-attachments.eml")
    names = [part for part, kind in parts(doc) if kind == "heading"]
    assert names == [
        "attachment:june-readings.csv",
        "attachment:Prüfprotokoll-logger.txt",
        "attachment:Optical cap replacement.eml",
    ]
    rows = [s for s in doc.sections if s.kind == "row"]
    assert len(rows) == 3
    assert rows[0].headings == (
        "June results and the logger check",
        "Attachment: june-readings.csv",
    )
    assert "site: W3\ndate: 2024-06-11" in doc.text
    forwarded = [
        s for s in doc.sections if s.metadata["part"] == "attachment:Optical cap replacement.eml"
    ]
    assert [s.kind for s in forwarded][:2] == ["heading", "headers"]
    assert "The June results are attached" in doc.text  # the plain alternative, not the HTML
    assert "&rsquo;" not in doc.text


def test_html_only_body_goes_through_the_html_parser() -> None:
    doc = read("newsletter.eml")
    assert "| 22 June | Guided walk: birds of the mudflats |" in doc.text
    assert "<table" not in doc.text
    assert "{" not in doc.text  # the style block is left out


def test_latin1_labels_read_as_windows_1252_in_headers_and_body() -> None:
    doc = read("latin1-notice.eml")
    assert doc.metadata["subject"] == "Visita de estudiantes – ¿es posible en julio?"
    assert doc.metadata["from"] == "José Núñez <jose.nunez@example.es>"
    assert "Soy profesor de ciencias en Santoña." in doc.text


def test_an_attachment_past_max_bytes_is_left_out_with_a_warning() -> None:
    message = EmailMessage()
    message["Subject"] = "Big"
    message.set_content("Body.")
    message.add_attachment(b"x" * 5000, maintype="text", subtype="plain", filename="big.txt")
    message.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png", filename="logo.png")
    warnings: list[str] = []
    request = ParseRequest(source="m.eml", max_bytes=1000, warn=lambda _c, m: warnings.append(m))
    doc = parse(message.as_bytes(), request)
    assert doc.text == "Subject: Big\n\nBody."
    assert doc.metadata["left_out"] == {"attachments": ["big.txt", "logo.png"]}
    assert warnings == [
        "m.eml: attachment big.txt left out: refused: 5000 bytes, more than --max-bytes 1000"
    ]


def test_bad_bytes_are_replaced_and_warned() -> None:
    data = b"Subject: x\nContent-Type: text/plain; charset=utf-8\n\ncaf\xe9\n"
    warnings: list[str] = []
    request = ParseRequest(source="m.eml", warn=lambda _c, m: warnings.append(m))
    assert parse(data, request).text == "Subject: x\n\ncaf\ufffd"
    assert warnings == ["m.eml: invalid utf-8 from byte 3; replaced with U+FFFD"]


def test_not_an_email() -> None:
    with pytest.raises(InputError, match="binary data"):
        parse(b"\x00\x01\x02", ParseRequest())
    with pytest.raises(CorruptDocumentError, match="no header lines"):
        parse(b"just some words\n", ParseRequest())


def test_an_mbox_is_one_document_per_message() -> None:
    data = (MAIL / "harbour-list.mbox").read_bytes()
    request = ParseRequest(source="list.mbox", doc_id="list.mbox")
    found = [m.name for m in members(data, request)]
    assert found == ["#1", "#2", "#3", "#4"]
    docs = list(parse_documents(data, request, format="mbox"))
    assert all(isinstance(d, Document) for d in docs)
    assert [d.doc_id for d in docs if isinstance(d, Document)] == [
        f"list.mbox#{n}" for n in range(1, 5)
    ]
    assert all(d.source == "list.mbox" for d in docs if isinstance(d, Document))
    first = docs[0]
    assert isinstance(first, Document)
    assert "\n\nFrom Thursday the ramp is open again" in first.text  # >From unescaped
    assert first.metadata["message"] == 1


def test_a_broken_message_fails_alone() -> None:
    good = b"From a@b Mon Jan 1 00:00:00 2024\nSubject: one\n\nFirst.\n"
    bad = b"From a@b Mon Jan 1 00:00:00 2024\n\x00\x01binary\n"
    docs = list(parse_documents(good + bad + good, ParseRequest(source="m.mbox"), format="mbox"))
    assert [type(d).__name__ for d in docs] == ["Document", "InputError", "Document"]
    assert str(docs[1]) == "m.mbox#2: binary data, not an e-mail (it holds zero bytes)"


def test_not_an_mbox() -> None:
    with pytest.raises(CorruptDocumentError, match="not an mbox"):
        list(members(b"Subject: x\n\nbody\n", ParseRequest()))


def test_detection() -> None:
    assert detect("mail", b"From a@b Mon Jan  1 00:00:00 2024\nSubject: x\n") == "mbox"
    assert detect("mail", b"Received: from x\nFrom: a@b\nSubject: s\n\nbody") == "email"
    assert detect("notes", b"From: the author\nthis is prose, not headers\n") == "text"
    assert detect("-", b"From stdin.\n") == "text"  # prose, not an mbox's From line
    assert detect("-", b"From the harbour office, a note.\nMore text.\n") == "text"


def parse_bytes(data: bytes, warnings: list[str]) -> Document:
    request = ParseRequest(source="m.eml", warn=lambda _code, message: warnings.append(message))
    return parse(data, request)


@pytest.mark.parametrize("charset", ["rot13", "base64", "zlib", "undefined", "uu"])
def test_a_charset_that_is_not_a_text_encoding_is_warned_and_read_as_utf8(charset: str) -> None:
    message = EmailMessage()
    message["Subject"] = "Odd"
    message.set_content("Body text, é.")
    message.add_attachment(b"Attached text.", maintype="text", subtype="plain", filename="a.txt")
    for part in (message.get_body(), message.get_payload()[1]):
        part.set_param("charset", charset)  # type: ignore[union-attr]
    warnings: list[str] = []
    doc = parse_bytes(bytes(message), warnings)
    assert "Body text, é." in doc.text
    assert "Attached text." in doc.text
    assert warnings == [
        f"m.eml: charset {charset!r} is not a text encoding; read as UTF-8",
        f"m.eml: attachment a.txt: charset {charset!r} is not a text encoding; read as UTF-8",
    ]


def test_long_headers_are_cut_before_parsing_and_metadata_is_capped() -> None:
    addresses = ", ".join(f"p{n}@example.org" for n in range(5000))
    data = f"From: a@example.org\nTo: {addresses}\nCc: c@example.org\n\nBody.\n".encode()
    warnings: list[str] = []
    doc = parse_bytes(data, warnings)
    assert len(warnings) == 1
    assert warnings[0].startswith(f"m.eml: the To header holds {len(addresses)} characters; ")
    assert warnings[0].endswith(" were read (limit 16384)")
    to = doc.metadata["to"]
    assert isinstance(to, str)
    assert to == addresses[:1000]
    assert doc.metadata["to_more"] > 10_000
    assert doc.metadata["cc"] == "c@example.org"
    assert "cc_more" not in doc.metadata
    shown = doc.text.split("\n")[1]
    assert shown.startswith("To: p0@example.org, p1@example.org")
    assert len(shown) <= 16_384 + len("To: ")
    assert shown.endswith(".org")  # cut between two addresses


def test_parentheses_nested_past_the_cap_are_dropped_with_a_warning() -> None:
    deep = "(" * 100 + "comment" + ")" * 100
    data = f"From: Ann {deep} <ann@example.org>\nSubject: Deep\n\nBody.\n".encode()
    warnings: list[str] = []
    doc = parse_bytes(data, warnings)
    assert warnings == [
        "m.eml: the From header nests parentheses 100 deep; those past 32 levels were dropped"
    ]
    assert doc.metadata["from"] == "Ann <ann@example.org>"
    assert "Body." in doc.text


def test_a_warning_deep_in_attached_messages_names_the_path_once() -> None:
    inner = EmailMessage()
    inner["Subject"] = "Inner"
    inner.set_content(b"bad \xff byte", maintype="text", subtype="plain", cte="8bit")
    middle = EmailMessage()
    middle["Subject"] = "Middle"
    middle.set_content("Middle.")
    middle.add_attachment(inner)
    outer = EmailMessage()
    outer["Subject"] = "Outer"
    outer.set_content("Outer.")
    outer.add_attachment(middle)
    outer.add_attachment(b"\x89PNG\r\n", maintype="image", subtype="png", filename="logo.png")
    warnings: list[str] = []
    parse_bytes(bytes(outer), warnings)
    assert warnings == [
        "m.eml: attachment part 1 > part 1: invalid utf-8 from byte 4; replaced with U+FFFD"
    ]
