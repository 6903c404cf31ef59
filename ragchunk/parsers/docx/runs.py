"""A paragraph's reading text: its runs, wherever they sit, and what is deliberately left out.

Runs are read inside hyperlinks, content controls, fields (their result, never the instruction),
smart tags and tracked insertions; tracked deletions and moved-away text are left out and
counted. Office Math reads as its linear text (``math``), in place. A content control still
showing its placeholder ("Click or tap here to enter text.") is left out and counted. A text
box or shape with text is not read inline: its content is returned, to follow the paragraph as
blocks of its own (for DrawingML with a VML fallback, Word's usual form, only the DrawingML).
Note and comment references are returned with their offsets. Every ``w:t`` read is recorded,
so the parser can tell which text it never reached (``coverage``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Final

from ragchunk.parsers.docx.math import M, linear

W: Final = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC: Final = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
EXPLICIT: Final = "explicit"
RENDERED: Final = "rendered"
_INLINE_TEXT: Final = {
    W + "tab": "\t",
    W + "ptab": "\t",
    W + "cr": "\n",
    W + "noBreakHyphen": "-",
}
# Property elements and field instructions hold no reading text.
_SKIPPED: Final = frozenset(
    W + name for name in ("pPr", "rPr", "sdtPr", "instrText", "delInstrText", "fldData")
)
_LEFT_OUT: Final = {W + "del": "deleted", W + "moveFrom": "moved away"}
_SHAPES: Final = frozenset({W + "drawing", W + "pict", W + "object"})
_REFERENCES: Final = {
    W + "footnoteReference": "footnote",
    W + "endnoteReference": "endnote",
    W + "commentReference": "comment",
}
BOX: Final = W + "txbxContent"


@dataclass(slots=True)
class Reading:
    """What the parser has read so far, across paragraphs and parts."""

    seen: set[Any] = field(default_factory=set)
    """Every ``w:t`` element read (lxml keeps a proxy alive while it is referenced)."""
    left_out: Counter[str] = field(default_factory=Counter)
    """Text deliberately not read, by reason: ``deleted``, ``moved away``, ``placeholder``."""
    equations: int = 0
    boxes: int = 0


@dataclass(slots=True)
class Inline:
    """A paragraph's text, page breaks, text boxes and note or comment references."""

    text: str
    breaks: list[tuple[int, str]]
    boxes: list[Any]
    references: list[tuple[int, str, str]]


def read_runs(paragraph: Any, reading: Reading) -> Inline:
    """Return a paragraph's (or cell paragraph's) reading text and what it refers to."""
    parts: list[str] = []
    length = 0
    inline = Inline("", [], [], [])
    stack = [iter(paragraph)]
    while stack:
        element = next(stack[-1], None)
        if element is None:
            stack.pop()
            continue
        tag = element.tag
        if not isinstance(tag, str) or tag in _SKIPPED:
            continue
        piece = _piece(element, tag, length, inline, reading, stack)
        parts.append(piece)
        length += len(piece)
    inline.text = "".join(parts)
    return inline


def _piece(
    element: Any, tag: str, length: int, inline: Inline, reading: Reading, stack: list[Any]
) -> str:
    """Return the text ``element`` adds; push what to walk into onto ``stack``."""
    if tag == W + "t":
        reading.seen.add(element)
        return str(element.text or "")
    if tag in _INLINE_TEXT:
        return _INLINE_TEXT[tag]
    if tag == W + "br":
        if element.get(W + "type") == "page":
            inline.breaks.append((length, EXPLICIT))
            return ""
        return "\n"
    if tag == W + "lastRenderedPageBreak":
        inline.breaks.append((length, RENDERED))
    elif tag in _REFERENCES:
        inline.references.append((length, _REFERENCES[tag], str(element.get(W + "id", ""))))
    elif tag in _LEFT_OUT:
        reading.left_out[_LEFT_OUT[tag]] += 1
    elif tag in (M + "oMath", M + "oMathPara"):
        reading.equations += 1
        return linear(element)
    elif tag == MC + "AlternateContent":
        stack.append(iter(_chosen(element)))
    elif tag in _SHAPES:
        found = outer_boxes(element)
        reading.boxes += len(found)
        inline.boxes += found
    elif tag == W + "sdt" and _shows_placeholder(element):
        reading.left_out["placeholder"] += 1
    else:
        stack.append(iter(element))
    return ""


def _chosen(alternate: Any) -> list[Any]:
    """Return the children of the branch to read: the choice, or the fallback when only it has text.

    Word writes a text box as DrawingML with a VML fallback holding the same words.
    """
    choice = alternate.find(MC + "Choice")
    fallback = alternate.find(MC + "Fallback")
    if choice is None:
        return [] if fallback is None else list(fallback)
    if fallback is not None and not _has_text(choice) and _has_text(fallback):
        return list(fallback)
    return list(choice)


def _has_text(element: Any) -> bool:
    return any(True for _ in element.iter(W + "t", M + "t"))


def outer_boxes(element: Any) -> list[Any]:
    """Return the text boxes in a shape that are not inside another of them, in order."""
    return [box for box in element.iter(BOX) if _box_ancestor(box, element) is None]


def _box_ancestor(box: Any, stop: Any) -> Any:
    parent = box.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == BOX:
            return parent
        parent = parent.getparent()
    return None


def _shows_placeholder(sdt: Any) -> bool:
    properties = sdt.find(W + "sdtPr")
    return properties is not None and properties.find(W + "showingPlcHdr") is not None
