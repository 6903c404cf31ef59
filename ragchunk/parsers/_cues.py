r"""What the timed formats share (WebVTT, SubRip): times, cue text without markup, the document.

A cue's text is its payload lines without markup (``<i>``, ``<c.yellow>``, ``<00:00:01.000>``,
SubRip's ``{\an8}``), each line stripped, blank lines dropped, joined by line feeds; cues are
blocks of ``Document.text`` (joined by a blank line), each a ``cue`` section, and each a ``Cue``
in ``Document.cues`` with its times in seconds and its speakers (WebVTT ``<v Name>``), from
which every chunk gets ``timestamp_start``/``timestamp_end`` and ``metadata.speakers``. Cue
identifiers, timing lines, settings, notes and style blocks are not text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.model import Cue
from ragchunk.parsers._builder import TextBuilder

if TYPE_CHECKING:
    from collections.abc import Iterator

    from ragchunk.model import Document, JSONValue, Metadata
    from ragchunk.parsers._spec import ParseRequest

# [hours:]minutes:seconds.milliseconds; SubRip writes a comma before the milliseconds.
TIME: Final = r"(?:(\d+):)?([0-5]?\d):([0-5]\d)[.,](\d{1,3})"
TIMING: Final = re.compile(rf"[ \t]*{TIME}[ \t]+-->[ \t]+{TIME}(?:[ \t]+(.*))?$")
_VOICE: Final = re.compile(r"<v(?:\.[^\s>]*)?[ \t]+([^>]*)>")
_TAG: Final = re.compile(r"<[^>\n]*>")
_OVERRIDE: Final = re.compile(r"\{\\[^}\n]*\}")  # SubRip's ASS override tags: {\an8}, {\i1}
LINE: Final = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")


def seconds(groups: tuple[str | None, ...]) -> float:
    """Return the seconds of a matched ``TIME``: (hours, minutes, seconds, milliseconds)."""
    hours, minutes, secs, millis = groups
    total = int(hours or 0) * 3600 + int(minutes or 0) * 60 + int(secs or 0)
    return round(total + int((millis or "0").ljust(3, "0")) / 1000, 3)


def lines(text: str) -> list[str]:
    """Return the lines of ``text`` without their line endings (any of CRLF, CR, LF)."""
    found = [match.group().rstrip("\r\n") for match in LINE.finditer(text)]
    return found[:-1] if found and found[-1] == "" else found


@dataclass(slots=True)
class CueText:
    """A cue's text without markup, and the voices speaking in it."""

    text: str
    speakers: tuple[str, ...]


def cue_text(payload: list[str], *, entities: bool) -> CueText:
    """Return the text and speakers of a cue's payload lines (``entities``: WebVTT's ``&amp;``)."""
    speakers: dict[str, None] = {}
    kept: list[str] = []
    for line in payload:
        for match in _VOICE.finditer(line):
            name = " ".join(match.group(1).split())
            if name:
                speakers[name] = None
        plain = _OVERRIDE.sub("", _TAG.sub("", line))
        if entities:
            plain = html.unescape(plain)
        plain = " ".join(plain.split())
        if plain:
            kept.append(plain)
    return CueText("\n".join(kept), tuple(speakers))


@dataclass(slots=True)
class CueDocument:
    """The text and cues of a transcript, built cue by cue."""

    request: ParseRequest
    builder: TextBuilder = field(init=False)
    cues: list[Cue] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.builder = TextBuilder(spend=self.request.spend_text)

    def add(self, text: CueText, time_start: float, time_end: float, ident: str | None) -> None:
        """Add one cue (a cue without text is left out)."""
        if not text.text:
            return
        if time_end < time_start:
            self.request.warn(
                "bad-cue",
                f"{self.request.source}: a cue at {time_start} s ends before it starts "
                f"({time_end} s); its end is taken as its start",
            )
            time_end = time_start
        builder = self.builder
        start = builder.append(text.text)
        metadata: dict[str, JSONValue] = {"time_start": time_start, "time_end": time_end}
        if ident:
            metadata["cue"] = ident
        if text.speakers:
            metadata["speakers"] = list(text.speakers)
        builder.record(start, "cue", metadata=metadata)
        self.cues.append(Cue(start, builder.length, time_start, time_end, text.speakers))

    def document(self, format: str, metadata: Metadata) -> Document:
        """Return the finished Document: its cues, sections and text."""
        from dataclasses import replace

        doc = self.builder.document(self.request, format, metadata)
        return replace(doc, cues=tuple(self.cues))


def blocks(found: list[str]) -> Iterator[tuple[int, list[str]]]:
    """Yield each block of lines (up to a blank line) and the 1-based number of its first."""
    block: list[str] = []
    first = 0
    for number, line in enumerate(found, start=1):
        if line.strip():
            if not block:
                first = number
            block.append(line)
        elif block:
            yield first, block
            block = []
    if block:
        yield first, block
