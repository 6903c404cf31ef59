"""ragchunk inspect: the sections table, --text exactly, --format, --password and errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pypdf
import pytest
from typer.testing import CliRunner

from ragchunk.cli import app
from tests.conftest import FIXTURES
from tests.pending import settled

runner = CliRunner()
SUFFIXES = {".txt", ".md", ".pdf", ".docx", ".html", ".htm", ".xhtml", ".pptx", ".eml", ".csv"}
SUFFIXES |= {
    ".tsv",
    ".xlsx",
    ".epub",
    ".vtt",
    ".srt",
    ".ipynb",
    ".json",
    ".jsonl",
    ".yaml",
    ".toml",
}
DOCUMENTS = sorted(
    path
    for path in FIXTURES.rglob("*")
    if path.is_file() and path.suffix in SUFFIXES and settled(path)
)
GUIDE = FIXTURES / "markdown" / "station-guide.md"
REPORT_PDF = FIXTURES / "pdf" / "report-outline.pdf"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_text_is_what_chunk_offsets_index_into(document: Path) -> None:
    shown = runner.invoke(app, ["inspect", str(document), "--text"])
    assert shown.exit_code == 0, shown.stderr
    assert shown.stderr == ""
    split = runner.invoke(app, ["split", str(document), "--size", "200", "--overlap", "20"])
    assert split.exit_code == 0, split.stderr
    records = [json.loads(line) for line in split.stdout.splitlines()]
    assert records
    for record in records:
        assert shown.stdout[record["start"] : record["end"]] == record["text"]
    assert records[-1]["end"] <= len(shown.stdout)


def test_markdown_text_is_the_file_verbatim() -> None:
    shown = runner.invoke(app, ["inspect", str(GUIDE), "--text"])
    assert shown.stdout == GUIDE.read_text(encoding="utf-8")


def test_table_lists_sections_with_kind_headings_span_and_lines(tmp_path: Path) -> None:
    source = tmp_path / "small.md"
    source.write_text("# Top\n\nSome [text].\n\n## Sub\n\n- a\n- b\n", encoding="utf-8")
    result = runner.invoke(app, ["inspect", str(source)], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].rstrip() == f"{source} · markdown · 37 chars · 4 sections"
    rows = [line for line in lines if line.startswith("│")]
    cells = [[cell.strip() for cell in row.strip("│").split("│")] for row in rows]
    assert cells == [
        ["0", "heading 1", "Top", "0–5", "1", "# Top"],
        ["1", "prose", "Top", "7–19", "3", "Some [text]."],
        ["2", "heading 2", "Top › Sub", "21–27", "5", "## Sub"],
        ["3", "list", "Top › Sub", "29–36", "7–8", "- a - b"],
    ]
    assert "pages" not in result.stdout


def test_table_for_a_pdf_shows_pages_and_metadata() -> None:
    result = runner.invoke(app, ["inspect", str(REPORT_PDF)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines()[0].rstrip() == (
        f"{REPORT_PDF} · pdf · 2000 chars · 25 sections · 3 pages"
    )
    rows = [line for line in result.stdout.splitlines() if line.startswith("│")]
    table = [cell.strip() for cell in rows[9].strip("│").split("│")]
    assert table[:5] == ["9", "table", "Network overview › Instruments", "1", "714–990"]
    first_on_page_2 = [cell.strip() for cell in rows[10].strip("│").split("│")]
    assert first_on_page_2[:5] == ["10", "heading 1", "Maintenance in 2024", "2", "992–1011"]
    assert "lines" not in result.stdout.splitlines()[2]
    assert "author: Coastal Observations Unit" in result.stdout
    assert "page sizes: 612 × 792 pt (1–3)" in result.stdout


def test_format_forces_the_parser() -> None:
    result = runner.invoke(app, ["inspect", str(GUIDE), "--format", "text"])
    assert result.exit_code == 0
    assert result.stdout.splitlines()[0].rstrip() == f"{GUIDE} · text · 5320 chars · 0 sections"


def test_unknown_format_is_a_usage_error() -> None:
    result = runner.invoke(app, ["inspect", str(GUIDE), "--format", "markdwn"])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: --format ")
    assert "markdown" in result.stderr


def test_encrypted_pdf_without_password_is_one_line_and_exit_1(tmp_path: Path) -> None:
    writer = pypdf.PdfWriter(clone_from=io.BytesIO(REPORT_PDF.read_bytes()))
    writer.encrypt("secret", algorithm="AES-256")
    locked = tmp_path / "locked.pdf"
    with locked.open("wb") as handle:
        writer.write(handle)
    result = runner.invoke(app, ["inspect", str(locked), "--text"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"error: {locked}: encrypted PDF: a password is needed (give it with --password)\n"
    )
    opened = runner.invoke(app, ["inspect", str(locked), "--text", "--password", "secret"])
    assert opened.exit_code == 0
    plain = runner.invoke(app, ["inspect", str(REPORT_PDF), "--text"])
    assert opened.stdout == plain.stdout


def test_warnings_go_to_stderr_and_the_text_stays_exact(tmp_path: Path) -> None:
    source = tmp_path / "latin1.md"
    source.write_bytes(b"# Caf\xe9\n")
    result = runner.invoke(app, ["inspect", str(source), "--text"])
    assert result.exit_code == 0
    assert result.stdout == "# Caf\ufffd\n"
    assert result.stderr == (
        f"warning: {source}: invalid UTF-8 from byte 5; 1 sequence(s) replaced with U+FFFD\n"
    )


def test_missing_file_is_exit_1() -> None:
    result = runner.invoke(app, ["inspect", "no/such/file.md"])
    assert result.exit_code == 1
    assert result.stderr.startswith("error: no/such/file.md: cannot read (")


def test_what_pdf_cleaning_removed_is_listed_per_page() -> None:
    report = FIXTURES / "pdf" / "estuary-report.pdf"
    result = runner.invoke(app, ["inspect", str(report)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("removed: 17 on 7 page(s)")
    header = '"Wend Estuary Water Quality: Annual Report 2023 14 March 2024"'
    watermark = '"PRELIMINARY DATA \u2013 NOT FOR CITATION"'
    assert (
        lines[start + 1]
        == f'  page 2: header {header} · footer "Wend Estuary Partnership Page 2 of 8"'
    )
    assert lines[start + 7] == (
        f'  page 8: header {header} · footer "Wend Estuary Partnership Page 8 of 8" · '
        f"watermark {watermark}"
    )
    summary = next(line for line in lines if line.startswith("extraction: "))
    assert "engine: pdfium" in summary
    assert "hyphens_joined: " in summary


def test_keep_headers_keeps_them_and_reports_nothing_removed() -> None:
    report = FIXTURES / "pdf" / "estuary-report.pdf"
    args = ["inspect", str(report), "--keep", "headers", "--keep", "watermarks", "--text"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    assert result.stdout.count("Annual Report 2023 14 March 2024") == 7


def test_docx_parts_left_out_are_named() -> None:
    handbook = FIXTURES / "docx" / "field-handbook.docx"
    result = runner.invoke(app, ["inspect", str(handbook)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    start = lines.index("left_out: 5")
    assert lines[start + 1 : start + 6] == [
        "  comments part word/comments.xml count 1",
        '  footer part word/footer1.xml "Wend Estuary Partnership \u2013 page 1"',
        "  header part word/header1.xml "
        '"Field Handbook for Estuary Surveys \u2013 for survey crews only"',
        "  deleted part word/document.xml count 2",
        "  placeholder part word/document.xml count 1",
    ]


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--pdf-engine", "mupdf", "--pdf-engine must be one of pdfium, pypdf (got 'mupdf')"),
        ("--ocr", "yes", "--ocr must be one of off, auto, all (got 'yes')"),
        (
            "--keep",
            "footers",
            "--keep must be among headers, watermarks, hyphens, ligatures, linebreaks",
        ),
    ],
)
def test_bad_parse_flags_are_usage_errors(flag: str, value: str, message: str) -> None:
    result = runner.invoke(app, ["inspect", str(REPORT_PDF), flag, value])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {message}")


def test_a_file_name_and_headings_reach_the_terminal_escaped(tmp_path: Path) -> None:
    """Control characters in the name or the text are shown as escapes, never sent raw."""
    source = tmp_path / "a\x1b[2Jb.md"
    source.write_text("# Title \x1b]0;owned\x07\n\nBody \x1b[31mred.\n", encoding="utf-8")
    result = runner.invoke(app, ["inspect", str(source)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.stderr
    assert "\x1b" not in result.stdout
    assert "\x07" not in result.stdout
    first = result.stdout.splitlines()[0].rstrip()
    assert first == f"{tmp_path}/a\\x1b[2Jb.md · markdown · 35 chars · 2 sections"
    assert "Title \\x1b]0;owned\\x07" in result.stdout


def test_the_header_line_of_each_document_is_escaped_with_text(tmp_path: Path) -> None:
    source = tmp_path / "m\x1b[2J.mbox"
    source.write_bytes(b"From a\nSubject: One\n\nFirst.\nFrom b\nSubject: Two\n\nSecond.\n")
    result = runner.invoke(app, ["inspect", str(source), "--text"])
    assert result.exit_code == 0, result.stderr
    assert f"==> {tmp_path}/m\\x1b[2J.mbox#1 <==" in result.stdout
    assert "\x1b" not in result.stdout
