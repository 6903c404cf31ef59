"""The coverage check: every ``w:t`` of the parts read is in the text, or left out on purpose.

After parsing, each ``w:t`` of the body, the notes and (when read) the comments that the parser
did not read is classed by where it sits: the VML fallback of a shape whose DrawingML was read
(the same words twice), a tracked deletion or moved-away text, a content control showing its
placeholder: all deliberate and counted. Anything else was dropped by mistake: it is counted as
``unread`` and the parser warns, so no content goes missing in silence.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ragchunk.parsers.docx.runs import MC, W

if TYPE_CHECKING:
    from collections.abc import Iterable

_DELIBERATE: Final = frozenset({W + "del", W + "moveFrom", MC + "Fallback"})


def unread_runs(roots: Iterable[Any], seen: set[Any]) -> list[str]:
    """Return the text of every ``w:t`` under ``roots`` neither read nor left out on purpose."""
    missed = []
    for root in roots:
        for run in root.iter(W + "t"):
            if run in seen or not (run.text or "").strip() or _deliberate(run, root):
                continue
            missed.append(str(run.text))
    return missed


def _deliberate(run: Any, root: Any) -> bool:
    parent = run.getparent()
    while parent is not None and parent is not root:
        if parent.tag in _DELIBERATE:
            return True
        if parent.tag == W + "sdt":
            properties = parent.find(W + "sdtPr")
            if properties is not None and properties.find(W + "showingPlcHdr") is not None:
                return True
        parent = parent.getparent()
    return False
