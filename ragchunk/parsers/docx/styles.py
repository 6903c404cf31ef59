"""Paragraph styles: what a style makes of a paragraph (heading rank, list item, page break).

Every paragraph style is resolved through its ``basedOn`` chain (cycles cut). Headings come from
the styles Title and Heading 1–9 and from outline levels, direct or inherited; Title is rank 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final

from docx.styles import BabelFish

W: Final = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING_STYLE: Final = re.compile(r"heading ([1-9])")


@dataclass(frozen=True, slots=True)
class Style:
    """What a paragraph style contributes: its name, outline level and list numbering."""

    name: str
    outline: int | None
    numbered: bool
    break_before: bool
    style_id: str = ""
    num_id: str | None = None
    """The list this style numbers its paragraphs in (``w:numPr/w:numId``), inherited."""
    ilvl: int | None = None


def read_styles(document: Any) -> dict[str, Style]:
    """Resolve every paragraph style of a python-docx document; ``""`` is the default."""
    raw: dict[str, tuple[str, Any, str | None]] = {}
    default = ""
    for style in document.styles.element.findall(W + "style"):
        if style.get(W + "type") != "paragraph":
            continue
        style_id = style.get(W + "styleId") or ""
        name = style.find(W + "name")
        based = style.find(W + "basedOn")
        raw[style_id] = (
            # core.xml spells built-in names in lower case ("heading 1"); show Word's UI name.
            BabelFish.internal2ui((name.get(W + "val") if name is not None else "") or style_id),
            style.find(W + "pPr"),
            based.get(W + "val") if based is not None else None,
        )
        if style.get(W + "default") in ("1", "true"):
            default = style_id
    resolved = {style_id: _resolve(style_id, raw) for style_id in raw}
    resolved[""] = resolved.get(default, Style("Normal", None, numbered=False, break_before=False))
    return resolved


def _resolve(style_id: str, raw: dict[str, tuple[str, Any, str | None]]) -> Style:
    name = raw[style_id][0]
    outline: int | None = None
    numbered = break_before = None
    num_id: str | None = None
    ilvl: int | None = None
    seen: set[str] = set()
    current: str | None = style_id
    while current in raw and current not in seen:
        seen.add(current)
        _, properties, current_base = raw[current]
        if outline is None:
            outline = outline_level(properties)
        if numbered is None:
            numbered = numbering(properties)
        if break_before is None:
            break_before = flag(properties, "pageBreakBefore")
        own_id, own_level = list_reference(properties)
        num_id = own_id if num_id is None else num_id
        ilvl = own_level if ilvl is None else ilvl
        current = current_base
    return Style(
        name, outline, bool(numbered), bool(break_before), style_id, num_id=num_id, ilvl=ilvl
    )


def list_reference(properties: Any) -> tuple[str | None, int | None]:
    """Return the ``w:numPr`` numId and ilvl set in paragraph properties (None when unset)."""
    if properties is None:
        return None, None
    number = properties.find(f"{W}numPr/{W}numId")
    level = properties.find(f"{W}numPr/{W}ilvl")
    value = level.get(W + "val") if level is not None else None
    return (
        None if number is None else number.get(W + "val"),
        int(value) if value is not None and value.isdigit() else None,
    )


def outline_level(properties: Any) -> int | None:
    """Return the ``w:outlineLvl`` set in paragraph properties, or None."""
    if properties is None:
        return None
    element = properties.find(W + "outlineLvl")
    value = element.get(W + "val") if element is not None else None
    return int(value) if value is not None and value.isdigit() else None


def numbering(properties: Any) -> bool | None:
    """Return whether numbering is on (numId 0 turns it off), or None when unset here."""
    if properties is None:
        return None
    number = properties.find(f"{W}numPr/{W}numId")
    return None if number is None else number.get(W + "val") not in (None, "0")


def flag(properties: Any, name: str) -> bool | None:
    """Return an on/off property (``w:pageBreakBefore``), or None when unset."""
    element = properties.find(W + name) if properties is not None else None
    if element is None:
        return None
    return element.get(W + "val") not in ("0", "false", "off")


def paragraph_style(paragraph: Any, styles: dict[str, Style]) -> tuple[Style, Any]:
    """Return a paragraph's style and its own properties (``w:pPr``)."""
    properties = paragraph.find(W + "pPr")
    style_ref = properties.find(W + "pStyle") if properties is not None else None
    style_id = style_ref.get(W + "val") if style_ref is not None else ""
    return styles.get(style_id or "", styles[""]), properties


def heading_rank(style: Style, properties: Any) -> int | None:
    """Return 0 for Title, 1–9 for headings (style name or outline level), else None."""
    name = style.name.strip().lower()
    if name == "title":
        return 0
    match = _HEADING_STYLE.fullmatch(name)
    if match:
        return int(match.group(1))
    outline = outline_level(properties)
    outline = style.outline if outline is None else outline
    return outline + 1 if outline is not None and outline < 9 else None
