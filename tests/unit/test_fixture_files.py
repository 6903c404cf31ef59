"""The fixtures written ahead of their parsers carry the defects fixtures/README.md says they do.

These tests read the files with general tools (pypdf, zipfile, lxml, the e-mail and csv
modules), not with ragchunk, so a rebuild that loses a defect is caught before a parser test
silently stops testing it.
"""

from __future__ import annotations

import csv
import email
import json
import mailbox
import re
import zipfile
from email import policy
from functools import cache
from pathlib import Path

import pypdf
import pytest
from lxml import etree

from tests.conftest import FIXTURES

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
REPORT = FIXTURES / "pdf" / "estuary-report.pdf"
HEADER = "Wend Estuary Water Quality: Annual Report 2023 14 March 2024"
WATERMARK = "PRELIMINARY DATA \u2013 NOT FOR CITATION"


@cache
def report_pages() -> tuple[str, ...]:
    return tuple(page.extract_text() for page in pypdf.PdfReader(REPORT).pages)


def xml(path: Path, part: str) -> etree._Element:
    with zipfile.ZipFile(path) as archive:
        return etree.fromstring(archive.read(part))


class TestEstuaryReport:
    def test_running_header_and_footer_on_every_page_but_the_cover(self) -> None:
        pages = report_pages()
        assert len(pages) == 8
        assert HEADER not in pages[0]
        for number, text in enumerate(pages[1:], start=2):
            assert text.startswith(HEADER + "\n")
            assert f"Wend Estuary Partnership Page {number} of 8" in text

    def test_watermark_on_the_annex_pages_only(self) -> None:
        marked = [n for n, text in enumerate(report_pages(), start=1) if WATERMARK in text]
        assert marked == [6, 7, 8]

    def test_header_is_set_larger_than_body_and_second_level_headings(self) -> None:
        sizes: dict[str, float] = {}

        def visit(text: str, cm: list[float], tm: list[float], _font: object, size: float) -> None:
            scale = (tm[0] ** 2 + tm[1] ** 2) ** 0.5 * (cm[0] ** 2 + cm[1] ** 2) ** 0.5
            sizes.setdefault(text.strip()[:12], round(size * scale, 1))

        pypdf.PdfReader(REPORT).pages[1].extract_text(visitor_text=visit)
        header, h2, body = sizes["Wend Estuary"], sizes["2.1 Sampling"], sizes["The Wend est"]
        assert (header, h2, body) == (14.0, 13.0, 12.0)

    def test_end_of_line_hyphenation_with_real_hyphens_elsewhere(self) -> None:
        text = "".join(report_pages())
        breaks = re.findall(r"([\w-]*\w)-\n(\w+)", text)
        assert len(breaks) >= 25
        assert ("well", "known") in breaks  # a real hyphen at a line end...
        assert "well-known" in text  # ...and the same word unbroken elsewhere
        assert ("Year-on", "year") in breaks
        assert "year-on-year" in text

    def test_ligature_code_points_survive_extraction(self) -> None:
        text = "".join(report_pages())
        assert {c for c in text if "\ufb00" <= c <= "\ufb06"} == set(
            "\ufb00\ufb01\ufb02\ufb03\ufb04"
        )

    def test_outline_differs_from_the_printed_headings(self) -> None:
        reader = pypdf.PdfReader(REPORT)
        titles = []
        pending = list(reader.outline)
        while pending:
            item = pending.pop(0)
            if isinstance(item, list):
                pending[:0] = item
            else:
                titles.append((item.title, reader.get_destination_page_number(item) + 1))
        assert titles[:3] == [
            ("1 introduction", 2),
            ("2 methods and data", 2),
            ("2.1 sampling sites", 2),
        ]
        assert len(titles) == 17
        printed = "".join(report_pages())
        assert "II. METHODS AND DATA" in printed
        assert "2 methods and data" not in printed
        assert "3.2\nNutrients and chlorophyll" in printed  # the number on its own line

    def test_the_scan_has_no_text_layer(self) -> None:
        reader = pypdf.PdfReader(FIXTURES / "pdf" / "inspection-letter-scan.pdf")
        assert len(reader.pages) == 2
        for page in reader.pages:
            assert page.extract_text().strip() == ""
            assert "/Font" not in page["/Resources"]
            assert len(page.images) == 1
        source = pypdf.PdfReader(FIXTURES / "pdf" / "inspection-letter.pdf")
        assert "Tanner's Reach sampling pontoon" in source.pages[0].extract_text()


