"""A syntax tree cut into pieces that fit the size: definitions, members, statements, lines.

Sibling nodes are grouped so that cuts fall at line starts (nodes sharing a line stay together;
comments and decorators directly above a definition join it). A group that fits is a piece; one
that does not is replaced by its children, one syntax level down: a class at its members, a
function at its statements, a leaf (a long string, a comment) at lines. Each piece records the
split definitions it lies in (its chain) and whether it lies in a split function or statement
(``fragment``: SPEC §3.3's ``oversize_split``). Text no node holds is covered by line pieces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, NamedTuple

from ragchunk.code.languages import CONTAINER_KINDS
from ragchunk.code.syntax import attached_start
from ragchunk.text.boundaries import is_blank
from ragchunk.text.separators import split_range

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    import tree_sitter

    from ragchunk.code.syntax import Syntax
    from ragchunk.measure import Sizer
    from ragchunk.options import Capacity

LINE_LEVELS: Final = (("\n\n", "\r\n\r\n"), ("\n",), (" ", "\t"))
"""Where text without a syntax tree is cut: blank lines, then lines, then spaces."""

_MAX_DEPTH: Final = 100
_NON_SPACE: Final = re.compile(r"\S")


@dataclass(frozen=True, slots=True)
class Piece:
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
class Walk:
    """What the recursive descent shares: the tree, the sizer and the capacity."""

    syntax: Syntax
    sizer: Sizer
    capacity: Capacity

    def fits(self, start: int, end: int) -> bool:
        """Return whether ``[start, end)`` is within the size."""
        return self.sizer.size(start, end) <= self.capacity.size


def cover(walk: Walk) -> list[Piece]:
    """Return pieces covering the parsed text in order, each within the size (or oversize)."""
    return _fill_gaps(walk, list(_cover(walk, walk.syntax.root.children, (), shell=False)))


def _cover(
    walk: Walk,
    nodes: Sequence[tree_sitter.Node],
    chain: tuple[int, ...],
    *,
    shell: bool,
    fragment: bool = False,
    depth: int = 0,
    merge: bool = True,
) -> Iterator[Piece]:
    """Yield pieces covering sibling ``nodes``: whole groups that fit, refined ones that don't."""
    for group in _groups(walk, nodes, merge=merge):
        if walk.fits(group.start, group.end):
            trivia = not any(node.is_named for node in group.nodes)
            yield Piece(group.start, group.end, chain, fragment, trivia)
        else:
            yield from _refine(
                walk, group.nodes, chain, shell=shell, fragment=fragment, depth=depth
            )


def _refine(
    walk: Walk,
    group: list[tree_sitter.Node],
    chain: tuple[int, ...],
    *,
    shell: bool,
    fragment: bool,
    depth: int,
) -> Iterator[Piece]:
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
    walk: Walk,
    group: list[tree_sitter.Node],
    chain: tuple[int, ...],
    *,
    shell: bool,
    fragment: bool,
    depth: int,
) -> Iterator[Piece]:
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


def _windows(walk: Walk, start: int, end: int, chain: tuple[int, ...]) -> Iterator[Piece]:
    """Yield line-packed windows of a leaf larger than the size (a long string, a comment)."""
    text = walk.syntax.text
    whole = walk.capacity.without_overlap()
    for window in split_range(
        text, start, end, sizer=walk.sizer, capacity=whole, levels=LINE_LEVELS
    ):
        if not is_blank(text, window.start, window.end):
            yield Piece(window.start, window.end, chain, fragment=True, oversize=window.oversize)


class _Group(NamedTuple):
    """Sibling nodes that stay together unless they are larger than the size."""

    start: int
    end: int
    nodes: list[tree_sitter.Node]


def _groups(walk: Walk, nodes: Sequence[tree_sitter.Node], *, merge: bool) -> list[_Group]:
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


def _fill_gaps(walk: Walk, pieces: list[Piece]) -> list[Piece]:
    """Cover any text the tree left out of every node (SPEC §3.2: nothing is lost)."""
    text = walk.syntax.text
    filled: list[Piece] = []
    previous_end = 0
    for piece in [*pieces, Piece(len(text), len(text), (), fragment=False)]:
        if piece.start > previous_end and _NON_SPACE.search(text, previous_end, piece.start):
            filled.extend(_windows(walk, previous_end, piece.start, piece.chain))
        if piece.end > piece.start:
            filled.append(piece)
        previous_end = max(previous_end, piece.end)
    return filled
