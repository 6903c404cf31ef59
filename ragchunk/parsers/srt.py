r"""srt: SubRip subtitles, each cue a section with its times (``_cues``).

A cue is a block of lines: its number, the timing line (``00:00:01,000 --> 00:00:04,000``,
coordinates after it ignored) and its text. Numbers and timing lines are not text; HTML-like
tags (``<i>``, ``<font color=...>``) and ``{\an8}`` overrides are left out of it. A block
without a timing line is left out with a warning naming its line; a file with text but no cue
at all is not SubRip.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragchunk.errors import CorruptDocumentError
from ragchunk.parsers._cues import TIMING, CueDocument, blocks, cue_text, lines, seconds
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from ragchunk.model import Document
    from ragchunk.parsers._spec import ParseRequest


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the cues of a SubRip file as the document's text, sections and cues.

    Raises:
        InputError: binary data.
        CorruptDocumentError: the file holds text but no cue.
    """
    cues = CueDocument(request)
    seen = 0
    for number, block in blocks(lines(decode(data, request))):
        ident = None
        if "-->" not in block[0] and len(block) > 1:
            ident, block, number = block[0].strip(), block[1:], number + 1
        timing = TIMING.match(block[0])
        if timing is None:
            request.warn(
                "bad-cue", f"{request.source}: line {number}: no cue timing line, block left out"
            )
            continue
        seen += 1
        groups = timing.groups()
        text = cue_text(block[1:], entities=False)
        cues.add(text, seconds(groups[:4]), seconds(groups[4:8]), ident)
    doc = cues.document("srt", {})
    if not seen and data.strip():
        raise CorruptDocumentError(
            f"{request.source}: not a SubRip file (no cue timing line such as "
            "00:00:01,000 --> 00:00:04,000)"
        )
    return doc


FORMAT = Format(name="srt", parse=parse)
