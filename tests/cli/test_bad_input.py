"""Bad PDF, DOCX and Markdown input (SPEC §6): one line naming the file and cause, exit 1, and
the good inputs of the same run still written. Hostile files are built here, in tmp_path."""

from __future__ import annotations

import io
import json
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pypdf
import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from ragchunk.errors import CorruptDocumentError, LimitExceededError
from ragchunk.parsers import _archive
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.docx import parse as parse_docx
from tests.conftest import FIXTURES

runner = CliRunner()
NOTES = FIXTURES / "text" / "field-notes.txt"
PDF = FIXTURES / "pdf" / "report-outline.pdf"
DOCX = FIXTURES / "docx" / "memo.docx"


def encrypted_pdf() -> bytes:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(PDF.read_bytes()))
    writer.encrypt("secret", algorithm="AES-256")
    buffer = io.BytesIO()
    writer.write(buffer)
    return buffer.getvalue()


def rewritten_docx(change: Callable[[str, bytes, zipfile.ZipFile], bytes | None]) -> bytes:
    """Copy the memo DOCX member by member through ``change`` (None drops a member)."""
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(DOCX.read_bytes())) as source,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as out,
    ):
        for info in source.infolist():
            body = change(info.filename, source.read(info.filename), out)
            if body is not None:
                out.writestr(info.filename, body)
    return buffer.getvalue()


def entity_bomb_docx() -> bytes:
    lol = "".join(f'<!ENTITY l{n} "{f"&l{n - 1};" * 10}">' for n in range(1, 10))
    prolog = f'<?xml version="1.0"?>\n<!DOCTYPE w [<!ENTITY l0 "lol">{lol}]>'.encode()

    def change(name: str, body: bytes, _out: zipfile.ZipFile) -> bytes:
        if name != "word/document.xml":
            return body
        return prolog + body[body.index(b"?>") + 2 :].replace(b"Gauge Memo", b"&l9;", 1)

    return rewritten_docx(change)


def zip_bomb_docx() -> bytes:
    def change(name: str, body: bytes, out: zipfile.ZipFile) -> bytes:
        if name == "word/document.xml":
            out.writestr("word/media/zeros.bin", bytes(8 * 1024 * 1024))
        return body

    return rewritten_docx(change)


def no_document_docx() -> bytes:
    return rewritten_docx(lambda name, body, _out: None if name == "word/document.xml" else body)


