"""Fuzz targets: bytes in, and the properties every parser and the markdown strategy must keep.

For any bytes, a parser either returns a Document or raises an ``InputError`` subclass (nothing
else: no ``KeyError`` from deep inside pypdf, no ``RecursionError``); it returns within
``TIME_LIMIT`` seconds; the Document is well formed (sections and pages inside the text and in
order, text that encodes as UTF-8); and chunking it gives no violation of SPEC §3
(``ragchunk.pipeline.check``). ``TARGETS`` maps a target's name to its function and the seed inputs
it starts from. Used by ``run.py`` (atheris, coverage-guided) and ``test_fuzz.py`` (Hypothesis and
the pinned regressions, in CI).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from ragchunk import parsers
from ragchunk.code.languages import names
from ragchunk.errors import InputError
from ragchunk.model import Document
from ragchunk.parsers._spec import DEFAULT_PARSE, PDF_ENGINES, ParseOptions, ParseRequest
from ragchunk.pipeline.check import find_differences, find_violations
from ragchunk.pipeline.deadline import TimedOut, time_limit
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import Plan, limits_for, make_plan
from ragchunk.settings import shortcuts
from tests.pending import settled

HERE = Path(__file__).resolve().parent
FIXTURES = HERE.parent.parent / "fixtures"
SEEDS = HERE / "seeds"
REGRESSIONS = HERE / "regressions"
TIME_LIMIT: Final = 10.0
LANGUAGES: Final = names()
MAX_BYTES: Final = 4 * 1024 * 1024
"""``--max-bytes`` under fuzzing: small, so a bomb the fuzzer builds is refused quickly."""


@dataclass(frozen=True, slots=True)
class Target:
    """A fuzz target: ``run(data)`` checks the properties; its seed files, by glob."""

    run: Callable[[bytes], None]
    seeds: tuple[str, ...]

    def seed_files(self) -> list[Path]:
        """Return the seed inputs: fixtures and the files under ``seeds/<name>/``."""
        paths = (p for glob in self.seeds for p in FIXTURES.parent.glob(glob) if p.is_file())
        return sorted(p for p in paths if not p.is_relative_to(FIXTURES) or settled(p))


@cache
def _plans(unit: str) -> tuple[Plan, ...]:
    return (
        make_plan(shortcuts({"strategy": "recursive", "size": 64, "overlap": 8, "unit": unit})),  # type: ignore[arg-type]
        make_plan(shortcuts({"strategy": "auto", "size": 80, "overlap": 0, "unit": unit})),  # type: ignore[arg-type]
    )


def check_document(doc: Document) -> None:
    """Assert the parser contract: spans inside the text and in order, UTF-8 encodable text."""
    length = len(doc.text)
    doc.text.encode("utf-8")  # raises on a lone surrogate: writers could not emit it
    previous = 0
    for section in doc.sections:
        assert 0 <= section.start <= section.end <= length, f"section {section} outside the text"
        assert section.start >= previous, f"section {section} starts before the one before"
        previous = section.start
    end = 0
    for page in doc.pages:
        assert end <= page.start <= page.end <= length, f"page {page} out of order"
        end = page.end


def check_chunks(doc: Document, plan: Plan) -> None:
    """Assert SPEC §3 for the plan's chunks of ``doc``, a second run included."""
    chunks = chunk_document(doc, plan.recipe)
    problems = find_violations(doc, chunks, limits_for(plan.recipe))
    problems += find_differences(chunks, chunk_document(doc, plan.recipe))
    assert not problems, f"{plan.recipe.strategy.name}: {problems[0]}"


def parse_and_check(
    fmt: str,
    data: bytes,
    source: str,
    *,
    unit: str = "chars",
    language: str | None = None,
    options: ParseOptions = DEFAULT_PARSE,
) -> None:
    """Parse ``data`` as ``fmt``; anything but ``InputError`` propagates; check what parses."""
    request = ParseRequest(
        source=source, doc_id=source, language=language, max_bytes=MAX_BYTES, options=options
    )
    parsers.detect("fuzz", data[:8], data)  # format detection never raises either
    try:
        with time_limit(TIME_LIMIT):
            try:
                doc = parsers.get(fmt).parse(data, request)
            except InputError:
                return
            check_document(doc)
            for plan in _plans(unit):
                check_chunks(doc, plan)
    except TimedOut:
        raise AssertionError(f"{fmt}: no answer within {TIME_LIMIT} s") from None


