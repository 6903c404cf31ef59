"""Parse source text with tree-sitter; find definitions, symbols and syntax errors.

Tree-sitter reports UTF-8 byte offsets into the encoded text. Every offset leaving this module is
a code-point offset into the text that was parsed (through the byte→char map for non-ASCII
text), so spans slice ``Document.text`` exactly. A definition's ``start`` includes the comments,
decorators and attributes directly above it: they stay with it.
"""

from __future__ import annotations

import functools
import importlib
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from ragchunk.code.languages import (
    CLASS_KINDS,
    CPP_ONLY_TYPES,
    LANGUAGES,
    NAMESPACE_KINDS,
    Language,
)
from ragchunk.code.names import describe_wrapped
from ragchunk.model import TOP_LEVEL_SYMBOL
from ragchunk.text.bytemap import ByteMap

if TYPE_CHECKING:
    import tree_sitter

ATTACHED_TYPES: Final = frozenset({"decorator", "attribute_item"})
"""Node types besides comments that belong to the definition right below them."""


@dataclass(frozen=True, slots=True)
class Definition:
    """A function, class, method... found in the syntax tree.

    Attributes:
        start: its first code point, attached comments and decorators included.
        node_start: the first code point of the definition itself.
        end: one past its last code point.
        name: its name as written (``parse``; ``Store.Get`` for a Go method).
        kind: ``function``, ``method``, ``class``, ``struct``, ``namespace``...
        path: the names of the definitions it lies in, outermost first.
        parent: the index of the innermost of those in ``Syntax.definitions``, or -1.
    """

    start: int
    node_start: int
    end: int
    name: str
    kind: str
    path: tuple[str, ...]
    parent: int

    @property
    def symbol(self) -> str:
        """The dotted path of the definition: ``Parser.parse``."""
        return ".".join((*self.path, self.name))


@dataclass(frozen=True, slots=True, eq=False)
class Syntax:
    """A parsed source text: its tree, its definitions and code-point offsets.

    Attributes:
        text: the text that was parsed.
        language: its language.
        root: the tree's root node.
        definitions: every definition in document order (outer before inner).
        node_definitions: node id → index in ``definitions`` (wrappers map their outer node).
        node_starts: ``[d.node_start for d in definitions]`` (sorted), for bisection.
        char: maps a UTF-8 byte offset of the encoded text to its code-point offset.
    """

    text: str
    language: Language
    root: tree_sitter.Node
    definitions: tuple[Definition, ...]
    node_definitions: Mapping[int, int]
    node_starts: list[int]
    char: Callable[[int], int]

    def start(self, node: tree_sitter.Node) -> int:
        """Return the code-point offset where ``node`` starts."""
        return self.char(node.start_byte)

    def end(self, node: tree_sitter.Node) -> int:
        """Return the code-point offset where ``node`` ends (exclusive)."""
        return self.char(node.end_byte)

    def definition(self, node: tree_sitter.Node) -> Definition | None:
        """Return the definition ``node`` is (or wraps), if any."""
        index = self.node_definitions.get(node.id)
        return None if index is None else self.definitions[index]

    def error_offsets(self) -> list[int]:
        """Return where each ERROR or MISSING node starts, in document order."""
        offsets: list[int] = []
        pending = [self.root] if self.root.has_error else []
        while pending:
            node = pending.pop()
            if node.is_error or node.is_missing:
                offsets.append(self.start(node))
                continue
            pending.extend(child for child in node.children if child.has_error)
        return sorted(offsets)


@functools.cache
def grammar(name: str) -> tree_sitter.Language:
    """Return the tree-sitter grammar of a language from its wheel (loaded once).

    Raises:
        KeyError: ``name`` is not in the language table (callers validate names first).
    """
    import tree_sitter

    language = LANGUAGES[name]
    module = importlib.import_module(language.module)
    return tree_sitter.Language(getattr(module, language.function)())


def parse_tree(text: str, name: str) -> tree_sitter.Tree:
    """Return the tree-sitter tree of ``text`` in language ``name`` (errors are recovered)."""
    import tree_sitter

    # surrogatepass: a lone surrogate (possible in a str from the library API) stays one
    # 3-byte unit, as the byte→char map counts it.
    return tree_sitter.Parser(grammar(name)).parse(text.encode("utf-8", "surrogatepass"))


