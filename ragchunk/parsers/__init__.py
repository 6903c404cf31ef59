"""The format table: name → (module, extensions), and format detection.

Detection imports nothing: by ``--format`` first, then by extension, then by content (``%PDF-``,
a zip holding ``word/document.xml``, else text). Each module exposes ``FORMAT`` (see
``_spec.py``). To add a format, write ``parsers/<name>.py`` and add one line here.
"""

from __future__ import annotations

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
    "text": ("ragchunk.parsers.text", (".txt", ".text", ".log", ".csv", ".tsv")),
    "markdown": ("ragchunk.parsers.markdown", (".md", ".markdown")),
    "rst": ("ragchunk.parsers.rst", (".rst", ".rest")),
    "pdf": ("ragchunk.parsers.pdf", (".pdf",)),
    "docx": ("ragchunk.parsers.docx", (".docx",)),
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
        source: the path (only its suffix is used; ``-`` for standard input).
        head: the first bytes of the file.
        data: the whole file, or its path, used to look inside a zip (whose directory is at
            its end, past ``head``); optional.
    """
    suffix = PurePath(source).suffix.lower()
    for name, (_, extensions) in FORMATS.items():
        if suffix in extensions:
            return name
    if head.startswith(b"%PDF-") and "pdf" in FORMATS:
        return "pdf"
    if head.startswith(b"PK\x03\x04") and "docx" in FORMATS and _is_docx(data or head):
        return "docx"
    return "text"


def _is_docx(data: bytes | str) -> bool:
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as archive:
            return "word/document.xml" in archive.namelist()
    # Any damage means "not a DOCX" (NotImplementedError: "zip file version 23.5", fuzzing).
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError):
        return False
