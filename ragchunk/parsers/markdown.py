"""markdown: the decoded file, verbatim, with one section per top-level block (SPEC §1).

Blocks come from markdown-it-py (CommonMark plus GFM tables) and their spans from ``token.map``
source lines, never from ``token.content`` (which turns CRLF into LF and NUL into U+FFFD). A
section ends at its last non-whitespace character. Kinds: ``heading`` (ATX and setext, with
``level``), ``prose``, ``list`` (item spans in ``parts``), ``quote``, ``table`` (header
rows in ``header``, body rows in ``parts``), ``code`` (fenced or indented), ``html``, ``rule`` and
``front_matter`` (a leading ``---`` block, never a heading). Text no block claims (link
reference definitions, content past the nesting cap) becomes ``prose``, so the sections cover
every non-whitespace character. Each section's ``headings`` is its heading path, each name
without a trailing attribute list (``## Body { #body }`` is ``Body``; the text keeps it).
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING, Final, Literal

from markdown_it import MarkdownIt
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.token import Token

from ragchunk.model import Document, Section
from ragchunk.parsers._builder import HeadingPath
from ragchunk.parsers._decode import decode
from ragchunk.parsers._spec import Format

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from markdown_it.rules_core.state_core import StateCore

    from ragchunk.model import JSONValue
    from ragchunk.parsers._spec import ParseRequest

# markdown-it's own notion of a line ending (rules_core/normalize.py): a lone CR ends a line
# too, so line starts are found with the same pattern (an LF-only line index would miss it).
_NEWLINE: Final = re.compile(r"\r\n?|\n")
_FRONT_MATTER_FENCES: Final = ("---", "...")
_BLANK: Final = " \t\r\n\f\v"
# A trailing attribute list (MkDocs attr_list, Pandoc header attributes): ``{ #id .class k="v" }``,
# with an optional ``:`` after the brace. Only ids, classes and key=value pairs count, so a heading
# ending in ``{braces}`` keeps them.
_ATTRIBUTE: Final = r"""(?:[#.][^\s{}="']+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s{}"']+))"""
_ATTRIBUTES: Final = re.compile(rf"[ \t]*\{{:?[ \t]*(?:{_ATTRIBUTE}[ \t]*)+\}}[ \t]*$")
MAX_NESTING: Final = 20
"""Block and inline nesting beyond this is not parsed (its text stays, as ``prose``)."""

_KINDS: Final = {
    "paragraph_open": "prose",
    "blockquote_open": "quote",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "hr": "rule",
    "heading_open": "heading",
}


@cache
def _block_parser() -> MarkdownIt:
    """Return a parser that stops at blocks: inline parsing is only needed for headings."""
    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING}).enable("table")
    md.core.ruler.at("block", _lean_block)
    return md.disable(["inline", "text_join"])


def _lean_block(state: StateCore) -> None:
    """markdown-it's core ``block`` rule, tokenizing into a ``_LeanState``."""
    block = _LeanState(state.src, state.md, state.env, state.tokens)
    state.md.block.tokenize(block, block.line, block.lineMax)


class _LeanState(StateBlock):
    """A block state that keeps only the tokens ``find_sections`` reads.

    Those are the tokens of levels 0 and 1 (blocks, list items, a heading's inline) and a
    table's rows at level 2. Every other token is never made: rules get a shared stand-in to
    set fields on (none reads a token back but through ``tokens``), and pairs are dropped
    together, so nesting stays balanced. Each token costs about 300 bytes; a 5 MB table (three
    tokens per cell) or list (five per item) took over 500 MB.
    """

    def push(self, ttype: str, tag: str, nesting: Literal[-1, 0, 1]) -> Token:
        """Push a token as markdown-it does, unless it is never read."""
        level = self.level - 1 if nesting < 0 else self.level  # the token's level in push()
        if level > 1 and not (level == 2 and ttype in _ROW_TOKENS):
            self.level += nesting
            return _STAND_IN
        return super().push(ttype, tag, nesting)


