"""code: chunks at the definitions of a tree-sitter syntax tree, packed up to the size (SPEC §4).

Top-level definitions and statements are packed greedily; one larger than the size splits at its
members (a class at its methods), a function at its statements, a leaf token at lines. Comments,
decorators and attributes directly above a definition stay with it, and a chunk never mixes the
parts of a split definition with what lies outside it. Every cut falls between syntax nodes, at a
line start when they sit on different lines. A chunk cutting through a function or statement gets
``oversize_split``; the one nearest a syntax error gets ``syntax_error``. Text that is not code is
packed by lines; minified code falls back to the recursive strategy.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import TYPE_CHECKING, Final, NamedTuple

from ragchunk.code.languages import CONTAINER_KINDS, LANGUAGES
from ragchunk.code.syntax import attached_start, describe_span, parse
from ragchunk.model import Span
from ragchunk.options import Budget
from ragchunk.strategies._spec import Context, Strategy
from ragchunk.text.boundaries import is_blank
from ragchunk.text.separators import DEFAULT_LEVELS, split_range
from ragchunk.text.spans import spans_from_windows

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import tree_sitter

    from ragchunk.code.syntax import Syntax
    from ragchunk.measure import Sizer
    from ragchunk.model import Document, JSONValue

LINE_LEVELS: Final = (("\n\n", "\r\n\r\n"), ("\n",), (" ", "\t"))
"""Where text without a syntax tree is cut: blank lines, then lines, then spaces."""


_MINIFIED_LENGTH: Final = 1000
_MINIFIED_LINE: Final = 200
_MAX_DEPTH: Final = 100
_NON_SPACE: Final = re.compile(r"\S")


@dataclass(frozen=True, slots=True, kw_only=True)
class CodeOptions:
    """Options of the code strategy.

    The size defaults to tokens: code tokenizes unevenly (symbols, indentation, identifiers split
    into many tokens), so a character budget over- or under-fills an embedding model's window,
    which is counted in tokens. Overlap defaults to 0: definitions are self-contained.
    """

    budget: Budget = Budget(size=512, overlap=0, unit="tokens")


@dataclass(frozen=True, slots=True)
class _Piece:
    """A span that fits the size on its own, with what packing needs to know of it.

    Attributes:
        chain: indexes of the split definitions it lies in; pieces join only on equal chains.
        fragment: it lies in a function or statement that was split (``oversize_split``).
        trivia: only punctuation or keywords (a closing brace, ``end``): it may join the chunk
            before it whatever its chain. Comments are not trivia: they go with what follows.
        oversize: one code point larger than the size (see ``spans_from_windows``).
    """

    start: int
    end: int
    chain: tuple[int, ...]
    fragment: bool
    trivia: bool = False
    oversize: bool = False


@dataclass(frozen=True, slots=True)
class _Walk:
    """What the recursive descent shares: the tree, the sizer and the budget."""

    syntax: Syntax
    sizer: Sizer
    budget: Budget

    def fits(self, start: int, end: int) -> bool:
        return self.sizer.size(start, end) <= self.budget.size


def split(doc: Document, options: CodeOptions, ctx: Context) -> list[Span]:
    """Return spans covering the code in ``doc.text`` in order, each within ``options.budget``.

    Spans are absolute and half-open. A document whose format is not ``code`` (or whose
    language is unknown) is packed by lines; minified code is split like prose.
    """
    language = doc.metadata.get("language") if doc.format == "code" else None
    if not isinstance(language, str) or language not in LANGUAGES:
        return _split_text(doc.text, options.budget, ctx, LINE_LEVELS)
    if is_minified(doc.text):
        return _split_text(doc.text, options.budget, ctx, DEFAULT_LEVELS)
    return _split_tree(parse(doc.text, language), options.budget, ctx)


def _split_text(
    text: str, budget: Budget, ctx: Context, levels: tuple[tuple[str, ...], ...]
) -> list[Span]:
    """Split text without a syntax tree with the recursive strategy's separator levels."""
    windows = split_range(text, 0, len(text), sizer=ctx.sizer, budget=budget, levels=levels)
    return spans_from_windows(text, windows)


def _split_tree(syntax: Syntax, budget: Budget, ctx: Context) -> list[Span]:
    """Split parsed code: pieces that fit, packed; overlap; then headings and metadata."""
    walk = _Walk(syntax, ctx.sizer, budget)
    pieces = _fill_gaps(walk, list(_cover(walk, syntax.root.children, (), shell=False)))
    chunks = _pack(pieces, walk)
    starts = _overlap_starts(syntax.text, chunks, walk) if budget.overlap else None
    errors = _error_chunks(chunks, syntax.error_offsets())
    return [
        _span(syntax, chunk.start if starts is None else starts[k], chunk, has_error=k in errors)
        for k, chunk in enumerate(chunks)
    ]


def is_minified(text: str) -> bool:
    """Return whether ``text`` looks minified: long, with lines far longer than code's."""
    return len(text) >= _MINIFIED_LENGTH and len(text) > _MINIFIED_LINE * (text.count("\n") + 1)