class TestFieldHandbook:
    PATH = FIXTURES / "docx" / "field-handbook.docx"

    def test_notes_comments_and_their_references(self) -> None:
        body = xml(self.PATH, "word/document.xml")
        for kind, count in (("footnote", 2), ("endnote", 2)):
            notes = xml(self.PATH, f"word/{kind}s.xml").findall(f"{W}{kind}")
            assert len([n for n in notes if n.get(f"{W}type") is None]) == count
            assert len(body.findall(f".//{W}{kind}Reference")) == count
        assert len(xml(self.PATH, "word/comments.xml").findall(f"{W}comment")) == 1
        assert body.find(f".//{W}commentReference") is not None

    def test_content_outside_plain_runs(self) -> None:
        text = zipfile.ZipFile(self.PATH).read("word/document.xml").decode()
        assert text.count("<w:txbxContent>") == 5  # two DrawingML boxes with fallbacks + VML
        assert text.count("<m:oMath>") == 3
        assert "<m:oMathPara>" in text
        assert text.count("<w:sdt>") == 6
        assert "<w:showingPlcHdr/>" in text
        assert text.count("<w:hyperlink") == 2
        assert "HYPERLINK" in text
        assert "<w:ins " in text
        assert "<w:delText" in text

    def test_an_empty_table_and_a_table_with_empty_rows(self) -> None:
        tables = xml(self.PATH, "word/document.xml").findall(f".//{W}tbl")
        empty_rows = [
            sum(not "".join(row.itertext()).strip() for row in table.findall(f"{W}tr"))
            for table in tables
        ]
        assert empty_rows == [3, 3]
        assert len(tables[0].findall(f"{W}tr")) == 3
        assert len(tables[1].findall(f"{W}tr")) == 7


def test_docs_site_has_the_markup_issue_13_names() -> None:
    site = FIXTURES / "docs-site"
    pages = {p.relative_to(site).as_posix(): p.read_text() for p in site.rglob("*.md")}
    joined = "\n".join(pages.values())
    assert "## Request Body { #request-body }" in joined
    assert re.search(r"^!!! \w+", joined, re.MULTILINE)
    assert re.search(r"^///$", joined, re.M)
    assert "<div" in joined
    assert "</div>" in joined
    assert "docs/tutorial/first-steps.md" in pages
    assert "archive/v1/tutorial/first-steps.md" in pages
    rst = (site / "docs" / "contributing.rst").read_text()
    assert "Development setup\n=================" in rst
    assert "Type hints\n~~~~~~~~~~" in rst


def test_html_pages() -> None:
    news = (FIXTURES / "html" / "harbour-news.html").read_text()
    for tag in ("<nav", "<header", "<footer", "<aside", "<template", "<noscript", "<script"):
        assert tag in news
    assert 'id="cookie-banner"' in news
    assert "<p hidden>" in news
    assert "display:none" in news
    assert '<link rel="canonical"' in news
    assert '<meta name="author"' in news
    legacy = (FIXTURES / "html" / "tide-api.htm").read_bytes()
    assert b"charset=windows-1252" in legacy
    assert b"\x85" in legacy
    assert b"\x96" in legacy
    with pytest.raises(UnicodeDecodeError):
        legacy.decode("utf-8")
    etree.parse(str(FIXTURES / "html" / "notice.xhtml"))


def test_deck_has_a_hidden_slide_notes_and_boxes_out_of_reading_order() -> None:
    path = FIXTURES / "pptx" / "results-briefing.pptx"
    names = zipfile.ZipFile(path).namelist()
    assert len([n for n in names if re.fullmatch(r"ppt/slides/slide\d+\.xml", n)]) == 8
    assert len([n for n in names if re.fullmatch(r"ppt/notesSlides/notesSlide\d+\.xml", n)]) == 4
    assert xml(path, "ppt/slides/slide5.xml").get("show") == "0"
    a = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
    tops = [int(off.get("y")) for off in xml(path, "ppt/slides/slide3.xml").iter(f"{a}off")]
    assert tops[0] > tops[1]  # the first text box added sits below the next one


def test_epub_spine_nav_and_metadata() -> None:
    path = FIXTURES / "epub" / "estuary-year.epub"
    archive = zipfile.ZipFile(path)
    first = archive.infolist()[0]
    assert (first.filename, first.compress_type) == ("mimetype", zipfile.ZIP_STORED)
    opf = archive.read("EPUB/content.opf").decode()
    assert "<dc:title>The Estuary Year</dc:title>" in opf
    assert "<dc:language>en-GB" in opf
    assert opf.index('idref="contents"') < opf.index('idref="chapter-01"')
    assert opf.index('idref="chapter-06"') < opf.index('idref="index"')
    nav = archive.read("EPUB/nav.xhtml").decode()
    assert nav.count(">Chapter ") == 6
    assert "Chapter 1. The Weir in Flood" in nav


