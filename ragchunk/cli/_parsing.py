"""The flags that change how inputs are read (``ParseOptions``), for ``split`` and ``inspect``.

Each flag's help is its ``ParseOptions`` field's help (``defaults.PARSE_HELP``), so flags,
configuration keys and the documentation say the same. Values are checked when the options are
built.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from ragchunk.cli._panels import FORMATS

# From defaults, not parsers: `ragchunk --help` loads no engine module.
from ragchunk.defaults import CLEAN_PARTS, OCR_MODES, PARSE_HELP, PDF_ENGINES


def _help(name: str) -> str:
    return PARSE_HELP[name]


PdfEngineFlag = Annotated[
    Optional[str],  # noqa: UP045 - Typer needs Optional on Python 3.11
    typer.Option(
        "--pdf-engine",
        help=_help("pdf_engine") + " [default: pdfium]",
        metavar="|".join(PDF_ENGINES),
        show_default=False,
        autocompletion=lambda: list(PDF_ENGINES),
        rich_help_panel=FORMATS,
    ),
]
OcrFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--ocr",
        help=_help("ocr") + " [default: off]",
        metavar="|".join(OCR_MODES),
        show_default=False,
        autocompletion=lambda: list(OCR_MODES),
        rich_help_panel=FORMATS,
    ),
]
OcrLanguageFlag = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(
        "--ocr-language",
        help=_help("ocr_language") + " [default: eng]",
        metavar="LANG",
        show_default=False,
        rich_help_panel=FORMATS,
    ),
]
KeepFlag = Annotated[
    Optional[list[str]],  # noqa: UP045
    typer.Option(
        "--keep",
        help=_help("keep") + " Repeatable.",
        metavar="|".join(CLEAN_PARTS),
        show_default=False,
        autocompletion=lambda: list(CLEAN_PARTS),
        rich_help_panel=FORMATS,
    ),
]
CommentsFlag = Annotated[
    bool, typer.Option("--comments", help=_help("comments"), rich_help_panel=FORMATS)
]
AllowEmptyFlag = Annotated[
    bool,
    typer.Option(
        "--allow-empty",
        help="Accept an input in which no text is found (a scan without --ocr) with no chunks, "
        "instead of failing it.",
        rich_help_panel=FORMATS,
    ),
]
KeepBoilerplateFlag = Annotated[
    bool,
    typer.Option("--keep-boilerplate", help=_help("keep_boilerplate"), rich_help_panel=FORMATS),
]
NotesFlag = Annotated[bool, typer.Option("--notes", help=_help("notes"), rich_help_panel=FORMATS)]
HiddenSlidesFlag = Annotated[
    bool, typer.Option("--hidden-slides", help=_help("hidden_slides"), rich_help_panel=FORMATS)
]
