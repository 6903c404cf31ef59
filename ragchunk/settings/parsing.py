"""How parsers read their inputs (``ParseOptions``): each field is a flag, a key and an ``-O``.

This is the options spec of the parsers. A field declared here with ``leaf(...)`` is at once a
flag of ``split`` and ``inspect`` (when it names one), a configuration key (unless ``key`` is
false), an ``-O key=value`` and part of every recipe's fingerprint; a parser reads it from
``request.options``. Nothing else needs to change to add one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Final

from ragchunk.defaults import (
    CLEAN_PARTS,
    OCR_MODES,
    PDF_ENGINES,
    CleanPart,
    OcrMode,
    PdfEngine,
)
from ragchunk.errors import OptionError
from ragchunk.settings._leaf import FORMATS, leaf

_OCR_LANGUAGE_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz_+")


@dataclass(frozen=True, slots=True, kw_only=True)
class ParseOptions:
    """How parsers read their inputs: part of a recipe, so of chunk ids and the manifest digest.

    Fields are grouped by the issue that brought them and each says which formats read it. Each
    is a configuration key of the same name (dashes for underscores) and an ``-O key=value``;
    most are also flags of ``split`` and ``inspect``.
    """

    # PDF and DOCX (issue 12).
    pdf_engine: PdfEngine = leaf(
        "--pdf-engine",
        default="pdfium",
        help="PDF text extraction engine: pdfium (PDFium, fast) or pypdf.",
        panel=FORMATS,
        more=" [default: pdfium]",
        metavar="|".join(PDF_ENGINES),
        show_default=False,
        completions=PDF_ENGINES,
    )
    ocr: OcrMode = leaf(
        "--ocr",
        default="off",
        help="OCR for PDF pages: auto recognises pages without a text layer, all every page "
        "(needs the tesseract program).",
        panel=FORMATS,
        more=" [default: off]",
        metavar="|".join(OCR_MODES),
        show_default=False,
        completions=OCR_MODES,
    )
    ocr_language: str = leaf(
        "--ocr-language",
        default="eng",
        help="Tesseract language(s) for --ocr, such as eng or eng+deu.",
        panel=FORMATS,
        more=" [default: eng]",
        metavar="LANG",
        show_default=False,
    )
    keep: tuple[CleanPart, ...] = leaf(
        "--keep",
        default=(),
        help="Turn a part of PDF cleaning off: headers (running headers, footers and page "
        "numbers), watermarks, hyphens (end-of-line hyphenation), ligatures, linebreaks "
        "(line wraps inside a paragraph, else spaces).",
        panel=FORMATS,
        more=" Repeatable.",
        metavar="|".join(CLEAN_PARTS),
        show_default=False,
        completions=CLEAN_PARTS,
    )
    comments: bool = leaf(
        "--comments",
        default=False,
        help="Add a DOCX's comments after its notes (left out by default).",
        panel=FORMATS,
    )

    # HTML, PPTX, e-mail, tables (issue 16).
    keep_boilerplate: bool = leaf(
        "--keep-boilerplate",
        default=False,
        help="HTML: keep navigation, page headers and footers, asides, cookie banners and the "
        "furniture of wikis and blogs (sidebars, category boxes, language links, [edit] links; "
        "left out by default).",
        panel=FORMATS,
    )
    main_content: bool = leaf(
        default=False,
        help="HTML: keep only the main content as trafilatura finds it (needs the 'html' extra).",
        panel=FORMATS,
        key=False,
    )
    notes: bool = leaf(
        "--notes",
        default=False,
        help="PPTX: add each slide's speaker notes after its text.",
        panel=FORMATS,
    )
    hidden_slides: bool = leaf(
        "--hidden-slides",
        default=False,
        help="PPTX: read hidden slides too (skipped by default).",
        panel=FORMATS,
    )
    header: bool | None = leaf(
        default=None,
        help="CSV/TSV: whether the first row names the columns (default: guessed; an XLSX "
        "sheet's header is its first row of two or more cells).",
        panel=FORMATS,
        key=False,
    )

    # Notebooks (issue 31).
    outputs: bool = leaf(
        default=False,
        help="Jupyter notebooks: keep the text outputs of code cells (streams and text/plain "
        "results; left out by default).",
        panel=FORMATS,
        key=False,
    )

    def __post_init__(self) -> None:
        if self.pdf_engine not in PDF_ENGINES:
            listed = ", ".join(PDF_ENGINES)
            raise OptionError("--pdf-engine", f"must be one of {listed} (got {self.pdf_engine!r})")
        if self.ocr not in OCR_MODES:
            raise OptionError("--ocr", f"must be one of {', '.join(OCR_MODES)} (got {self.ocr!r})")
        if not self.ocr_language or not set(self.ocr_language) <= _OCR_LANGUAGE_CHARS:
            raise OptionError(
                "--ocr-language",
                f"must be Tesseract language names joined with + (got {self.ocr_language!r})",
            )
        unknown = [part for part in self.keep if part not in CLEAN_PARTS]
        if unknown:
            listed = ", ".join(CLEAN_PARTS)
            raise OptionError("--keep", f"must be among {listed} (got {unknown[0]!r})")
        # Sorted and without repeats: the same choice always gives the same ids.
        object.__setattr__(self, "keep", tuple(sorted(set(self.keep))))

    def cleans(self, part: CleanPart) -> bool:
        """Return whether PDF cleaning does ``part`` (not turned off with ``--keep``)."""
        return part not in self.keep


DEFAULT_PARSE: Final = ParseOptions()

PARSE_OPTION_NAMES: Final = tuple(f.name for f in dataclasses.fields(ParseOptions))
"""The ``-O`` keys that set ``ParseOptions`` rather than the strategy's options."""
