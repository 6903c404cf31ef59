"""What the data formats share (JSON, JSONL, YAML, TOML): the text verbatim, cut between members.

A parser finds the *members* of its file in document order: each key with its value, each item
of a list, each table of a TOML file, with where it starts and the key path a chunk starting
there sits under (a container's own path, ``servers › 0 › ports``; a scalar's parent's path).
``sections`` tiles the text into ``value`` sections, one from each member to the next, so the
strategies that pack sections (``markdown``) cut only between members, never inside a scalar,
and a chunk's heading path is the key path where it starts. A member that is the first of its
container starts no section of its own: it stays with the line that opens the container
(``"servers": [`` with ``{`` and ``"name": "a"``), so no chunk ends on an opener. A
*heading* member's opening line is a ``heading`` section of level 1 of its own (a TOML table's
header; a top-level key whose value is a mapping or a list), so the structure-aware strategies
start a chunk there and keep what follows under its path. A list
item's section starts at its ``-`` (YAML), and comment lines right above a member go with it.
Key paths deeper than ``MAX_DEPTH`` start no section; a key is cut to ``MAX_KEY`` characters in
a path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from ragchunk.model import Document, Section

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ragchunk.model import Metadata
    from ragchunk.parsers._spec import ParseRequest

MAX_DEPTH: Final = 32
"""Members nested deeper than this stay in the section of their ancestor."""
MAX_KEY: Final = 120
"""The most characters of a key shown in a heading path."""
_BLANK: Final = " \t\r\n\f\v"


class Member(NamedTuple):
    """Where a member starts and the key path of a chunk starting there.

    ``first``: the first member of its container (it starts no section); ``heading``: a member
    whose opening line is a heading (a TOML table's header, a top-level key holding a
    mapping or a list), which ends at its first member.
    """

    start: int
    path: tuple[str, ...]
    first: bool = False
    heading: bool = False


def key(name: str) -> str:
    """Return a key as a heading path shows it: one line, at most ``MAX_KEY`` characters."""
    shown = " ".join(name.split()) or repr(name)
    return shown if len(shown) <= MAX_KEY else shown[: MAX_KEY - 1] + "…"


def sections(text: str, members: Iterable[Member], *, comment: str | None = None) -> list[Section]:
    """Return ``value`` sections tiling ``text``'s non-blank text, one per kept member."""
    starts: list[tuple[int, tuple[str, ...], bool]] = []
    after_heading = False
    for member in members:
        if (member.first and not member.heading and not after_heading) or (
            len(member.path) > MAX_DEPTH
        ):
            continue
        after_heading = member.heading
        start = _line_start(text, member.start, comment)
        if starts and start == starts[-1][0] and member.heading:
            starts[-1] = (start, member.path, True)  # a heading opening its container
            continue
        if starts and start <= starts[-1][0]:
            continue  # an alias (YAML) points back at its anchor; or the same line
        starts.append((start, member.path, member.heading))
    first = _skip_blank(text, 0, len(text))
    if first == len(text):
        return []
    if not starts or starts[0][0] > first:
        starts.insert(0, (first, (), False))
    found: list[Section] = []
    for index, (start, path, heading) in enumerate(starts):
        end = starts[index + 1][0] if index + 1 < len(starts) else len(text)
        end = _trim_end(text, start, end)
        if end > start:
            kind, level = ("heading", 1) if heading else ("value", 0)
            found.append(Section(start, end, kind, path, level))
    return found


def document(
    text: str, request: ParseRequest, format: str, found: list[Section], metadata: Metadata
) -> Document:
    """Return the Document of a data file: its text verbatim, its sections."""
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format=format,
        sections=tuple(found),
        has_lines=True,
        metadata=metadata,
    )


def _line_start(text: str, start: int, comment: str | None) -> int:
    """Return where a member starting at ``start`` starts its section.

    That is its line's first mark when only list dashes and spaces precede it, then the first
    of the comment lines right above it.
    """
    line = text.rfind("\n", 0, start) + 1
    before = text[line:start]
    if before.strip(" \t-"):
        return start
    start = line + len(before) - len(before.lstrip(" \t"))
    if comment is None:
        return start
    while line > 0:
        above = text.rfind("\n", 0, line - 1) + 1
        stripped = text[above : line - 1].strip()
        if not stripped.startswith(comment):
            break
        line = above
        start = above + text[above:].index(comment)
    return start


def _skip_blank(text: str, start: int, end: int) -> int:
    while start < end and text[start] in _BLANK:
        start += 1
    return start


def _trim_end(text: str, start: int, end: int) -> int:
    if end > start and text[end - 1] not in _BLANK:
        return end
    return start + len(text[start:end].rstrip(_BLANK))
