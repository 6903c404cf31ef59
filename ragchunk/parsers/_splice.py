"""Documents made of documents: an e-mail's attachments, an EPUB's chapters, spliced in order."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from ragchunk.model import Section

if TYPE_CHECKING:
    from ragchunk.model import Document, Metadata

BLOCK_SEPARATOR: Final = "\n\n"


@dataclass(slots=True)
class Splicer:
    """Accumulates text and sections; blocks are separated by a blank line."""

    parts: list[str] = field(default_factory=list)
    length: int = 0
    sections: list[Section] = field(default_factory=list)

    def append(self, text: str) -> int:
        """Append a block (after a blank line unless it is the first); return its start."""
        if self.length:
            self.parts.append(BLOCK_SEPARATOR)
            self.length += len(BLOCK_SEPARATOR)
        start = self.length
        self.parts.append(text)
        self.length += len(text)
        return start

    def text(self) -> str:
        return "".join(self.parts)

    def splice(
        self,
        doc: Document,
        *,
        path: tuple[str, ...],
        level: int,
        metadata: Metadata,
        keep_top: bool = True,
    ) -> None:
        """Add a parsed document's text and sections, shifted and nested under ``path``.

        Heading levels move down by ``level``; every section gets ``metadata``. Without
        ``keep_top``, the document's own top heading is not added to ``path`` (it stands
        for ``path``'s last title, as an EPUB chapter's heading does for its navigation title).
        """
        text = doc.text.rstrip()  # a text attachment's final line feeds
        if not text:
            return
        offset = self.append(text)
        last = self.length

        def shift(span: tuple[int, int]) -> tuple[int, int]:
            return span[0] + offset, min(span[1] + offset, last)

        top = _top_heading(doc) if not keep_top else None
        for s in doc.sections:
            own = s.headings[1:] if top is not None and s.headings[:1] == (top,) else s.headings
            self.sections.append(
                Section(
                    s.start + offset,
                    min(s.end + offset, last),
                    s.kind,
                    path + own,
                    s.level + level if s.level else 0,
                    {**s.metadata, **metadata},
                    None if s.header is None else shift(s.header),
                    tuple(shift(p) for p in s.parts),
                )
            )
        if not doc.sections:
            self.sections.append(Section(offset, last, "prose", path, 0, dict(metadata)))


def _top_heading(doc: Document) -> str | None:
    """Return the title of a document's first heading when it is of the top level."""
    first = next((s for s in doc.sections if s.kind == "heading"), None)
    return first.headings[-1] if first is not None and first.level == 1 else None
