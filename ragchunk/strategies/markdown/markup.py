"""What a Markdown block says about its neighbours: bold labels, container openers and closers.

A paragraph whose first line is nothing but bold text (``**Refund policy**``) is a label for the
text after it. Some blocks open a container whose content follows (an HTML element on a line of
its own, a ``/// name`` block, an admonition or content tab whose body is indented) and some
only close one (``</div>``, a ``///`` line): MkDocs, pymdown-extensions, md_in_html. A chunk
should never end after an opener or start with a closer when the two fit together.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    from ragchunk.model import Section

# The first line of a paragraph that is nothing but bold text (an optional colon after it).
_LABEL: Final = re.compile(r"[ \t]*(\*\*|__)(?=\S)(?P<label>[^\n]*?\S)\1[ \t]*:?[ \t]*(?:\r?\n|\Z)")
_HTML_OPENER: Final = re.compile(r"<([A-Za-z][\w-]*)\b[^>]*(?<!/)>[ \t]*")
_HTML_CLOSER: Final = re.compile(r"(?:[ \t]*</[A-Za-z][\w-]*[ \t]*>[ \t]*(?:\r?\n|$))+")
_VOID_TAGS: Final = frozenset(("br", "hr", "img", "input", "meta", "link", "wbr", "source"))
_BLOCK_OPENER: Final = re.compile(r"///[ \t]*[\w-]")
_BLOCK_CLOSER: Final = re.compile(r"///[ \t]*")
_INDENTED_OPENER: Final = re.compile(r"(?:!!!|\?\?\?\+?|===)[ \t]")


class Glue(NamedTuple):
    """How a block holds to its neighbours.

    Attributes:
        leads: it opens a container: it belongs with what follows.
        trails: it closes one (or continues an indented body): it belongs with what precedes.
        indented: blocks after it that are indented belong to it (an admonition's body).
    """

    leads: bool
    trails: bool
    indented: bool


_LOOSE: Final = Glue(leads=False, trails=False, indented=False)


def glue(text: str, section: Section, *, indented: bool) -> Glue:
    """Return how the block ``section`` holds to its neighbours.

    ``indented`` says whether the blocks before it are an admonition or tab and its indented
    body, which an indented block continues (it closes nothing, but belongs to them).
    """
    start, end = section.start, section.end
    first_line = text[start : text.find("\n", start, end) if "\n" in text[start:end] else end]
    if section.kind == "html":
        if _HTML_CLOSER.fullmatch(text, start, end):
            return Glue(leads=False, trails=True, indented=False)
        opener = _HTML_OPENER.fullmatch(text, start, end)
        if opener is not None and opener.group(1).lower() not in _VOID_TAGS:
            return Glue(leads=True, trails=False, indented=False)
        return _LOOSE
    if text[start] in " \t" and indented:
        return Glue(leads=True, trails=True, indented=True)  # more of the body may follow
    if section.kind != "prose":
        return _LOOSE
    if _BLOCK_CLOSER.fullmatch(text, start, end):
        return Glue(leads=False, trails=True, indented=False)
    last_line = text[text.rfind("\n", start, end) + 1 : end].strip()
    if _BLOCK_OPENER.match(first_line) and last_line != "///":
        return Glue(leads=True, trails=False, indented=False)
    if _INDENTED_OPENER.match(first_line):
        return Glue(leads=True, trails=False, indented=True)
    return _LOOSE


def find_label(text: str, section: Section) -> tuple[str, str] | None:
    """Return the label opening a paragraph and its line (ending in a newline), if any."""
    if section.kind != "prose":
        return None
    found = _LABEL.match(text, section.start, section.end + 2)
    if found is None or found.group(1) in found.group("label"):
        return None  # not a paragraph opening with a bold line, or **two** **bolds**
    line = found.group(0).lstrip(" \t")
    return found.group("label"), line if line.endswith("\n") else line + "\n"