# --- descent: nodes → pieces that fit ------------------------------------------------------------


def _cover(
    walk: _Walk,
    nodes: Sequence[tree_sitter.Node],
    chain: tuple[int, ...],
    *,
    shell: bool,
    fragment: bool = False,
    depth: int = 0,
    merge: bool = True,
) -> Iterator[_Piece]:
    """Yield pieces covering sibling ``nodes``: whole groups that fit, refined ones that don't."""
    for group in _groups(walk, nodes, merge=merge):
        if walk.fits(group.start, group.end):
            trivia = not any(node.is_named for node in group.nodes)
            yield _Piece(group.start, group.end, chain, fragment, trivia)
        else:
            yield from _refine(
                walk, group.nodes, chain, shell=shell, fragment=fragment, depth=depth
            )


def _refine(
    walk: _Walk,
    group: list[tree_sitter.Node],
    chain: tuple[int, ...],
    *,
    shell: bool,
    fragment: bool,
    depth: int,
) -> Iterator[_Piece]:
    """Yield pieces for a group of nodes larger than the size, one syntax level down."""
    syntax = walk.syntax
    if len(group) > 1:
        yield from _refine_group(walk, group, chain, shell=shell, fragment=fragment, depth=depth)
        return
    node = group[0]
    index = syntax.node_definitions.get(node.id)
    if index is not None:
        chain = chain if index in chain else (*chain, index)
        inner_shell = syntax.definitions[index].kind in CONTAINER_KINDS
    else:
        inner_shell = shell and _is_body(node)
    # SPEC §3.3: a function or statement cut in parts is flagged; a class parted at its
    # members is not (that is where a class is meant to be cut).
    fragment = fragment or not inner_shell
    if node.child_count and depth < _MAX_DEPTH:
        yield from _cover(
            walk, node.children, chain, shell=inner_shell, fragment=fragment, depth=depth + 1
        )
    else:
        yield from _windows(walk, syntax.start(node), syntax.end(node), chain)


def _refine_group(
    walk: _Walk,
    group: list[tree_sitter.Node],
    chain: tuple[int, ...],
    *,
    shell: bool,
    fragment: bool,
    depth: int,
) -> Iterator[_Piece]:
    """Yield pieces for several sibling nodes that together are larger than the size.

    A definition is parted from the comments above it. Nodes that share a line (``while
    (...) {``, ``} else {``) are replaced by their children, which group by lines again: cuts
    then still fall at line starts.
    """
    owners = [i for n in group if (i := walk.syntax.node_definitions.get(n.id)) is not None]
    if not owners and any(n.child_count for n in group) and depth < _MAX_DEPTH:
        inner_shell = shell and any(_is_body(n) for n in group)
        yield from _cover(
            walk,
            [child for n in group for child in (n.children if n.child_count else [n])],
            chain,
            shell=inner_shell,
            fragment=fragment or not inner_shell,
            depth=depth + 1,
        )
        return
    if len(owners) == 1 and owners[0] not in chain:
        chain = (*chain, owners[0])
    yield from _cover(
        walk, group, chain, shell=shell, fragment=fragment, depth=depth + 1, merge=False
    )


def _is_body(node: tree_sitter.Node) -> bool:
    """Return whether ``node``, inside a class being split, leads to the class's members.

    That is the largest child at each level down from the class: its body (``class_body``,
    ``block``), or what holds the body (the class in ``export class``, a Go struct type).
    Descending there parts the class at its members, which is not an oversize split.
    """
    parent = node.parent
    if parent is None or not node.child_count:
        return False
    largest = max(parent.children, key=lambda n: n.end_byte - n.start_byte)
    return largest.id == node.id


def _windows(walk: _Walk, start: int, end: int, chain: tuple[int, ...]) -> Iterator[_Piece]:
    """Yield line-packed windows of a leaf larger than the size (a long string, a comment)."""
    budget = Budget(size=walk.budget.size, overlap=0, unit=walk.budget.unit)
    text = walk.syntax.text
    for window in split_range(
        text, start, end, sizer=walk.sizer, budget=budget, levels=LINE_LEVELS
    ):
        if not is_blank(text, window.start, window.end):
            yield _Piece(window.start, window.end, chain, fragment=True, oversize=window.oversize)


class _Group(NamedTuple):
    """Sibling nodes that stay together unless they are larger than the size."""

    start: int
    end: int
    nodes: list[tree_sitter.Node]


def _groups(walk: _Walk, nodes: Sequence[tree_sitter.Node], *, merge: bool) -> list[_Group]:
    """Group sibling nodes so that groups may be cut apart at line starts only.

    With ``merge``, nodes sharing a line form one group, and a node's group takes the comments
    and decorators directly above it. Nodes without text are left out; a node that starts
    before the previous group ends (a heredoc body) joins that group.
    """
    syntax, text = walk.syntax, walk.syntax.text
    groups: list[_Group] = []
    for node in nodes:
        start, end = syntax.start(node), syntax.end(node)
        if is_blank(text, start, end):
            continue
        reach = attached_start(text, node, syntax.char) if merge else start
        group = _Group(start, end, [node])
        while groups and (
            groups[-1].start >= reach
            or reach < groups[-1].end
            or (merge and not _starts_line_after(text, groups[-1].end, reach))
        ):
            last = groups.pop()
            group = _Group(
                min(last.start, group.start), max(last.end, group.end), last.nodes + group.nodes
            )
        groups.append(group)
    return groups


