"""vtt: a WebVTT transcript or subtitles, each cue a section with its times (``_cues``).

The file must start with ``WEBVTT``; its header (to the first blank line), ``NOTE``, ``STYLE``
and ``REGION`` blocks, cue identifiers, timing lines and cue settings are not text. A cue's
speakers come from its voice tags (``<v Roger Bingham>``), which are left out of the text. A
block whose timing line cannot be read is left out with a warning naming its line.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers._cues import TIMING, CueDocument, blocks, cue_text, lines, seconds
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest

SIGNATURE: Final = re.compile(r"WEBVTT(?:[ \t].*)?$")
_SKIPPED: Final = re.compile(r"(?:NOTE|STYLE|REGION)(?:[ \t].*)?$")


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the cues of a WebVTT file as the document's text, sections and cues.

    Raises:
        InputError: binary data.
        CorruptDocumentError: the file does not start with ``WEBVTT``.
    """
    found = lines(decode(data, request))
    if not found or not SIGNATURE.match(found[0]):
        raise CorruptDocumentError(
            f"{request.source}: not a WebVTT file (its first line must be WEBVTT)"
        )
    title = found[0][6:].strip()
    cues = CueDocument(request)
    for number, block in list(blocks(found))[1:]:  # the first is the header
        if _SKIPPED.match(block[0]):
            continue
        ident = None
        if "-->" not in block[0]:
            ident, block, number = block[0].strip(), block[1:], number + 1
        timing = TIMING.match(block[0]) if block else None
        if timing is None:
            request.warn(
                "bad-cue",
                f"{request.source}: line {number}: no cue timing line, block left out",
            )
            continue
        groups = timing.groups()
        cues.add(
            cue_text(block[1:], entities=True), seconds(groups[:4]), seconds(groups[4:8]), ident
        )
    return cues.document("vtt", {"title": title} if title else {})


FORMAT = Format(name="vtt", parse=parse)
