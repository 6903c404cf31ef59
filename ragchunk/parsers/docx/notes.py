"""The parts beside the body: footnotes, endnotes and comments (read), headers and footers (not).

Notes follow the body as sections of their own: footnotes in the order of their references,
then endnotes, then (with ``--comments``) comments; a note no reference points at comes after
the others of its kind, so none is dropped. Each section's kind names the part (``footnote``,
``endnote``, ``comment``), its path is ``("Footnotes",)`` and so on, and its metadata holds the
note's id and the offset of its reference mark in the text (``reference``; a comment's author
too). Word's separator notes hold no text and are skipped. Headers and footers are left out
(they repeat on every page, like a PDF's running headers) and counted.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Final

from docx.oxml import parse_xml

from ragchunk.parsers._builder import HeadingPath
from ragchunk.parsers.docx.body import Builder, add_blocks
from ragchunk.parsers.docx.styles import W

if TYPE_CHECKING:
    from ragchunk.model import JSONValue

_KINDS: Final = {
    "footnotes": ("footnote", "Footnotes"),
    "endnotes": ("endnote", "Endnotes"),
    "comments": ("comment", "Comments"),
}
_LEFT_OUT_KINDS: Final = frozenset({"header", "footer"})


@dataclass(frozen=True, slots=True)
class Part:
    """A part the main document relates to: its name, what it holds, and its XML."""

    name: str
    kind: str
    element: Any


def related_parts(document: Any) -> list[Part]:
    """Return the notes, comments, header and footer parts of a python-docx document."""
    found = []
    for relationship in document.part.rels.values():
        if relationship.is_external:
            continue
        kind = relationship.reltype.rsplit("/", 1)[-1]
        if kind not in _KINDS and kind not in _LEFT_OUT_KINDS:
            continue
        part = relationship.target_part
        element = getattr(part, "element", None)
        if element is None:
            element = parse_xml(part.blob)
        found.append(Part(str(part.partname).lstrip("/"), kind, element))
    found.sort(key=lambda part: part.name)
    return found


def add_notes(parts: list[Part], builder: Builder, *, comments: bool) -> None:
    """Append footnotes, endnotes and (``comments``) comments after the body."""
    for kind in ("footnotes", "endnotes", "comments"):
        if kind == "comments" and not comments:
            continue
        for part in (part for part in parts if part.kind == kind):
            _add_part(part, builder)


def _add_part(part: Part, builder: Builder) -> None:
    kind, title = _KINDS[part.kind]
    tag = W + kind
    notes = {
        str(note.get(W + "id", "")): note
        for note in part.element.iter(tag)
        if note.get(W + "type") in (None, "normal")
    }
    order = [key for at, found, key in builder.references if found == kind and key in notes]
    where = {key: at for at, found, key in reversed(builder.references) if found == kind}
    for key in [*dict.fromkeys(order), *(key for key in notes if key not in order)]:
        note = notes[key]
        metadata: dict[str, JSONValue] = {"note": kind, "id": key}
        if key in where:
            metadata["reference"] = where[key]
        author = note.get(W + "author")
        if author:
            metadata["author"] = author
        _add_note(note, builder, title, metadata)


def _add_note(note: Any, builder: Builder, title: str, metadata: dict[str, JSONValue]) -> None:
    """Add a note's blocks under ``title``, each a section of the note's kind."""
    builder.close_list()
    saved = builder.path
    builder.path = HeadingPath([(1, title)])
    first = len(builder.sections)
    add_blocks(note, builder, metadata)
    builder.path = saved
    kind = str(metadata["note"])
    for index in range(first, len(builder.sections)):
        section = builder.sections[index]
        if section.kind == "prose":
            builder.sections[index] = replace(section, kind=kind, metadata=metadata)


def _text(paragraph: Any) -> str:
    return " ".join("".join(t.text or "" for t in paragraph.iter(W + "t")).split())


def left_out_parts(parts: list[Part], *, comments: bool) -> list[JSONValue]:
    """Return the related parts not read, as records for ``Document.extraction``."""
    records: list[JSONValue] = []
    for part in parts:
        if part.kind == "comments" and not comments:
            count = sum(1 for _ in part.element.iter(W + "comment"))
            records.append({"kind": "comments", "part": part.name, "count": count})
        elif part.kind in _LEFT_OUT_KINDS:
            texts = [_text(paragraph) for paragraph in part.element.iter(W + "p")]
            text = " / ".join(t for t in texts if t)
            if text:
                records.append({"kind": part.kind, "part": part.name, "text": text})
    return records
