"""List and heading numbers as Word prints them, from ``word/numbering.xml``.

A paragraph's ``w:numPr`` (``numId``, ``ilvl``; set on the paragraph or inherited from its
style) names a ``w:num``, which names an ``w:abstractNum`` (through ``numStyleLink`` to the
one whose ``styleLink`` matches, if any) holding up to nine levels: ``w:start``, ``w:numFmt``
(decimal, letters, roman numerals, bullet, none...), ``w:lvlText`` (``%1.%2``: the current
number of levels 1 and 2), ``w:lvlRestart``, ``w:isLgl`` and ``w:suff``. A ``w:num``'s
``w:lvlOverride`` may replace a level or restart it (``w:startOverride``). Counters are kept
per abstract numbering, so that lists sharing one continue each other as in Word, except for a
``w:num`` with overrides, which counts on its own. Each numbered paragraph advances its level
and restarts the deeper ones (or those whose ``lvlRestart`` names a shallower level); a
shallower level not used yet counts as used once (``1.1.1`` then ``1.2``, as Word numbers). A bullet
reads ``•``; the label and its separator (a space for a tab or space) start the paragraph.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from ragchunk.parsers.docx.styles import W

_LEVELS: Final = 9
_BULLET: Final = "\u2022"
_ROMAN: Final = (
    (1000, "m"),
    (900, "cm"),
    (500, "d"),
    (400, "cd"),
    (100, "c"),
    (90, "xc"),
    (50, "l"),
    (40, "xl"),
    (10, "x"),
    (9, "ix"),
    (5, "v"),
    (4, "iv"),
    (1, "i"),
)
_MAX_LABEL: Final = 64


@dataclass(frozen=True, slots=True)
class Level:
    """One level of a list definition."""

    start: int = 1
    fmt: str = "decimal"
    text: str = ""
    restart: int | None = None
    legal: bool = False
    suffix: str = " "
    style: str | None = None


@dataclass(slots=True)
class Numbering:
    """The document's list definitions and the counters of the paragraphs read so far."""

    abstract: dict[str, dict[int, Level]] = field(default_factory=dict)
    nums: dict[str, tuple[str, dict[int, Level], bool]] = field(default_factory=dict)
    counters: dict[str, list[int | None]] = field(default_factory=dict)

    def label(self, num_id: str, ilvl: int | None, style_id: str | None = None) -> str:
        """Return the printed label and separator for the next paragraph of this list, or "".

        ``ilvl`` None (a style's numbering without a level) takes the level linked to
        ``style_id`` (``w:pStyle`` in the level), else level 0.
        """
        if num_id not in self.nums:
            return ""
        abstract_id, overrides, own = self.nums[num_id]
        levels = {**self.abstract.get(abstract_id, {}), **overrides}
        if ilvl is None:
            ilvl = next((k for k, lvl in levels.items() if lvl.style == style_id), 0)
        ilvl = min(max(ilvl, 0), _LEVELS - 1)
        key = f"num:{num_id}" if own else abstract_id
        counts = self.counters.setdefault(key, [None] * _LEVELS)
        level = levels.get(ilvl, Level())
        current = counts[ilvl]
        counts[ilvl] = level.start if current is None else current + 1
        for shallower in range(ilvl):
            if counts[shallower] is None:  # a skipped level counts as used, as in Word
                counts[shallower] = levels.get(shallower, Level()).start
        for deeper in range(ilvl + 1, _LEVELS):
            restart = levels.get(deeper, Level()).restart
            if restart is None or (restart != 0 and restart - 1 >= ilvl):
                counts[deeper] = None
        return _render(level, levels, counts)


def _render(level: Level, levels: dict[int, Level], counts: list[int | None]) -> str:
    if level.fmt == "bullet":
        return _BULLET + " "
    text = level.text
    for index in range(_LEVELS):
        placeholder = f"%{index + 1}"
        if placeholder not in text:
            continue
        other = levels.get(index, Level())
        value = counts[index] if counts[index] is not None else other.start
        fmt = "decimal" if level.legal else other.fmt
        text = text.replace(placeholder, format_number(value or 0, fmt))
    text = text.strip()[:_MAX_LABEL]
    if not text:
        return ""
    return text + level.suffix