_ROW_TOKENS: Final = frozenset({"tr_open", "tr_close"})
_STAND_IN: Final = Token("dropped", "", 0)


@cache
def _inline_parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"maxNesting": MAX_NESTING})


def parse(data: bytes, request: ParseRequest) -> Document:
    """Return the decoded Markdown file with its block sections and heading paths.

    Offsets are absolute, half-open code-point indices into the decoded text.

    Raises:
        InputError: the data is binary.
    """
    text = decode(data, request)
    return Document(
        text=text,
        source=request.source,
        doc_id=request.doc_id,
        format="markdown",
        sections=tuple(find_sections(text)),
    )


def find_sections(text: str) -> list[Section]:
    """Return the sections of a Markdown text in document order, covering all its non-space."""
    starts = _line_starts(text)
    body_line = 0
    sections: list[Section] = []
    front_end = _front_matter_end(text, starts)
    if front_end:
        sections.append(Section(0, _trim_end(text, 0, front_end), "front_matter"))
        body_line = bisect_left(starts, front_end)
    body = text[starts[body_line] :] if body_line < len(starts) else ""
    with _collection_paused():
        tokens = _block_parser().parse(body)
    blocks = _Blocks(text, starts, body_line)
    sections += blocks.sections(tokens)
    return _fill_gaps(text, sections)


@contextmanager
def _collection_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while markdown-it builds its token list.

    The parse allocates millions of short-lived, acyclic objects; generational passes over
    the growing token list made large documents (100k list items or table rows) several
    times slower. Reference counting still frees everything; the previous state is restored.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Blocks:
    """Turns top-level block tokens into sections, tracking the heading path."""

    def __init__(self, text: str, starts: Sequence[int], line_offset: int) -> None:
        self.text = text
        self.starts = starts
        self.line_offset = line_offset
        self.path = HeadingPath()

    def span(self, line_map: Sequence[int]) -> tuple[int, int]:
        """Return the span of source lines ``[first, last)``, trailing whitespace excluded."""
        first = line_map[0] + self.line_offset
        last = line_map[1] + self.line_offset
        start = self.starts[first]
        end = self.starts[last] if last < len(self.starts) else len(self.text)
        return start, _trim_end(self.text, start, end)

    def headings(self) -> tuple[str, ...]:
        return tuple(title for title in self.path.titles() if title)

    def sections(self, tokens: Sequence[Token]) -> Iterator[Section]:
        for position, token in enumerate(tokens):
            kind = _KINDS.get(token.type)
            if kind is None or token.level != 0 or token.map is None:
                continue
            start, end = self.span(token.map)
            if start >= end:
                continue
            if kind == "heading":
                yield self.heading(token, tokens[position + 1], start, end)
                continue
            section = Section(start, end, kind, self.headings())
            if kind == "code" and token.map is not None:
                last = token.map[1] - 1 + self.line_offset
                metadata = _code_metadata(token, _line_text(self.text, self.starts, last))
                section = replace(section, metadata=metadata)
            elif kind == "list":
                section = self.with_items(section, token, tokens, position)
            elif kind == "table":
                section = self.with_rows(section, tokens, position)
            yield section

    def heading(self, token: Token, inline: Token, start: int, end: int) -> Section:
        level = int(token.tag[1:])
        self.path.enter(level, _plain_text(_ATTRIBUTES.sub("", inline.content)))
        style = "atx" if token.markup.startswith("#") else "setext"
        return Section(start, end, "heading", self.headings(), level, {"style": style})

    def with_items(
        self, section: Section, token: Token, tokens: Sequence[Token], position: int
    ) -> Section:
        items = tuple(
            self.span(child.map)
            for child in _children(tokens, position)
            # Direct items only: a nested list stays inside its parent item.
            if child.type == "list_item_open" and child.level == 1 and child.map is not None
        )
        metadata: dict[str, JSONValue] = {
            "ordered": token.type == "ordered_list_open",
            "marker": token.markup,
        }
        return replace(section, metadata=metadata, parts=items)

    def with_rows(self, section: Section, tokens: Sequence[Token], position: int) -> Section:
        rows: list[tuple[int, int]] = []
        header = None
        for child in _children(tokens, position):
            if child.type == "thead_open" and child.map is not None:
                # The delimiter row is the line after the header row; no token maps it.
                header = self.span((child.map[0], child.map[0] + 2))
            elif child.type == "tr_open" and child.map is not None and child.level == 2:
                rows.append(self.span(child.map))
        return replace(section, header=header, parts=tuple(rows[1:]))


