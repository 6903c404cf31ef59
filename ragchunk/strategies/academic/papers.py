"""A scholarly paper's sections by their headings: abstract, the usual sections, references.

A heading's title is read without its number (``2.1``, ``IV.``) and matched against the names
papers use: ``Abstract`` / ``Summary``; ``Introduction``, ``Background``, ``Methods``
(``Materials and methods``, ``Methodology``), ``Results``, ``Discussion``, ``Conclusion(s)``,
``Acknowledgements``, ``Appendix``...; ``References`` / ``Bibliography`` / ``Works cited`` /
``Literature cited``. The section level is that of the first heading with such a name.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ragchunk.model import Section

_NUMBER: Final = re.compile(r"^\s*(?:(?:\d+|[A-Z])(?:\.\d+)*\.?|[IVXLC]+\.)\s+")
_NAMES: Final = {
    "abstract": "abstract",
    "summary": "abstract",
    "introduction": "introduction",
    "background": "background",
    "related work": "related work",
    "methods": "methods",
    "method": "methods",
    "materials and methods": "methods",
    "methodology": "methods",
    "data and methods": "methods",
    "experiments": "results",
    "results": "results",
    "results and discussion": "results",
    "discussion": "discussion",
    "conclusion": "conclusions",
    "conclusions": "conclusions",
    "acknowledgements": "acknowledgements",
    "acknowledgments": "acknowledgements",
    "data availability": "data availability",
    "references": "references",
    "bibliography": "references",
    "works cited": "references",
    "literature cited": "references",
    "references and notes": "references",
}
_APPENDIX: Final = re.compile(r"appendix\b", re.IGNORECASE)


def split_number(title: str) -> tuple[str, str]:
    """Return a heading's number (``2.1``, or ``""``) and its title without it."""
    match = _NUMBER.match(title)
    if match is None:
        return "", title.strip()
    return match.group().strip().rstrip("."), title[match.end() :].strip()


def section_kind(title: str) -> str:
    """Return the canonical name of a section heading (``methods``...), or ``""``."""
    _, bare = split_number(title)
    name = " ".join(bare.lower().rstrip(".:").split())
    if name in _NAMES:
        return _NAMES[name]
    return "appendix" if _APPENDIX.match(name) else ""


def section_level(sections: Sequence[Section]) -> int:
    """Return the heading level of the paper's sections (that of its first named one)."""
    named = [s.level for s in sections if s.kind == "heading" and section_kind(_title(s))]
    if named:
        return named[0]
    levels = [s.level for s in sections if s.kind == "heading"]
    return min(levels, default=1)


def _title(section: Section) -> str:
    return section.headings[-1] if section.headings else ""