@functools.cache
def _query(name: str, node_types: tuple[str, ...]) -> tree_sitter.Query:
    """Return a query capturing every node of the given types as ``@node``."""
    import tree_sitter

    pattern = "[" + " ".join(f"({node_type})" for node_type in node_types) + "] @node"
    return tree_sitter.Query(grammar(name), pattern)


def is_cpp(text: str) -> bool:
    """Return whether the C++ grammar finds constructs in ``text`` that C does not have."""
    import tree_sitter

    query = _query("cpp", CPP_ONLY_TYPES)
    return bool(tree_sitter.QueryCursor(query).captures(parse_tree(text, "cpp").root_node))


CACHED_TEXT: Final = 1_000_000
"""Texts up to this many code points keep their syntax tree cached (see ``parse``)."""


def parse(text: str, name: str) -> Syntax:
    """Parse ``text`` as language ``name`` and find its definitions.

    Cached for the last two texts: the ``code`` parser and strategy parse the same document.
    Larger texts are not: a syntax tree takes some 70 bytes per byte of source (370 MB for a
    5 MB file), and a cached one outlives its document, in a worker process into the next
    inputs.
    """
    if len(text) > CACHED_TEXT:
        return _parse(text, name)
    return _parse_cached(text, name)


@functools.lru_cache(maxsize=2)
def _parse_cached(text: str, name: str) -> Syntax:
    return _parse(text, name)


def _parse(text: str, name: str) -> Syntax:
    tree = parse_tree(text, name)
    char = (lambda byte: byte) if text.isascii() else ByteMap(text).char_of
    definitions, node_definitions = _find_definitions(text, LANGUAGES[name], tree.root_node, char)
    node_starts = [d.node_start for d in definitions]
    return Syntax(
        text, LANGUAGES[name], tree.root_node, definitions, node_definitions, node_starts, char
    )


def _find_definitions(
    text: str, language: Language, root: tree_sitter.Node, char: Callable[[int], int]
) -> tuple[tuple[Definition, ...], dict[int, int]]:
    """Return the definitions under ``root`` in document order and their node index."""
    import tree_sitter

    node_types = tuple(sorted({*language.definitions, *language.wrappers}))
    captures = tree_sitter.QueryCursor(_query(language.name, node_types)).captures(root)
    nodes = sorted(
        captures.get("node", []),
        key=lambda n: (n.start_byte, -n.end_byte, n.type not in language.wrappers),
    )
    definitions: list[Definition] = []
    index: dict[int, int] = {}
    consumed: set[int] = set()
    open_ends: list[tuple[int, int]] = []  # (end byte, definition index) of enclosing ones
    for node in nodes:
        if node.id in consumed:
            continue
        found = describe_wrapped(node, language, consumed)
        if found is None:
            continue
        name, kind = found
        while open_ends and open_ends[-1][0] <= node.start_byte:
            open_ends.pop()
        parent = open_ends[-1][1] if open_ends else -1
        definitions.append(_definition(text, node, name, kind, definitions, parent, char))
        index[node.id] = len(definitions) - 1
        open_ends.append((node.end_byte, len(definitions) - 1))
    return tuple(definitions), index


def _definition(
    text: str,
    node: tree_sitter.Node,
    name: str,
    kind: str,
    found: list[Definition],
    parent: int,
    char: Callable[[int], int],
) -> Definition:
    outer = found[parent] if parent >= 0 else None
    if kind == "function" and outer is not None and outer.kind in CLASS_KINDS:
        kind = "method"
    path = () if outer is None else (*outer.path, outer.name)
    return Definition(
        start=attached_start(text, node, char),
        node_start=char(node.start_byte),
        end=char(node.end_byte),
        name=name,
        kind=kind,
        path=path,
        parent=parent,
    )


def attached_start(text: str, node: tree_sitter.Node, char: Callable[[int], int]) -> int:
    """Return where ``node`` starts once the comments and decorators directly above it join.

    A sibling joins when it is a comment or an attribute-like node, starts its own line, and no
    blank line separates it from what follows it.
    """
    start = char(node.start_byte)
    previous = node.prev_sibling
    while previous is not None and is_attachable(previous):
        previous_start, previous_end = char(previous.start_byte), char(previous.end_byte)
        if not _is_directly_above(text, previous_start, previous_end, start):
            break
        start = previous_start
        previous = previous.prev_sibling
    return start