def test_messages_and_the_mailbox() -> None:
    folder = FIXTURES / "email"
    results = email.message_from_bytes(
        (folder / "results-with-attachments.eml").read_bytes(), policy=policy.default
    )
    attachments = [(a.get_content_type(), a.get_filename()) for a in results.iter_attachments()]
    assert attachments == [
        ("text/csv", "june-readings.csv"),
        ("text/plain", "Pr\u00fcfprotokoll-logger.txt"),
        ("message/rfc822", "Optical cap replacement.eml"),
    ]
    html_only = email.message_from_bytes(
        (folder / "newsletter.eml").read_bytes(), policy=policy.default
    )
    assert html_only.get_content_type() == "text/html"
    notice = email.message_from_bytes(
        (folder / "latin1-notice.eml").read_bytes(), policy=policy.default
    )
    assert notice.get_content_charset() == "iso-8859-1"
    assert "\x96" in str(notice["subject"])
    box = mailbox.mbox(folder / "harbour-list.mbox", create=False)
    try:
        charsets = [m.get_content_charset() for m in box]
    finally:
        box.close()
    assert charsets == ["utf-8", "utf-8", "windows-1252", "utf-8"]
    assert b"\n>From Thursday" in (folder / "harbour-list.mbox").read_bytes()


def test_tables() -> None:
    folder = FIXTURES / "tables"
    raw = (folder / "faq.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    assert b"\r\n" in raw
    with (folder / "faq.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["question", "answer", "category"]
    assert len(rows) == 9
    assert any("\n" in row[1] for row in rows)
    with (folder / "stations-semicolon.csv").open(encoding="utf-8", newline="") as handle:
        assert {len(row) for row in csv.reader(handle, delimiter=";")} == {7}
    sheets = xml(folder / "survey-workbook.xlsx", "xl/workbook.xml")
    ns = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
    assert [s.get("name") for s in sheets.iter(f"{ns}sheet")] == ["Questions", "Readings"]


def test_templates() -> None:
    folder = FIXTURES / "templates"
    contract = (folder / "services-agreement.txt").read_text()
    for mark in ("ARTICLE 1 \u2013", "\n1.1  ", "\n    2.3.1  ", "(a) ", "(iii) ", "\u00a7 1 "):
        assert mark in contract
    assert "SCHEDULE 3 \u2013 DATA PROCESSING TERMS" in contract
    numbering = zipfile.ZipFile(folder / "services-agreement.docx").read("word/numbering.xml")
    assert b'w:val="ARTICLE %1"' in numbering
    assert b'w:val="%1.%2.%3"' in numbering
    body = "".join(xml(folder / "services-agreement.docx", "word/document.xml").itertext())
    assert "ARTICLE 1" not in body
    assert "Definitions." in body
    book = (folder / "estuary-year.txt").read_text()
    assert book.index("CONTENTS") < book.index("CHAPTER I\n") < book.index("\nINDEX\n")
    paper = (folder / "basin-oxygen-paper.md").read_text()
    assert paper.index("## Abstract") < paper.index("## References") < paper.index("## Appendix")
    pdf = pypdf.PdfReader(folder / "basin-oxygen-paper.pdf")
    assert [item.title for item in pdf.outline if not isinstance(item, list)][:2] == [
        "Abstract",
        "1 Introduction",
    ]
    cv = "".join(
        page.extract_text() for page in pypdf.PdfReader(folder / "cv-maren-holloway.pdf").pages
    )
    for section in ("Profile", "Experience", "Education", "Skills", "Languages"):
        assert section in cv


def test_transcripts_notebook_and_data_files() -> None:
    talk = (FIXTURES / "transcripts" / "talk.vtt").read_text(encoding="utf-8")
    for mark in ("WEBVTT The Rising", "\nNOTE ", "\nSTYLE\n", "<v.question Tom Ashby>", "&amp;"):
        assert mark in talk
    assert "\n01:00:00.000 --> 01:00:06.250\n" in talk
    assert "align:start position:10%" in talk
    film = (FIXTURES / "transcripts" / "harbour-film.srt").read_bytes()
    assert b"\r\n00:00:01,000 --> 00:00:04,500\r\n{\\an8}<i>" in film
    notebook = json.loads((FIXTURES / "notebooks" / "tide-analysis.ipynb").read_text("utf-8"))
    kinds = [o["output_type"] for c in notebook["cells"] for o in c.get("outputs", [])]
    assert kinds == ["stream", "execute_result", "error", "display_data"]
    assert notebook["metadata"]["kernelspec"]["language"] == "python"
    config = (FIXTURES / "data" / "config.yaml").read_text(encoding="utf-8")
    for mark in ("&defaults", "<<: *defaults", "ports: [502, 8080]", "summary: >", "runbook: |"):
        assert mark in config
    pyproject = (FIXTURES / "data" / "pyproject.toml").read_text(encoding="utf-8")
    assert pyproject.count("[[tool.gauges.site]]") == 2
    assert 'notes = """' in pyproject
    lines = (FIXTURES / "data" / "events.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["event"] for line in lines] == ["reading", "gap", "alert", "reading"]
