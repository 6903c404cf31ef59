"""E-mail as its authors meant it: forwarded message/news parts, wrapped plain text, warnings."""

from __future__ import annotations

import re

import pytest

from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.email import parse
from ragchunk.pipeline.check import find_violations
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import limits_for, make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES

MAIL = FIXTURES / "email"


def read(name: str, warnings: list[str] | None = None, **options: object) -> Document:
    sink = [] if warnings is None else warnings
    request = ParseRequest(source=name, warn=lambda _code, message: sink.append(message))
    if options:
        from dataclasses import replace

        request = replace(request, options=replace(request.options, **options))
    return parse((MAIL / name).read_bytes(), request)


def test_a_forwarded_message_news_part_is_read_as_a_message() -> None:
    warnings: list[str] = []
    doc = read("forwarded-news.eml", warnings)
    assert "left_out" not in doc.metadata
    assert "Places are limited to twenty on each walk." in doc.text
    inner = [s for s in doc.sections if s.metadata.get("part") == "forwarded:1"]
    heading = next(s for s in inner if s.kind == "heading")
    assert doc.text[heading.start : heading.end] == (
        "Forwarded message: Spring guided walks on the Wend estuary"
    )
    headers = next(s for s in inner if s.kind == "headers")
    assert doc.text[headers.start : headers.end].startswith(
        "From: Wend Estuary Partnership <office@wend-estuary.example>"
    )
    body = [s for s in inner if s.kind == "prose"]
    assert len(body) == 4
    assert all(s.headings[-1] == heading.headings[-1] for s in body)
    assert warnings == []


def sentence_ends(doc: Document, strategy: str, size: int) -> float:
    plan = make_plan(shortcuts({"strategy": strategy, "size": size, "overlap": 0}))
    chunks = chunk_document(doc, plan.recipe)
    assert find_violations(doc, chunks, limits_for(plan.recipe), []) == []
    ends = []
    for chunk in chunks:
        end = chunk.start + len(chunk.text.rstrip())
        after = doc.text[end : end + 2]
        ends.append(bool(re.search(r"[.!?:]$", chunk.text.rstrip())) or after in ("\n\n", ""))
    return sum(ends) / len(ends)


@pytest.mark.parametrize("strategy", ["recursive", "auto"])
@pytest.mark.parametrize("size", [200, 300, 400])
def test_hard_wrapped_mail_is_reflowed_so_chunks_end_at_sentences(strategy: str, size: int) -> None:
    doc = read("wrapped-field-report.eml")
    assert "was under water for most of Tuesday. All twelve sites" in doc.text
    assert sentence_ends(doc, strategy, size) >= 0.8


def test_quotes_lists_and_signatures_keep_their_lines() -> None:
    doc = read("wrapped-field-report.eml")
    assert (
        "  1. Start at the tidal limit and work upstream, so the last sites are the ones"
        " nearest the road.\n  2. Take" in doc.text
    )
    quote = next(s for s in doc.sections if s.kind == "quote")
    lines = doc.text[quote.start : quote.end].split("\n")
    assert lines[0].endswith("wrote:")
    assert len(lines) > 3
    assert all(line.startswith("> ") for line in lines[1:])
    signature = next(s for s in doc.sections if s.kind == "signature")
    assert doc.text[signature.start : signature.end].split("\n")[1:] == [
        "Owen Pryce | Field officer | Saltmarsh Consulting",
        "07700 900 411",
    ]
    assert "Thanks to everyone who stood in cold water for this one.\n\nOwen\n\n" in doc.text


def test_keep_linebreaks_keeps_the_wraps_and_lists_them() -> None:
    doc = read("wrapped-field-report.eml", keep=frozenset({"linebreaks"}))
    assert "was under water\nfor most of Tuesday." in doc.text
    assert doc.wraps
    assert all(doc.text[w] == "\n" for w in doc.wraps)
    assert doc.text.index("was under water\nfor") + len("was under water") in doc.wraps


@pytest.mark.parametrize(
    "header", [b"To: a@[", b"From: =?x?q??=", b"Message-ID: <", b"To: =?utf-8?b?AAAA?= <"]
)
def test_a_malformed_header_warning_is_one_clear_line_without_python_text(header: bytes) -> None:
    data = b"Subject: Plan\r\n" + header + b"\r\n\r\nBody.\r\n"
    warnings: list[str] = []
    request = ParseRequest(source="m.eml", warn=lambda _c, m: warnings.append(m))
    parse(data, request)
    name = header.split(b":")[0].decode()
    assert warnings == [f"m.eml: malformed {name} header read as is"]


@pytest.mark.parametrize("name", ["latin1-notice.eml", "results-with-attachments.eml"])
def test_mail_that_is_not_hard_wrapped_keeps_its_short_lines(name: str) -> None:
    doc = read(name)
    closing = "Muchas gracias,\nJosé Núñez" if name.startswith("latin1") else "Kind regards,\n"
    assert closing in doc.text


def test_a_damaged_part_is_named_in_words_not_by_a_python_class() -> None:
    data = (
        b"Subject: x\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n"
        b"SGVsbG8gd29ybGQ=x\r\n"
    )
    warnings: list[str] = []
    parse(data, ParseRequest(source="m.eml", warn=lambda _c, m: warnings.append(m)))
    assert warnings == ["m.eml: damaged part read as is (invalid base64 characters)"]