def format_number(value: int, fmt: str) -> str:
    """Return ``value`` in a ``w:numFmt`` (decimal for formats not listed)."""
    if fmt in ("lowerLetter", "upperLetter"):
        letter = chr(ord("a") + (value - 1) % 26) * ((value - 1) // 26 + 1) if value > 0 else ""
        return letter.upper() if fmt == "upperLetter" else letter
    if fmt in ("lowerRoman", "upperRoman"):
        roman = _roman(value)
        return roman.upper() if fmt == "upperRoman" else roman
    if fmt == "decimalZero":
        return f"{value:02d}"
    if fmt == "none":
        return ""
    return str(value)


def _roman(value: int) -> str:
    if not 0 < value < 4000:
        return str(value)
    out = []
    for amount, digits in _ROMAN:
        count, value = divmod(value, amount)
        out.append(digits * count)
    return "".join(out)


def read_numbering(root: Any) -> Numbering:
    """Read ``w:numbering`` (None: a document without lists)."""
    numbering = Numbering()
    if root is None:
        return numbering
    links: dict[str, str] = {}
    style_links: dict[str, str] = {}
    for abstract in root.findall(W + "abstractNum"):
        abstract_id = abstract.get(W + "abstractNumId") or ""
        numbering.abstract[abstract_id] = _levels(abstract)
        link = abstract.find(W + "numStyleLink")
        if link is not None:
            links[abstract_id] = link.get(W + "val") or ""
        defined = abstract.find(W + "styleLink")
        if defined is not None:
            style_links[defined.get(W + "val") or ""] = abstract_id
    for abstract_id, style in links.items():
        target = style_links.get(style)
        if target is not None and not numbering.abstract[abstract_id]:
            numbering.abstract[abstract_id] = numbering.abstract[target]
    for num in root.findall(W + "num"):
        ref = num.find(W + "abstractNumId")
        overrides: dict[int, Level] = {}
        base = numbering.abstract.get(ref.get(W + "val") or "" if ref is not None else "", {})
        for override in num.findall(W + "lvlOverride"):
            ilvl = _int(override.get(W + "ilvl"))
            if ilvl is None:
                continue
            level = override.find(W + "lvl")
            found = _level(level) if level is not None else base.get(ilvl, Level())
            start = _int(_val(override.find(W + "startOverride")))
            if start is not None:
                found = Level(
                    start,
                    found.fmt,
                    found.text,
                    found.restart,
                    found.legal,
                    found.suffix,
                    found.style,
                )
            overrides[ilvl] = found
        abstract_id = ref.get(W + "val") or "" if ref is not None else ""
        numbering.nums[num.get(W + "numId") or ""] = (abstract_id, overrides, bool(overrides))
    return numbering


def _levels(abstract: Any) -> dict[int, Level]:
    levels = {}
    for level in abstract.findall(W + "lvl"):
        ilvl = _int(level.get(W + "ilvl"))
        if ilvl is not None:
            levels[ilvl] = _level(level)
    return levels


def _level(level: Any) -> Level:
    start = _int(_val(level.find(W + "start")))
    suffix = _val(level.find(W + "suff"))
    legal = level.find(W + "isLgl")
    return Level(
        start=1 if start is None else start,
        fmt=_val(level.find(W + "numFmt")) or "decimal",
        text=_val(level.find(W + "lvlText")) or "",
        restart=_int(_val(level.find(W + "lvlRestart"))),
        legal=legal is not None and _val(legal) not in ("0", "false", "off"),
        suffix="" if suffix == "nothing" else " ",
        style=_val(level.find(W + "pStyle")),
    )


def _val(element: Any) -> str | None:
    return None if element is None else element.get(W + "val")


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
