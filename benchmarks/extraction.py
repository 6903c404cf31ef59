"""PDF extraction benchmark (issue 12): PDFs made from known sources, read back and scored.

Run from the repository root (LibreOffice's ``soffice`` and the fonts of fixtures/README.md
installed; ``pip install -e '.[bench]'`` for the peer)::

    python benchmarks/extraction.py                  # build the corpus once, print the table
    python benchmarks/extraction.py --update-readme  # also write it into benchmarks/README.md

The corpus (written to the git-ignored ``benchmarks/corpus/extraction/``): six source documents
(a report, a paper, a book, a contract, a station guide and Git's README, from the fixtures), each
set by LibreOffice as an A4 PDF in C059 (a serif font with ligatures), justified with automatic
hyphenation, a running header (title and date) and a footer (organisation, page N of M); three of
them also in two columns; and the estuary report fixture (``fixtures/pdf/estuary-report.pdf``).
The words of each source are the ground truth; the header and footer are not part of it, so text
that keeps them loses precision.

Each contestant's text is scored with ``extraction_metrics``: word precision, recall and F1
against the source, words run together, and the share of chunks ending at a sentence end when
the text is chunked with ragchunk's ``recursive`` (default, 512 characters, overlap 50) and
``auto`` strategies. Speed is pages per second over the whole corpus, the best of ``--repeat``
runs, extraction and cleaning included, in this process.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "fixtures")]

from benchmarks.extraction_metrics import merged_words, sentence_final, word_scores  # noqa: E402

FIXTURES = ROOT / "fixtures"
CORPUS = ROOT / "benchmarks" / "corpus" / "extraction"
README = ROOT / "benchmarks" / "README.md"
START, END = "<!-- extraction:start -->", "<!-- extraction:end -->"
Block = tuple[str, str]  # ("h", heading) or ("p", paragraph)


@dataclass(frozen=True, slots=True)
class Source:
    """A source document: its name, title (for the running header) and blocks."""

    name: str
    title: str
    blocks: tuple[Block, ...]

    @property
    def text(self) -> str:
        """The ground truth: every block's words, in order."""
        return "\n\n".join(text for _, text in self.blocks)


# --- sources ---------------------------------------------------------------------------------


def _report() -> Source:
    from builders import report_text

    blocks: list[Block] = [("p", line) for line in report_text.TITLE_PAGE]
    blocks += [("h", "Summary"), ("p", report_text.SUMMARY)]

    def walk(items: list[tuple[str, object]]) -> Iterator[Block]:
        for kind, value in items:
            if kind in ("h1", "h2"):
                yield "h", " ".join(str(value).split())
            elif kind in ("p", "quote"):
                yield "p", str(value)
            elif kind == "list":
                yield from (("p", str(item)) for item in value)  # type: ignore[attr-defined]
            elif kind == "table":
                yield from (("p", " ".join(row)) for row in value)  # type: ignore[attr-defined]
            elif kind == "columns":
                yield from walk(value)  # type: ignore[arg-type]

    blocks += list(walk(report_text.BODY))
    return Source("report", report_text.HEADER_TITLE, tuple(blocks))


def _markdown(path: Path, name: str) -> Source:
    """Headings, paragraphs and list items of a Markdown file (code, tables and HTML left out)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    blocks: list[Block] = []
    kind = "p"
    for token in tokens:
        if token.type == "heading_open":
            kind = "h"
        elif token.type == "paragraph_open":
            kind = "p"
        elif token.type == "inline" and token.children is not None:
            text = "".join(
                child.content if child.type in ("text", "code_inline") else " "
                for child in token.children
                if child.type in ("text", "code_inline", "softbreak", "hardbreak")
            )
            text = " ".join(text.split())
            if text:
                blocks.append((kind, text))
    title = next((text for kind, text in blocks if kind == "h"), name)
    return Source(name, title, tuple(blocks))


def _plain(path: Path, name: str, title: str) -> Source:
    """Blank-line paragraphs of a hard-wrapped text file; short lines in capitals are headings."""
    blocks: list[Block] = []
    for part in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        text = " ".join(part.split())
        if not text or set(text) <= set(".-= "):
            continue
        is_heading = text.upper() == text and len(text) < 80 and any(c.isalpha() for c in text)
        blocks.append(("h" if is_heading else "p", text))
    return Source(name, title, tuple(blocks))


def sources() -> list[Source]:
    """Return the benchmark's source documents."""
    templates = FIXTURES / "templates"
    return [
        _report(),
        _markdown(templates / "basin-oxygen-paper.md", "paper"),
        _plain(templates / "estuary-year.txt", "book", "The Estuary Year"),
        _plain(templates / "services-agreement.txt", "contract", "Services Agreement"),
        _markdown(FIXTURES / "markdown" / "station-guide.md", "guide"),
        _markdown(FIXTURES / "markdown" / "git-readme.md", "git-readme"),
    ]


# --- PDFs ------------------------------------------------------------------------------------

TWO_COLUMNS = frozenset({"report", "paper", "book"})


