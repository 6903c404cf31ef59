"""Strict Open XML read as Transitional: namespaces and relationship types translated.

A Strict file (ISO/IEC 29500 Strict, Word's "Strict Open XML Document") names its parts'
namespaces and relationship types under ``http://purl.oclc.org/ooxml/`` where a Transitional
file uses ``http://schemas.openxmlformats.org/…/2006/…``; the elements are the same for text.
python-docx only knows the Transitional names, so the package is rewritten in memory, each XML
part's Strict names replaced by their Transitional ones, before python-docx opens it. The
archive has passed ``_archive``'s checks (members, sizes, ratios, compression methods, no
DOCTYPE) before this runs, and the rewritten one passes ``open_zip``'s again: a replacement
adds at most 17 bytes to a name of at least 39, so it cannot grow a part past half again.
"""

from __future__ import annotations

import io
import re
import zipfile
from typing import Final

STRICT: Final = b"http://purl.oclc.org/ooxml/"
_TRANSITIONAL: Final = b"http://schemas.openxmlformats.org/"
_RENAMED: Final = {
    # Strict name (after the prefix) -> Transitional name (after its prefix); the longest first.
    b"officeDocument/relationships/extendedProperties": (
        b"officeDocument/2006/relationships/extended-properties"
    ),
    b"officeDocument/relationships/customProperties": (
        b"officeDocument/2006/relationships/custom-properties"
    ),
    b"officeDocument/extendedProperties": b"officeDocument/2006/extended-properties",
    b"officeDocument/customProperties": b"officeDocument/2006/custom-properties",
}
_NAME: Final = re.compile(
    re.escape(STRICT)
    + rb"(?P<area>officeDocument|wordprocessingml|drawingml|spreadsheetml|presentationml"
    + rb"|schemaLibrary)(?P<rest>/[A-Za-z0-9/-]*)?"
)
_HEAD: Final = 64


def is_strict(archive: zipfile.ZipFile) -> bool:
    """Return whether the package's own relationships name a Strict main document."""
    try:
        info = archive.getinfo("_rels/.rels")
    except KeyError:
        return False
    with archive.open(info) as part:
        return STRICT + b"officeDocument/relationships/officeDocument" in part.read()


def _translate(match: re.Match[bytes]) -> bytes:
    name = match.group()[len(STRICT) :]
    if name in _RENAMED:
        return _TRANSITIONAL + _RENAMED[name]
    area, rest = match.group("area"), match.group("rest") or b""
    return _TRANSITIONAL + area + b"/2006" + rest


def transitional(archive: zipfile.ZipFile) -> bytes:
    """Return the checked archive rewritten with Transitional names in every UTF-8 XML part.

    Member names, order and other bytes are kept; reading is bounded by the declared sizes
    that ``open_zip`` checked. A part in UTF-16 is copied unchanged (Word writes UTF-8).
    """
    out = io.BytesIO()
    # Stored, not deflated: the bytes are in memory already, and no ratio check can trip.
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as rewritten:
        for member in archive.infolist():
            data = archive.read(member)
            if member.filename.endswith((".xml", ".rels")) or data[:_HEAD].lstrip().startswith(
                b"<"
            ):
                data = _NAME.sub(_translate, data)
            rewritten.writestr(member.filename, data)
    return out.getvalue()
