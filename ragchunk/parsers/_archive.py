"""Safety checks on zip-based inputs (DOCX, PPTX, XLSX, EPUB) before any XML parser or library.

Every zip ragchunk reads is opened here (``open_zip``; format detection only lists the names,
``zip_names``). Caps: member count, the declared uncompressed total against
``ParseRequest.max_bytes``, the compression ratio of large members (zip bombs), and the
compression method: only stored and deflated members (``METHODS``), the two OOXML and OCF
allow, so that reading is bounded by the declared sizes, which ``zipfile`` enforces while
inflating (a bzip2 or LZMA member is expanded whole before its size is checked: a 6 KB member
held gigabytes). XML parts may not declare a DOCTYPE or entities (billion-laughs bombs,
external entities): every member whose content starts like XML is checked, whatever its name
(an ``.svg`` too), since relationships may point the main document or a sheet at any part name;
lxml's own guards, entities unresolved and no network, stay behind this check.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError, LimitExceededError

if TYPE_CHECKING:
    from ragchunk.parsers._spec import ParseRequest

MAX_MEMBERS: Final = 10_000
"""More zip members than this is refused (a real DOCX has a few dozen)."""
MAX_RATIO: Final = 200
"""A member larger than ``RATIO_FLOOR`` may expand at most this many times."""
RATIO_FLOOR: Final = 1024 * 1024
_BLOCK: Final = 1024 * 1024
_OLE_MAGIC: Final = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_MARKERS: Final = tuple(
    marker.encode(encoding)
    for marker in ("<!DOCTYPE", "<!ENTITY")
    for encoding in ("utf-8", "utf-16-le", "utf-16-be")
)
_HEAD: Final = 64
_BOMS: Final = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
METHODS: Final = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated"}
"""The compression methods a member may use; any other is refused before it is read."""
_METHOD_NAMES: Final = {
    1: "shrunk",
    6: "imploded",
    9: "deflate64",
    12: "bzip2",
    14: "LZMA",
    93: "Zstandard",
    95: "xz",
    98: "PPMd",
    99: "AES encryption",
}


def open_zip(data: bytes, request: ParseRequest, *, kind: str) -> zipfile.ZipFile:
    """Open ``data`` as a zip after checking its size caps; the caller closes it.

    Args:
        data: the whole file.
        request: names the file in errors and holds ``max_bytes``.
        kind: the format's name for messages (``DOCX``).

    Raises:
        CorruptDocumentError: empty, not a zip, an OLE container, or a damaged archive.
        LimitExceededError: too many members, too large once expanded, or a bomb-like ratio.
    """
    source = request.source
    if not data:
        raise CorruptDocumentError(f"{source}: empty file, not a {kind}")
    if data.startswith(_OLE_MAGIC):
        raise CorruptDocumentError(
            f"{source}: encrypted or legacy Word file (OLE container), not a {kind}"
        )
    if not data.startswith(b"PK"):
        raise CorruptDocumentError(f"{source}: not a {kind} (zip) file")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        OSError,
        EOFError,
        ValueError,
        NotImplementedError,  # "zip file version 23.5" (found by fuzzing)
    ) as exc:
        raise CorruptDocumentError(
            f"{source}: corrupt {kind}: truncated or damaged zip archive ({exc})"
        ) from exc
    try:
        _check_members(archive, request, kind)
    except BaseException:
        archive.close()
        raise
    return archive


def zip_names(data: bytes | str) -> set[str] | None:
    """Return the member names of a zip, its bytes or its path, or None if it is not one.

    Only the central directory is read: no member is decompressed.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as archive:
            return set(archive.namelist())
    # Any damage means "not a zip" (NotImplementedError: "zip file version 23.5").
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, NotImplementedError, RuntimeError):
        return None


def _check_members(archive: zipfile.ZipFile, request: ParseRequest, kind: str) -> None:
    source = request.source
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise LimitExceededError(
            f"{source}: refused: the zip holds {len(members)} members (limit {MAX_MEMBERS})"
        )
    total = sum(member.file_size for member in members)
    if total > request.max_bytes:
        raise LimitExceededError(
            f"{source}: refused: the zip would expand to {total} bytes (limit {request.max_bytes})"
        )
    for member in members:
        if member.compress_type not in METHODS:
            method = member.compress_type
            name = _METHOD_NAMES.get(method, "an unknown method")
            raise LimitExceededError(
                f"{source}: refused: {member.filename or '(unnamed)'} is compressed with {name} "
                f"(method {method}), not stored or deflated as {kind} requires"
            )
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise LimitExceededError(
                f"{source}: refused: {member.filename} expands more than {MAX_RATIO} times "
                f"({member.file_size} bytes; a zip bomb?)"
            )


def refuse_doctypes(archive: zipfile.ZipFile, request: ParseRequest) -> None:
    """Raise unless no XML part declares a DOCTYPE or an entity.

    Raises:
        LimitExceededError: a part declares one (an XML entity bomb or external entity).
        CorruptDocumentError: a part cannot be decompressed.
    """
    for member in archive.infolist():
        # endswith, not is_dir(): that fails on an empty member name (found by fuzzing).
        if member.filename.endswith("/"):
            continue
        if _declares_doctype(archive, member, request):
            raise LimitExceededError(
                f"{request.source}: refused: {member.filename} declares a DOCTYPE or entities "
                "(XML entity bomb?)"
            )


def _declares_doctype(
    archive: zipfile.ZipFile, member: zipfile.ZipInfo, request: ParseRequest
) -> bool:
    """Stream one part in blocks; a marker may straddle two blocks, so keep a tail.

    A part that does not start like XML (an image, a font) is not read past its first bytes.
    """
    tail = b""
    try:
        with archive.open(member) as part:
            block = part.read(_HEAD)
            if not _looks_like_xml(block):
                return False
            while block:
                window = tail + block
                if any(marker in window for marker in _MARKERS):
                    return True
                tail = window[-32:]
                block = part.read(_BLOCK)
    except (
        zipfile.BadZipFile,
        zlib.error,
        OSError,
        EOFError,
        RuntimeError,
        NotImplementedError,
        ValueError,  # a damaged directory entry: "negative seek value" (found by fuzzing)
    ) as exc:
        raise CorruptDocumentError(
            f"{request.source}: corrupt zip member {member.filename or '(unnamed)'} ({exc})"
        ) from exc
    return False


def _looks_like_xml(head: bytes) -> bool:
    """Return whether ``head`` starts like an XML document (after a BOM and whitespace)."""
    for bom in _BOMS:
        head = head.removeprefix(bom)
    # Zero bytes: the ASCII of UTF-16 text has one beside every character.
    return head.lstrip(b" \t\r\n\x00").startswith(b"<")