def is_attachable(node: tree_sitter.Node) -> bool:
    """Return whether ``node`` is a comment, decorator or attribute (it may join a definition)."""
    return "comment" in node.type or node.type in ATTACHED_TYPES


def _is_directly_above(text: str, start: int, end: int, below: int) -> bool:
    gap = text[end:below]
    if gap.strip():
        return False
    newlines = gap.count("\n") + (1 if end > 0 and text[end - 1] == "\n" else 0)
    line_start = text.rfind("\n", 0, start) + 1
    return newlines <= 1 and not text[line_start:start].strip()


def top_level(syntax: Syntax) -> Iterator[Definition]:
    """Yield the definitions that lie in no other definition but namespaces and modules."""
    definitions = syntax.definitions
    for definition in definitions:
        if definition.kind in NAMESPACE_KINDS:
            continue
        parent = definition.parent
        while parent >= 0 and definitions[parent].kind in NAMESPACE_KINDS:
            parent = definitions[parent].parent
        if parent < 0:
            yield definition


def describe_span(
    syntax: Syntax, start: int, end: int, chain: tuple[int, ...]
) -> tuple[tuple[str, ...], str, str]:
    """Return ``(headings, symbol, kind)`` for a chunk ``[start, end)`` inside ``chain``.

    The symbol names the outermost definitions the chunk holds whole (comma-separated), else
    the innermost split definition it is a part of, else ``<top-level>``. Headings are the
    names of the split definitions it lies in, outermost first.
    """
    inside = syntax.definitions[chain[-1]] if chain else None
    headings: tuple[str, ...] = ()
    if inside is not None:
        # A definition parted only from the comment above it is held whole: not "inside" it.
        is_whole = start <= inside.node_start and inside.end <= end
        headings = inside.path if is_whole else (*inside.path, inside.name)
    held = _held(syntax, start, end)
    if held:
        symbols = dict.fromkeys(d.symbol for d in held)
        kinds = dict.fromkeys(d.kind for d in held)
        return headings, ", ".join(symbols), ", ".join(kinds)
    if inside is not None:
        return headings, inside.symbol, inside.kind
    return headings, TOP_LEVEL_SYMBOL, "top-level"


def not_held(syntax: Syntax, start: int, end: int) -> list[Definition]:
    """Return the definitions ``[start, end)`` overlaps but does not hold whole.

    Those it lies in and those it holds a part of (attached comments count as a part), in no
    particular order.
    """
    definitions, node_starts = syntax.definitions, syntax.node_starts
    around: list[Definition] = []
    k = bisect_right(node_starts, start) - 1  # the definitions around start are k's ancestors
    while k >= 0:
        if definitions[k].end > start:
            around.append(definitions[k])
        k = definitions[k].parent
    inside = definitions[bisect_right(node_starts, start) : bisect_left(node_starts, end)]
    k = bisect_left(node_starts, end)
    after = []  # definitions whose attached comments begin in the span
    while k < len(definitions) and definitions[k].start < end:
        after.append(definitions[k])
        k += 1
    return [
        d
        for d in (*around, *inside, *after)
        if d.start < end and d.end > start and not (start <= d.node_start and d.end <= end)
    ]


def held_whole(syntax: Syntax, start: int, end: int) -> bool:
    """Return whether ``[start, end)`` holds a whole definition."""
    return bool(_held(syntax, start, end))


def _held(syntax: Syntax, start: int, end: int) -> list[Definition]:
    """Return the outermost definitions lying whole in ``[start, end)``, in order."""
    definitions, node_starts = syntax.definitions, syntax.node_starts

    def is_held(d: Definition) -> bool:
        return start <= d.node_start and d.end <= end

    candidates = definitions[bisect_left(node_starts, start) : bisect_left(node_starts, end)]
    return [
        d
        for d in candidates
        if is_held(d) and not (d.parent >= 0 and is_held(definitions[d.parent]))
    ]