def _odt(source: Source, *, columns: int) -> str:
    from builders.report_pdf import flat_odt

    styles = """
<office:font-face-decls>
 <style:font-face style:name="C059" svg:font-family="C059" style:font-family-generic="roman"/>
 <style:font-face style:name="DejaVu Sans" svg:font-family="'DejaVu Sans'"/>
</office:font-face-decls>
<office:styles>
 <style:default-style style:family="paragraph">
  <style:text-properties style:font-name="C059" fo:font-size="11pt" fo:language="en"
    fo:country="US" fo:hyphenate="true" fo:hyphenation-remain-char-count="2"
    fo:hyphenation-push-char-count="2"/>
 </style:default-style>
 <style:style style:name="Body" style:family="paragraph">
  <style:paragraph-properties fo:text-align="justify" fo:margin-bottom="0.2cm"
    fo:line-height="125%"/>
 </style:style>
 <style:style style:name="Heading" style:family="paragraph">
  <style:paragraph-properties fo:margin-top="0.35cm" fo:margin-bottom="0.15cm"
    fo:keep-with-next="always"/>
  <style:text-properties style:font-name="DejaVu Sans" fo:font-size="13pt"
    fo:font-weight="bold" fo:hyphenate="false"/>
 </style:style>
 <style:style style:name="Edge" style:family="paragraph">
  <style:paragraph-properties>
   <style:tab-stops><style:tab-stop style:position="16.6cm" style:type="right"/></style:tab-stops>
  </style:paragraph-properties>
  <style:text-properties style:font-name="DejaVu Sans" fo:font-size="9pt" fo:hyphenate="false"/>
 </style:style>
</office:styles>
"""
    automatic = f"""
<office:automatic-styles>
 <style:style style:name="Columns" style:family="section">
  <style:section-properties>
   <style:columns fo:column-count="{columns}" fo:column-gap="0.8cm"/>
  </style:section-properties>
 </style:style>
 <style:page-layout style:name="A4">
  <style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm"
    fo:margin-top="1.4cm" fo:margin-bottom="1.4cm" fo:margin-left="2.2cm"
    fo:margin-right="2.2cm"/>
  <style:header-style>
   <style:header-footer-properties fo:margin-bottom="0.5cm"/>
  </style:header-style>
  <style:footer-style>
   <style:header-footer-properties fo:margin-top="0.5cm"/>
  </style:footer-style>
 </style:page-layout>
</office:automatic-styles>
"""
    masters = (
        '<office:master-styles><style:master-page style:name="Standard" '
        'style:page-layout-name="A4">'
        f'<style:header><text:p text:style-name="Edge">{escape(source.title)}<text:tab/>'
        "March 2024</text:p></style:header>"
        '<style:footer><text:p text:style-name="Edge">Wend Estuary Partnership<text:tab/>Page '
        '<text:page-number text:select-page="current">1</text:page-number> of '
        "<text:page-count>1</text:page-count></text:p></style:footer>"
        "</style:master-page></office:master-styles>"
    )
    body = "".join(
        f'<text:h text:style-name="Heading" text:outline-level="1">{escape(text)}</text:h>'
        if kind == "h"
        else f'<text:p text:style-name="Body">{escape(text)}</text:p>'
        for kind, text in source.blocks
    )
    body = f'<text:section text:style-name="Columns" text:name="Main">{body}</text:section>'
    return flat_odt(source.title, "ragchunk benchmarks", body, styles, automatic, masters)


def build(*, force: bool = False) -> list[tuple[Source, Path]]:
    """Return every (source, PDF) of the corpus, building the PDFs that are missing."""
    from builders.common import soffice

    CORPUS.mkdir(parents=True, exist_ok=True)
    built = []
    for source in sources():
        for columns in (1, 2) if source.name in TWO_COLUMNS else (1,):
            pdf = CORPUS / f"{source.name}-{columns}col.pdf"
            if force or not pdf.is_file():
                with tempfile.TemporaryDirectory() as scratch:
                    odt = Path(scratch) / f"{pdf.stem}.fodt"
                    odt.write_text(_odt(source, columns=columns), encoding="utf-8")
                    soffice(odt, pdf, "pdf")
            built.append((source, pdf))
    # The fixture itself: a watermark on three pages, a larger header, ligature glyphs drawn
    # from a fallback font, headings printed in capitals with roman numbers.
    built.append((sources()[0], FIXTURES / "pdf" / "estuary-report.pdf"))
    return built


# --- contestants -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reading:
    """One contestant's text of one PDF, its pages, and ragchunk's Document when it made one."""

    text: str
    pages: int
    document: Any = None


def _ragchunk(engine: str) -> Callable[[bytes], Reading]:
    def read(data: bytes) -> Reading:
        from ragchunk.parsers._spec import ParseOptions, ParseRequest
        from ragchunk.parsers.pdf import parse

        options = ParseOptions(pdf_engine=engine)  # type: ignore[arg-type]
        doc = parse(data, ParseRequest(options=options))
        return Reading(doc.text, len(doc.pages), doc)

    return read


