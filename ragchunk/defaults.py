"""Defaults shown by the command line's ``--help``, in a module that imports nothing.

``ragchunk --help`` reads them without loading the engine (the modules that use them import
them from here).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Final, Literal, TypeAlias

STDIN: Final = "-"
"""The path that names standard input (``split -``), wherever a path is taken."""

DEFAULT_STRATEGY: Final = "recursive"
"""The strategy of ``split`` and the library unless ``--strategy`` names one."""

Unit: TypeAlias = Literal["chars", "tokens"]
UNITS: Final = ("chars", "tokens")
"""The units a size can be given in."""

DEFAULT_TOKENIZER: Final = "cl100k_base"
"""The tokenizer of ``--unit tokens`` and ``--count-tokens`` unless ``--tokenizer`` names one."""

DEFAULT_LANGUAGE: Final = "en"
"""The sentence rules (``ragchunk.text.languages``) unless ``-O language=`` names others; here so
that ``strategies._spec`` need not load the rules' tables to name the default."""

DEFAULT_MAX_BYTES: Final = 512 * 1024 * 1024
"""The default of ``--max-bytes``: generous for real documents, well short of exhausting memory."""

DEFAULT_MAX_TEXT: Final = 64 * 1024 * 1024
"""The default of ``--max-text``: the characters the parse of one input may build (an eighth of
``--max-bytes``: text of a few hundred megabytes of memory once chunked; 30,000 pages or so)."""

DEFAULT_TIMEOUT: Final = 300.0
"""The default of ``--timeout`` in seconds, on the command line (the library sets no limit)."""

# How inputs are read (``parsers._spec.ParseOptions``): the choices and help ``--help`` shows.
PdfEngine: TypeAlias = Literal["pdfium", "pypdf"]
OcrMode: TypeAlias = Literal["off", "auto", "all"]
CleanPart: TypeAlias = Literal["headers", "watermarks", "hyphens", "ligatures", "linebreaks"]

PDF_ENGINES: Final[tuple[PdfEngine, ...]] = ("pdfium", "pypdf")
OCR_MODES: Final[tuple[OcrMode, ...]] = ("off", "auto", "all")
CLEAN_PARTS: Final[tuple[CleanPart, ...]] = (
    "headers",
    "watermarks",
    "hyphens",
    "ligatures",
    "linebreaks",
)
"""What PDF cleaning changes, each of which ``--keep`` can turn off (see docs/formats.md)."""


Engine: TypeAlias = Literal["local", "ray"]
ENGINES: Final = ("local", "ray")
"""Where a run's inputs are chunked: this machine's processes (``--jobs``), or a Ray cluster."""


def default_cache_dir() -> str:
    """Return ragchunk's directory under the user's cache directory (per platform)."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
        return str(Path(base) / "ragchunk" / "Cache")
    if sys.platform == "darwin":
        return str(Path.home() / "Library" / "Caches" / "ragchunk")
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return str(Path(base) / "ragchunk")