def _starts_line_after(text: str, previous_end: int, start: int) -> bool:
    """Return whether a line break lies between ``previous_end`` and ``start``.

    A node may end with its line break (a Rust line comment), which counts.
    """
    return text.rfind("\n", 0, start) >= previous_end - 1


def _fill_gaps(walk: _Walk, pieces: list[_Piece]) -> list[_Piece]:
    """Cover any text the tree left out of every node (SPEC §3.2: nothing is lost)."""
    text = walk.syntax.text
    filled: list[_Piece] = []
    previous_end = 0
    for piece in [*pieces, _Piece(len(text), len(text), (), fragment=False)]:
        if piece.start > previous_end and _NON_SPACE.search(text, previous_end, piece.start):
            filled.extend(_windows(walk, previous_end, piece.start, piece.chain))
        if piece.end > piece.start:
            filled.append(piece)
        previous_end = max(previous_end, piece.end)
    return filled


# --- packing, overlap, metadata ------------------------------------------------------------------


def _pack(pieces: list[_Piece], walk: _Walk) -> list[_Piece]:
    """Join consecutive pieces greedily while they fit and belong to the same split level.

    Joined pieces leave room for the overlap, which the size includes (SPEC §3.3).
    """
    room = walk.budget.size - walk.budget.overlap
    chunks: list[_Piece] = []
    for piece in pieces:
        last = chunks[-1] if chunks else None
        if (
            last is not None
            and not (last.oversize or piece.oversize)
            and _can_join(last.chain, piece)
            and walk.sizer.size(last.start, piece.end) <= room
        ):
            chunks[-1] = replace(last, end=piece.end, fragment=last.fragment or piece.fragment)
        else:
            chunks.append(piece)
    return chunks


def _can_join(chain: tuple[int, ...], piece: _Piece) -> bool:
    """Return whether ``piece`` may join a chunk of split definitions ``chain``.

    Pieces of one split level join; a closing brace may also join the last part of a nested
    split (it leaves the nesting), but an opening keyword never enters one.
    """
    if piece.chain == chain:
        return True
    return piece.trivia and chain[: len(piece.chain)] == piece.chain


def _overlap_starts(text: str, chunks: list[_Piece], walk: _Walk) -> list[int]:
    """Return each chunk's start moved back over whole lines of the previous chunk.

    The repeated lines stay within the overlap and the chunk within the size (SPEC §3.3, §3.5);
    an overlap starts after a line break, so never inside a word or grapheme cluster.
    """
    budget, sizer = walk.budget, walk.sizer
    starts = [chunks[0].start] if chunks else []
    for previous, chunk in pairwise(chunks):
        lowest = starts[-1]
        best = chunk.start
        newline = text.rfind("\n", lowest, previous.end - 1)
        while newline >= lowest:
            line = newline + 1
            if sizer.size(line, previous.end) > budget.overlap:
                break
            if sizer.size(line, chunk.end) > budget.size:
                break
            if not is_blank(text, line, previous.end):
                best = line
            newline = text.rfind("\n", lowest, newline)
        starts.append(best)
    return starts


def _error_chunks(chunks: list[_Piece], offsets: list[int]) -> set[int]:
    """Return the indexes of the chunks holding (or nearest to) each syntax error."""
    starts = [chunk.start for chunk in chunks]
    flagged: set[int] = set()
    for offset in offsets if chunks else ():
        k = max(bisect_right(starts, offset) - 1, 0)
        if offset >= chunks[k].end and k + 1 < len(chunks):
            before, after = offset - chunks[k].end + 1, chunks[k + 1].start - offset
            k = k + 1 if after < before else k
        flagged.add(k)
    return flagged


def _span(syntax: Syntax, start: int, chunk: _Piece, *, has_error: bool) -> Span:
    """Return the span of one chunk with its headings, symbol, kind and flags."""
    headings, symbol, kind = describe_span(syntax, chunk.start, chunk.end, chunk.chain)
    metadata: dict[str, JSONValue] = {"symbol": symbol, "kind": kind}
    if chunk.fragment:
        metadata["oversize_split"] = True
    if chunk.oversize:
        metadata["oversize"] = True
    if has_error:
        metadata["syntax_error"] = True
    return Span(start, chunk.end, headings=headings, metadata=metadata)


STRATEGY = Strategy(
    name="code",
    summary="Source code on tree-sitter syntax trees: definitions, then members, statements, "
    "lines; comments and decorators stay with their definition. Sizes in tokens by default "
    "(code tokenizes unevenly and embedding models count tokens); overlap 0.",
    options=CodeOptions,
    split=split,
)