def _pypdf_raw(data: bytes) -> Reading:
    """What ragchunk read before issue 12: pypdf's page texts joined by a blank line."""
    import io

    import pypdf

    pages = [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]
    return Reading("\n\n".join(pages), len(pages))


def _pdfium_raw(data: bytes) -> Reading:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    pages = [document[k].get_textpage().get_text_range() for k in range(len(document))]
    return Reading("\n\n".join(page.replace("\r\n", "\n") for page in pages), len(pages))


def _pdfminer(data: bytes) -> Reading:
    import io

    from pdfminer.high_level import extract_text

    text = extract_text(io.BytesIO(data))
    return Reading(text, text.count("\f") or 1)


def chunks(reading: Reading, strategy: str) -> list[str]:
    """Return the chunk texts of a reading: of ragchunk's Document, else of its plain text."""
    from ragchunk import chunk_text
    from ragchunk.pipeline.engine import chunk_document
    from ragchunk.pipeline.plan import make_plan
    from ragchunk.settings import shortcuts

    if reading.document is None:
        return [chunk.text for chunk in chunk_text(reading.text, strategy=strategy)]
    return [
        chunk.text
        for chunk in chunk_document(
            reading.document, make_plan(shortcuts({"strategy": strategy})).recipe
        )
    ]


CONTESTANTS: dict[str, tuple[str, Callable[[bytes], Reading]]] = {
    "pypdf raw (ragchunk before issue 12)": ("pypdf", _pypdf_raw),
    "PDFium raw text": ("pypdfium2", _pdfium_raw),
    "pdfminer.six (peer)": ("pdfminer", _pdfminer),
    "ragchunk --pdf-engine pypdf": ("pypdf", _ragchunk("pypdf")),
    "ragchunk --pdf-engine pdfium (default)": ("pypdfium2", _ragchunk("pdfium")),
}


# --- the run ---------------------------------------------------------------------------------


@dataclass(slots=True)
class Row:
    """A contestant's scores over the corpus."""

    name: str
    f1: list[float] = field(default_factory=list)
    precision: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    merged: int = 0
    recursive: list[list[str]] = field(default_factory=list)
    auto: list[list[str]] = field(default_factory=list)
    pages: int = 0
    seconds: float = 0.0


def measure(corpus: list[tuple[Source, Path]], repeat: int) -> tuple[list[Row], list[str]]:
    """Return a row per contestant, and the contestants not measured (with the reason)."""
    import importlib

    rows, missing = [], []
    for name, (module, read) in CONTESTANTS.items():
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(f"{name}: {module} is not installed")
            continue
        row = Row(name)
        for source, pdf in corpus:
            data = pdf.read_bytes()
            reading = read(data)
            scores = word_scores(reading.text, source.text)
            row.f1.append(scores.f1)
            row.precision.append(scores.precision)
            row.recall.append(scores.recall)
            row.merged += merged_words(reading.text, source.text)
            row.recursive.append(chunks(reading, "recursive"))
            if reading.document is not None:  # plain text: auto is recursive
                row.auto.append(chunks(reading, "auto"))
            row.pages += reading.pages
        row.seconds = min(_timed(read, corpus) for _ in range(repeat))
        rows.append(row)
    return rows, missing


def _timed(read: Callable[[bytes], Reading], corpus: list[tuple[Source, Path]]) -> float:
    blobs = [pdf.read_bytes() for _, pdf in corpus]
    start = time.perf_counter()
    for data in blobs:
        read(data)
    return time.perf_counter() - start


def table(rows: list[Row], missing: list[str], corpus: list[tuple[Source, Path]]) -> str:
    """Return the results as a Markdown table with a line on the corpus."""

    def share(chunks: list[list[str]]) -> str:
        if not chunks:
            return "—"
        ends, could = sentence_final(chunks)
        return f"{ends / could:.0%} ({ends}/{could})"

    lines = [
        f"{len(corpus)} PDFs from {len({s.name for s, _ in corpus})} sources, "
        f"{rows[0].pages if rows else 0} pages.",
        "",
        "| text | word F1 | precision | recall | words run together | sentence-final "
        "ends, recursive | sentence-final ends, auto | pages/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        count = len(row.f1)
        lines.append(
            f"| {row.name} | {sum(row.f1) / count:.3f} | {sum(row.precision) / count:.3f} | "
            f"{sum(row.recall) / count:.3f} | {row.merged} | {share(row.recursive)} | "
            f"{share(row.auto)} | {row.pages / row.seconds:.0f} |"
        )
    lines += [f"\nNot measured: {entry}." for entry in missing]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per contestant")
    parser.add_argument("--force", action="store_true", help="rebuild the PDFs")
    parser.add_argument("--update-readme", action="store_true", help="write the table")
    args = parser.parse_args(argv)
    corpus = build(force=args.force)
    rows, missing = measure(corpus, args.repeat)
    result = table(rows, missing, corpus)
    sys.stdout.write(result)
    if args.update_readme:
        text = README.read_text(encoding="utf-8")
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        README.write_text(f"{head}{START}\n{result}{END}{tail}", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