CASES = {
    "pdf-corrupt": (
        "bad.pdf",
        lambda: b"%PDF-1.7\n" + b"\x00garbage\xff" * 100,
        "corrupt or truncated PDF: Stream has ended unexpectedly",
    ),
    "pdf-truncated": (
        "cut.pdf",
        lambda: PDF.read_bytes()[: len(PDF.read_bytes()) // 2],
        "corrupt or truncated PDF: Stream has ended unexpectedly",
    ),
    "pdf-no-header": ("fake.pdf", lambda: b"<html>not a pdf</html>", "not a PDF (no %PDF- header)"),
    "pdf-empty": ("empty.pdf", lambda: b"", "empty file, not a PDF"),
    "pdf-encrypted": (
        "locked.pdf",
        encrypted_pdf,
        "encrypted PDF: a password is needed (give it with --password)",
    ),
    "docx-not-zip": ("notes.docx", lambda: b"plain text, not a zip\n", "not a DOCX (zip) file"),
    "docx-empty": ("empty.docx", lambda: b"", "empty file, not a DOCX"),
    "docx-truncated": (
        "cut.docx",
        lambda: DOCX.read_bytes()[: len(DOCX.read_bytes()) // 2],
        "corrupt DOCX: truncated or damaged zip archive (File is not a zip file)",
    ),
    "docx-ole": (
        "old.docx",
        lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512),
        "encrypted or legacy Word file (OLE container), not a DOCX",
    ),
    "docx-no-document": (
        "hollow.docx",
        no_document_docx,
        "not a DOCX: the zip has no word/document.xml",
    ),
    "docx-entity-bomb": (
        "lol.docx",
        entity_bomb_docx,
        "refused: word/document.xml declares a DOCTYPE or entities (XML entity bomb?)",
    ),
    "docx-zip-bomb": (
        "zeros.docx",
        zip_bomb_docx,
        "refused: word/media/zeros.bin expands more than 200 times (8388608 bytes; a zip bomb?)",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input_fails_alone_with_one_line(case: str, tmp_path: Path) -> None:
    name, make, cause = CASES[case]
    bad = tmp_path / name
    bad.write_bytes(make())
    good = tmp_path / "good.md"
    good.write_text("# Good\n\nThis file is fine.\n", encoding="utf-8")
    began = time.perf_counter()
    result = runner.invoke(app, ["split", str(good), str(bad), str(NOTES), "--size", "200"])
    assert time.perf_counter() - began < 30
    assert result.exit_code == 1
    assert result.stderr == f"error: {bad}: {cause}\n"
    sources = {json.loads(line)["source"] for line in result.stdout.splitlines()}
    assert sources == {str(good), str(NOTES)}


def test_password_flag_opens_the_encrypted_pdf(tmp_path: Path) -> None:
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_pdf())
    result = runner.invoke(app, ["split", str(locked), "--password", "secret", "--size", "300"])
    assert result.exit_code == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert records[0]["text"].startswith("This report records the maintenance")
    assert records[-1]["page_end"] == 3


def test_wrong_password_names_the_cause(tmp_path: Path) -> None:
    locked = tmp_path / "locked.pdf"
    locked.write_bytes(encrypted_pdf())
    result = runner.invoke(app, ["split", str(locked), "--password", "nope"])
    assert result.exit_code == 1
    assert result.stderr == (
        f"error: {locked}: encrypted PDF: the password given with --password is wrong\n"
    )
    assert result.stdout == ""


def test_two_failures_get_a_summary_naming_each(tmp_path: Path) -> None:
    (tmp_path / "a.docx").write_bytes(b"nope")
    (tmp_path / "b.pdf").write_bytes(b"")
    result = runner.invoke(app, ["split", str(tmp_path / "a.docx"), str(tmp_path / "b.pdf")])
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[:2] == [
        f"error: {tmp_path / 'a.docx'}: not a DOCX (zip) file",
        f"error: {tmp_path / 'b.pdf'}: empty file, not a PDF",
    ]
    assert "2 inputs failed" in result.stderr


def test_docx_expanding_past_max_bytes_is_refused() -> None:
    request = ParseRequest(source="big.docx", max_bytes=10_000)
    with pytest.raises(LimitExceededError) as caught:
        parse_docx(DOCX.read_bytes(), request)
    assert str(caught.value).startswith("big.docx: refused: the zip would expand to ")
    assert str(caught.value).endswith(" bytes (limit 10000)")


def test_docx_with_too_many_members_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_archive, "MAX_MEMBERS", 5)
    with pytest.raises(LimitExceededError) as caught:
        parse_docx(DOCX.read_bytes(), ParseRequest(source="many.docx"))
    assert str(caught.value).startswith("many.docx: refused: the zip holds ")
    assert str(caught.value).endswith(" members (limit 5)")


def test_malformed_xml_in_a_docx_is_corrupt() -> None:
    def change(name: str, body: bytes, _out: zipfile.ZipFile) -> bytes:
        return body[: len(body) // 2] if name == "word/document.xml" else body

    with pytest.raises(CorruptDocumentError) as caught:
        parse_docx(rewritten_docx(change), ParseRequest(source="half.docx"))
    assert str(caught.value).startswith("half.docx: corrupt DOCX: ")
    assert "\n" not in str(caught.value)


def test_pathological_markdown_is_chunked_in_bounded_time(tmp_path: Path) -> None:
    deep = tmp_path / "deep.md"
    deep.write_text("> " * 20_000 + "bottom\n\n" + "[" * 50_000 + "\n", encoding="utf-8")
    began = time.perf_counter()
    result = runner.invoke(app, ["split", str(deep), "--size", "500"])
    assert time.perf_counter() - began < 30
    assert result.exit_code == 0, result.stderr
    covered = "".join(json.loads(line)["text"] for line in result.stdout.splitlines())
    assert "bottom" in covered


def test_empty_markdown_gives_no_chunks_and_no_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.md"
    empty.write_bytes(b"")
    result = runner.invoke(app, ["split", str(empty)])
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == ""
