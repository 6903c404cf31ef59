"""The format table: name → (module, extensions), and format detection.

Detection imports nothing: by ``--format`` first, then by extension, then by content (``%PDF-``;
a zip holding ``word/document.xml``, ``ppt/presentation.xml``, ``xl/workbook.xml`` or an EPUB
container; an HTML start; an mbox's ``From`` line or e-mail headers; a ``WEBVTT`` line; else
text). Each module
exposes ``FORMAT`` (see ``_spec.py``). To add a format, write ``parsers/<name>.py`` and add
one line here.
"""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import TYPE_CHECKING, Final

from ragchunk import registry
from ragchunk.errors import OptionError

if TYPE_CHECKING:
    from ragchunk.parsers._spec import Format

FORMATS: Final[dict[str, tuple[str, tuple[str, ...]]]] = {
    "code": (
        "ragchunk.parsers.code",
        (
            ".py",
            ".pyi",
            ".js",
            ".mjs",
            ".cjs",
            ".jsx",
            ".ts",
            ".tsx",
            ".java",
            ".go",
            ".rs",
            ".rb",
            ".cs",
            ".c",
            ".h",
            ".cpp",
            ".cc",
            ".cxx",
            ".hpp",
            ".hh",
            ".php",
            ".swift",
            ".kt",
            ".kts",
        ),
    ),
    "text": ("ragchunk.parsers.text", (".txt", ".text", ".log")),
    "markdown": ("ragchunk.parsers.markdown", (".md", ".markdown")),
    "rst": ("ragchunk.parsers.rst", (".rst", ".rest")),
    "pdf": ("ragchunk.parsers.pdf", (".pdf",)),
    "docx": ("ragchunk.parsers.docx", (".docx",)),
    "html": ("ragchunk.parsers.html", (".html", ".htm", ".xhtml")),
    "csv": ("ragchunk.parsers.csv", (".csv", ".tsv")),
    "xlsx": ("ragchunk.parsers.xlsx", (".xlsx", ".xlsm")),
    "pptx": ("ragchunk.parsers.pptx", (".pptx",)),
    "email": ("ragchunk.parsers.email", (".eml",)),
    "mbox": ("ragchunk.parsers.mbox", (".mbox", ".mbx")),
    "epub": ("ragchunk.parsers.epub", (".epub",)),
    "vtt": ("ragchunk.parsers.vtt", (".vtt",)),
    "srt": ("ragchunk.parsers.srt", (".srt",)),
    "notebook": ("ragchunk.parsers.notebook", (".ipynb",)),
    "json": ("ragchunk.parsers.json", (".json", ".geojson", ".webmanifest")),
    "jsonl": ("ragchunk.parsers.jsonl", (".jsonl", ".ndjson")),
    "yaml": ("ragchunk.parsers.yaml", (".yaml", ".yml")),
    "toml": ("ragchunk.parsers.toml", (".toml",)),
}


def get(name: str) -> Format:
    """Return the format registered as ``name``.

    Raises:
        OptionError: no format has that name.
    """
    modules = {key: module for key, (module, _) in FORMATS.items()}
    fmt: Format = registry.load(modules, name, option="--format", attribute="FORMAT")
    return fmt


def names() -> tuple[str, ...]:
    """Return every format name, sorted."""
    return tuple(sorted(FORMATS))


def check_name(name: str) -> None:
    """Raise ``OptionError`` unless ``name`` is a format (without importing its parser)."""
    if name not in FORMATS:
        raise OptionError("--format", registry.unknown_name_message(name, FORMATS))


def detect(source: str, head: bytes, data: bytes | str | None = None) -> str:
    """Return the format name for a file from its extension, else from its first bytes.

    Args:
        source: the path (only its suffix is used; ``-`` for standard input, which has none,
            so its first bytes decide, as for a file without an extension).
        head: the first bytes of the file (a kilobyte is enough to sniff HTML and e-mail).
        data: the whole file, or its path, used to look inside a zip (whose directory is at
            its end, past ``head``); optional.
    """
    suffix = PurePath(source).suffix.lower()
    for name, (_, extensions) in FORMATS.items():
        if suffix in extensions:
            return name
    if head.startswith(b"%PDF-"):
        return "pdf"
    if head.startswith(b"PK\x03\x04"):
        return _zip_format(data or head)
    # standard input is sniffed as a file without an extension: HTML, e-mail, mbox, else text
    return _sniff_text(head)


_ZIP_MARKERS: Final = (
    ("word/document.xml", "docx"),
    ("ppt/presentation.xml", "pptx"),
    ("xl/workbook.xml", "xlsx"),
    ("META-INF/container.xml", "epub"),
)
# Pattern strings, not compiled patterns: ``re`` compiles each on first use (and caches it),
# so a run whose files all have a known extension compiles none.
_HTML_START: Final = rb"\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b"
_WEBVTT: Final = rb"WEBVTT(?:[ \t\r\n]|$)"
_MBOX_FROM: Final = rb"From \S+ [^\n]*\b\d\d?:\d\d(?::\d\d)?\b[^\n]*\r?\n"
"""An mbox's first line: ``From`` with the sender and the time it came (``Fri Jun  7 08:00:00
2024``); a line of prose starting ``From`` is not one."""
_MAIL_HEADER: Final = (
    rb"(?:Return-Path|Received|From|To|Subject|Date|Message-ID|MIME-Version|Delivered-To|"
    rb"X-[A-Za-z-]+):[ \t]"
)


def _sniff_text(head: bytes) -> str:
    """Return ``html``, ``mbox``, ``email`` or ``text`` from the first bytes of a text file."""
    head = head.removeprefix(b"\xef\xbb\xbf")
    if re.match(_WEBVTT, head):
        return "vtt"
    html = re.match(_HTML_START, head, re.I | re.S)
    if html or (head.lstrip().startswith(b"<?xml") and b"<html" in head):
        return "html"
    if re.match(_MBOX_FROM, head):
        return "mbox"
    if re.match(_MAIL_HEADER, head, re.IGNORECASE):
        lines = head.split(b"\n", 8)[:-1]
        if len(lines) >= 2 and all(_is_header_line(line) for line in lines):
            return "email"
    return "text"


def _is_header_line(line: bytes) -> bool:
    if line[:1] in (b" ", b"\t"):  # a folded header's continuation
        return True
    name, colon, _ = line.partition(b":")
    return (bool(colon) and bool(name) and b" " not in name.strip(b"\r")) or not line.strip()


def _zip_format(data: bytes | str) -> str:
    """Return the format of a zip from the part its format requires, else ``text``."""
    from ragchunk.parsers._archive import zip_names

    names = zip_names(data)
    if names is None:  # any damage means "not an office file"
        return "text"
    return next((fmt for part, fmt in _ZIP_MARKERS if part in names and fmt in FORMATS), "text")
