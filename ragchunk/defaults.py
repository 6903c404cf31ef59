"""Defaults shown by the command line's ``--help``, in a module that imports nothing.

``ragchunk --help`` reads them without loading the engine (the modules that use them import
them from here).
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

STDIN: Final = "-"
"""The path that names standard input (``split -``), wherever a path is taken."""

UNITS: Final = ("chars", "tokens")
"""The units a size can be given in."""

DEFAULT_TOKENIZER: Final = "cl100k_base"
"""The tokenizer of ``--unit tokens`` and ``--count-tokens`` unless ``--tokenizer`` names one."""

DEFAULT_MAX_BYTES: Final = 512 * 1024 * 1024
"""The default of ``--max-bytes``: generous for real documents, well short of exhausting memory."""

DEFAULT_TIMEOUT: Final = 300.0
"""The default of ``--timeout`` in seconds, on the command line (the library sets no limit)."""

# How inputs are read (``parsers._spec.ParseOptions``): the choices and help ``--help`` shows.
PdfEngine: TypeAlias = Literal["pdfium", "pypdf"]
OcrMode: TypeAlias = Literal["off", "auto", "all"]
CleanPart: TypeAlias = Literal["headers", "watermarks", "hyphens", "ligatures"]

PDF_ENGINES: Final[tuple[PdfEngine, ...]] = ("pdfium", "pypdf")
OCR_MODES: Final[tuple[OcrMode, ...]] = ("off", "auto", "all")
CLEAN_PARTS: Final[tuple[CleanPart, ...]] = ("headers", "watermarks", "hyphens", "ligatures")
"""What PDF cleaning changes, each of which ``--keep`` can turn off (see docs/formats.md)."""

PARSE_HELP: Final = {
    "pdf_engine": "PDF text extraction engine: pdfium (PDFium, fast) or pypdf.",
    "ocr": "OCR for PDF pages: auto recognises pages without a text layer, all every page "
    "(needs the tesseract program).",
    "ocr_language": "Tesseract language(s) for --ocr, such as eng or eng+deu.",
    "keep": "Turn a part of PDF cleaning off: headers (running headers, footers and page "
    "numbers), watermarks, hyphens (end-of-line hyphenation), ligatures.",
    "comments": "Add a DOCX's comments after its notes (left out by default).",
    "keep_boilerplate": "HTML: keep navigation, page headers and footers, asides and cookie "
    "banners (left out by default).",
    "main_content": "HTML: keep only the main content as trafilatura finds it (needs the "
    "'html' extra).",
    "notes": "PPTX: add each slide's speaker notes after its text.",
    "hidden_slides": "PPTX: read hidden slides too (skipped by default).",
    "header": "CSV/TSV: whether the first row names the columns (default: guessed; an XLSX "
    "sheet's header is its first row of two or more cells).",
}
"""The help of each ``ParseOptions`` field: its flag's, its configuration key's."""

Engine: TypeAlias = Literal["local", "ray"]
ENGINES: Final = ("local", "ray")
"""Where a run's inputs are chunked: this machine's processes (``--jobs``), or a Ray cluster."""