def _children(tokens: Sequence[Token], position: int) -> Iterator[Token]:
    """Yield the tokens between ``tokens[position]`` (an opening token) and its closing one."""
    depth = 0
    # Indexing, not tokens[position:] or islice: both would make the walk quadratic.
    for index in range(position, len(tokens)):
        token = tokens[index]
        depth += token.nesting
        if depth == 0:
            return
        yield token


def _code_metadata(token: Token, last_line: str) -> dict[str, JSONValue]:
    """Return a code block's facts; ``last_line`` is its last source line, stripped."""
    if token.type == "code_block":
        return {"indented": True}
    info = token.info.strip()
    metadata: dict[str, JSONValue] = {"fence": token.markup, "info": info}
    if info:
        metadata["language"] = info.split()[0]
    # A fence left open runs to the end of its container; strategies may want to know.
    fence_line = token.map is not None and token.map[1] - token.map[0] >= 2
    closing = last_line.lstrip(" ")
    metadata["closed"] = (
        fence_line and len(closing) >= len(token.markup) and set(closing) == {token.markup[0]}
    )
    return metadata


def _plain_text(content: str) -> str:
    """Return a heading's inline Markdown as plain text: markup dropped, spaces collapsed."""
    parts: list[str] = []
    for inline in _inline_parser().parseInline(content):
        for child in inline.children or ():
            if child.type in ("text", "code_inline"):
                parts.append(child.content)
            elif child.type in ("softbreak", "hardbreak"):
                parts.append(" ")
            elif child.type == "image":
                parts.extend(c.content for c in child.children or ())
    return " ".join("".join(parts).split())


def _front_matter_end(text: str, starts: Sequence[int]) -> int:
    """Return where a leading ``---`` … ``---``/``...`` block ends (0 when there is none).

    The end is the start of the line after the closing fence.
    """
    if len(starts) < 2 or _line_text(text, starts, 0) != "---":
        return 0
    for line in range(1, len(starts)):
        if _line_text(text, starts, line) in _FRONT_MATTER_FENCES:
            return starts[line + 1] if line + 1 < len(starts) else len(text)
    return 0


def _line_text(text: str, starts: Sequence[int], line: int) -> str:
    """Return 0-based ``line`` without its line ending and trailing spaces or tabs."""
    end = starts[line + 1] if line + 1 < len(starts) else len(text)
    return text[starts[line] : end].rstrip("\r\n").rstrip(" \t")


def _fill_gaps(text: str, sections: list[Section]) -> list[Section]:
    """Add a ``prose`` section for any non-whitespace text between the sections."""
    filled: list[Section] = []
    position = 0
    headings: tuple[str, ...] = ()
    for section in [*sections, Section(len(text), len(text), "end")]:
        gap_start = _skip_blank(text, position, section.start)
        if gap_start < section.start:
            filled.append(
                Section(gap_start, _trim_end(text, gap_start, section.start), "prose", headings)
            )
        if section.kind != "end":
            filled.append(section)
            headings = section.headings
            position = section.end
    return filled


def _skip_blank(text: str, start: int, end: int) -> int:
    while start < end and text[start] in _BLANK:
        start += 1
    return start


def _trim_end(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1] in _BLANK:
        end -= 1
    return end


def _line_starts(text: str) -> list[int]:
    return [0, *(match.end() for match in _NEWLINE.finditer(text))]


FORMAT = Format(name="markdown", parse=parse)