def markdown_strategy(data: bytes) -> None:
    """The first byte picks the size (8-263 chars, or tokens when odd), the rest is Markdown."""
    if not data:
        return
    size = 8 + data[0]
    unit = "tokens" if data[0] % 2 else "chars"
    request = ParseRequest(source="fuzz.md", doc_id="fuzz.md", max_bytes=MAX_BYTES)
    try:
        with time_limit(TIME_LIMIT):
            try:
                doc = parsers.get("markdown").parse(data[1:], request)
            except InputError:
                return
            plan = make_plan(
                shortcuts(
                    {"strategy": "markdown", "size": size, "overlap": size // 8, "unit": unit}
                )
            )  # type: ignore[arg-type]
            check_chunks(doc, plan)
    except TimedOut:
        raise AssertionError(f"markdown strategy: no answer within {TIME_LIMIT} s") from None


def code(data: bytes) -> None:
    """The first byte picks the language (of the 13), the rest is the source."""
    if data:
        language = LANGUAGES[data[0] % len(LANGUAGES)]
        parse_and_check("code", data[1:], "fuzz.code", language=language)


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_PACKAGE = "http://schemas.openxmlformats.org/package/2006"
_OFFICE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_STYLES = (
    f'<?xml version="1.0"?><w:styles xmlns:w="{_W}">'
    '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/>'
    "</w:style>"
    '<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/>'
    '<w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="Item"><w:name w:val="List Number"/>'
    '<w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>'
    '<w:style w:type="paragraph" w:styleId="LoopA"><w:name w:val="Loop A"/>'
    '<w:basedOn w:val="LoopB"/></w:style>'
    '<w:style w:type="paragraph" w:styleId="LoopB"><w:name w:val="Loop B"/>'
    '<w:basedOn w:val="LoopA"/><w:pPr><w:pageBreakBefore/></w:pPr></w:style>'
    "</w:styles>"
)
_SKELETON = {
    "[Content_Types].xml": (
        f'<?xml version="1.0"?><Types xmlns="{_PACKAGE}/content-types">'
        '<Default Extension="rels" ContentType="application/'
        'vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/word/document.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>'
        '<Override PartName="/word/styles.xml" ContentType="application/'
        'vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/></Types>'
    ),
    "_rels/.rels": (
        f'<?xml version="1.0"?><Relationships xmlns="{_PACKAGE}/relationships">'
        f'<Relationship Id="rId1" Type="{_OFFICE}/officeDocument" Target="word/document.xml"/>'
        "</Relationships>"
    ),
    "word/_rels/document.xml.rels": (
        f'<?xml version="1.0"?><Relationships xmlns="{_PACKAGE}/relationships">'
        f'<Relationship Id="rId1" Type="{_OFFICE}/styles" Target="styles.xml"/>'
        "</Relationships>"
    ),
    "word/styles.xml": _STYLES,
}


def docx_body(data: bytes) -> None:
    """``data`` is the ``word/document.xml`` of a small DOCX (styles with headings, a list
    style and a ``basedOn`` cycle): the fuzzer works on the XML, not on the zip around it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in _SKELETON.items():
            archive.writestr(name, text)
        archive.writestr("word/document.xml", data)
    parse_and_check("docx", buffer.getvalue(), "fuzz.docx")


def pdf_content(data: bytes) -> None:
    """``data`` is the content stream of a one-page PDF with two fonts (one maps byte 01 to
    three characters through ToUnicode) and an outline entry: both engines' text extraction
    and ragchunk's caps, cleaning and headings get the fuzzer's attention, not the xref table."""
    from tests.data.make_bad import _font_map, one_page, stream

    font = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>"
    pdf = one_page(
        stream(data),
        b"",
        _font_map(b"004100420043"),
        font,
        b"<< /Type /Outlines /First 9 0 R /Last 9 0 R /Count 1 >>",
        b"<< /Title (Hello) /Parent 8 0 R /Dest [4 0 R /Fit] >>",
        fonts=b"/F1 3 0 R /F2 7 0 R",
        catalog=b"/Outlines 8 0 R ",
    )
    pdf_both_engines(pdf)


def pdf_both_engines(data: bytes) -> None:
    """Parse a PDF with each engine (PDFium, the default, and pypdf) and check both."""
    for engine in PDF_ENGINES:
        parse_and_check("pdf", data, "fuzz.pdf", options=ParseOptions(pdf_engine=engine))


def mbox(data: bytes) -> None:
    """Each message of an mbox is parsed and checked on its own; the split never fails else."""
    from ragchunk.parsers.mbox import members

    request = ParseRequest(source="fuzz.mbox", doc_id="fuzz.mbox", max_bytes=MAX_BYTES)
    try:
        found = list(members(data, request))
    except InputError:
        return
    for member in found:
        parse_and_check(member.format, member.data, f"fuzz.mbox{member.name}")


def _parser(fmt: str, source: str) -> Callable[[bytes], None]:
    def run(data: bytes) -> None:
        parse_and_check(fmt, data, source)

    run.__name__ = f"parse_{fmt}"
    return run


TARGETS: dict[str, Target] = {
    "text": Target(_parser("text", "fuzz.txt"), ("fixtures/text/*", "tests/fuzz/seeds/text/*")),
    "markdown": Target(
        _parser("markdown", "fuzz.md"), ("fixtures/markdown/*", "tests/fuzz/seeds/markdown/*")
    ),
    "rst": Target(_parser("rst", "fuzz.rst"), ("fixtures/docs-site/docs/*.rst",)),
    "pdf": Target(pdf_both_engines, ("fixtures/pdf/*", "tests/fuzz/seeds/pdf/*")),
    "docx": Target(_parser("docx", "fuzz.docx"), ("fixtures/docx/*", "tests/fuzz/seeds/docx/*")),
    "code": Target(code, ("fixtures/code/*", "tests/fuzz/seeds/code/*")),
    "html": Target(_parser("html", "fuzz.html"), ("fixtures/html/*",)),
    "email": Target(_parser("email", "fuzz.eml"), ("fixtures/email/*.eml",)),
    "mbox": Target(mbox, ("fixtures/email/*.mbox",)),
    "csv": Target(_parser("csv", "fuzz.csv"), ("fixtures/tables/*.?sv",)),
    "xlsx": Target(_parser("xlsx", "fuzz.xlsx"), ("fixtures/tables/*.xlsx",)),
    "pptx": Target(_parser("pptx", "fuzz.pptx"), ("fixtures/pptx/*",)),
    "epub": Target(_parser("epub", "fuzz.epub"), ("fixtures/epub/*",)),
    "vtt": Target(_parser("vtt", "fuzz.vtt"), ("fixtures/transcripts/*.vtt",)),
    "srt": Target(_parser("srt", "fuzz.srt"), ("fixtures/transcripts/*.srt",)),
    "notebook": Target(_parser("notebook", "fuzz.ipynb"), ("fixtures/notebooks/*",)),
    "json": Target(_parser("json", "fuzz.json"), ("fixtures/data/*.json",)),
    "jsonl": Target(_parser("jsonl", "fuzz.jsonl"), ("fixtures/data/*.jsonl",)),
    "yaml": Target(_parser("yaml", "fuzz.yaml"), ("fixtures/data/*.yaml",)),
    "toml": Target(_parser("toml", "fuzz.toml"), ("fixtures/data/*.toml",)),
    "docx-body": Target(docx_body, ("tests/fuzz/seeds/docx-body/*",)),
    "pdf-content": Target(pdf_content, ("tests/fuzz/seeds/pdf-content/*",)),
    "markdown-strategy": Target(
        markdown_strategy, ("tests/fuzz/seeds/markdown-strategy/*", "fixtures/markdown/*")
    ),
}
"""Every fuzz target, by name."""
