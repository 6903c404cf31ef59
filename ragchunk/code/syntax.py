"""Parse source text with tree-sitter; find definitions, symbols and syntax errors.

Tree-sitter reports UTF-8 byte offsets into the encoded text. Every offset leaving this module is
a code-point offset into the text that was parsed (through the byte→char map for non-ASCII
text), so spans slice ``Document.text`` exactly. A definition's ``start`` includes the comments,
decorators and attributes directly above it: they stay with it.
"""

from __future__ import annotations

import functools
import importlib
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
from ragchunk.text.bytemap import ByteMap

if TYPE_CHECKING:
    import tree_sitter

ATTACHED_TYPES: Final = frozenset({"decorator", "attribute_item"})
"""Node types besides comments that belong to the definition right below them."""

_MAX_NAME: Final = 120


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
        found = _describe_wrapped(node, language, consumed)
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


def _describe_wrapped(
    node: tree_sitter.Node, language: Language, consumed: set[int]
) -> tuple[str, str] | None:
    """Return ``(name, kind)`` of a definition node, looking through wrappers."""
    if node.type not in language.wrappers:
        return _describe(node, language)
    found = [
        (child, described)
        for child in node.named_children
        if (described := _describe_wrapped(child, language, consumed)) is not None
    ]
    if len(found) != 1:
        return None
    consumed.add(found[0][0].id)
    return found[0][1]


def _describe(node: tree_sitter.Node, language: Language) -> tuple[str, str] | None:
    """Return ``(name, kind)`` when ``node`` defines something, else None."""
    kind = language.definitions.get(node.type)
    if kind is None:
        return None
    special = _SPECIAL.get(node.type)
    if special is not None:
        return special(node, kind)
    name = _name(node)
    return None if name is None else (name, _refine_kind(node, kind))


def _refine_kind(node: tree_sitter.Node, kind: str) -> str:
    """Tell apart the kinds one node type stands for (Swift, Kotlin, Go type specs)."""
    declared = node.child_by_field_name("declaration_kind")  # Swift: struct, enum, extension...
    if declared is not None:
        return _text(declared)
    if node.type == "class_declaration" and any(c.type == "interface" for c in node.children):
        return "interface"  # Kotlin
    if node.type == "class_declaration" and any(
        c.type == "modifiers" and "enum" in _text(c).split() for c in node.children
    ):
        return "enum"  # Kotlin
    shape = node.child_by_field_name("type") if node.type == "type_spec" else None
    if shape is not None and shape.type in ("struct_type", "interface_type"):
        return shape.type.removesuffix("_type")  # Go
    return kind


def _name(node: tree_sitter.Node) -> str | None:
    """Return the name a definition node declares, or None for an anonymous one."""
    named = node.child_by_field_name("name")
    if named is not None:
        return _text(named)
    declarator = node.child_by_field_name("declarator")  # C and C++: walk to the identifier
    if declarator is not None:
        while (inner := _inner_declarator(declarator)) is not None:
            declarator = inner
        return _text(declarator)
    return _DEFAULT_NAMES.get(node.type)


def _inner_declarator(node: tree_sitter.Node) -> tree_sitter.Node | None:
    """Return the declarator inside a C declarator (``*f``, ``&f``, ``(*f)``, ``f(...)``)."""
    inner = node.child_by_field_name("declarator")
    if inner is None and node.type in ("reference_declarator", "parenthesized_declarator"):
        inner = next((c for c in node.named_children if "declarator" in c.type), None)
    return inner


def _describe_variable(node: tree_sitter.Node, kind: str) -> tuple[str, str] | None:
    """``const f = () => ...`` defines ``f``; other variables define nothing."""
    declarators = [c for c in node.named_children if c.type == "variable_declarator"]
    if len(declarators) != 1:
        return None
    value = declarators[0].child_by_field_name("value")
    name = declarators[0].child_by_field_name("name")
    if value is None or name is None:
        return None
    if value.type in ("arrow_function", "function_expression", "function", "generator_function"):
        return _text(name), kind
    if value.type == "class":
        return _text(name), "class"
    return None


def _describe_with_body(node: tree_sitter.Node, kind: str) -> tuple[str, str] | None:
    """A struct, module or namespace defines something only with a body (not ``struct s;``)."""
    if node.child_by_field_name("body") is None:
        return None
    if node.parent is not None and node.parent.type == "type_definition":
        return None  # `typedef struct s {...} t;` is described once, by the typedef
    name = _name(node)
    return None if name is None else (name, kind)


def _describe_typedef(node: tree_sitter.Node, kind: str) -> tuple[str, str] | None:
    """``typedef struct {...} point;`` defines the struct ``point``."""
    name = _name(node)
    if name is None:
        return None
    shape = node.child_by_field_name("type")
    if shape is not None and shape.child_by_field_name("body") is not None:
        return name, shape.type.removesuffix("_specifier")
    return name, kind


def _describe_impl(node: tree_sitter.Node, kind: str) -> tuple[str, str] | None:
    """Rust ``impl<'a> Display for Lexer<'a>`` is named after its type: ``Lexer``."""
    shape = node.child_by_field_name("type")
    if shape is None:
        return None
    while shape.type == "generic_type" and (inner := shape.child_by_field_name("type")):
        shape = inner
    return _text(shape), kind


def _describe_method(node: tree_sitter.Node, kind: str) -> tuple[str, str] | None:
    """A method is named after itself; a Go method after its receiver too: ``Store.Get``."""
    name = _name(node)
    receiver = node.child_by_field_name("receiver")
    if name is None or receiver is None:
        return None if name is None else (name, kind)
    for parameter in receiver.named_children:
        shape = parameter.child_by_field_name("type")
        while shape is not None and shape.type in ("pointer_type", "generic_type"):
            shape = shape.child_by_field_name("type") or (
                shape.named_children[0] if shape.named_children else None
            )
        if shape is not None:
            return f"{_text(shape)}.{name}", kind
    return name, kind


def _text(node: tree_sitter.Node) -> str:
    raw = node.text or b""
    return " ".join(raw.decode("utf-8", "surrogatepass").split())[:_MAX_NAME]


_SPECIAL: Final[Mapping[str, Callable[[tree_sitter.Node, str], tuple[str, str] | None]]] = {
    "lexical_declaration": _describe_variable,
    "variable_declaration": _describe_variable,
    "struct_specifier": _describe_with_body,
    "union_specifier": _describe_with_body,
    "enum_specifier": _describe_with_body,
    "class_specifier": _describe_with_body,
    "mod_item": _describe_with_body,
    "module": _describe_with_body,
    "namespace_definition": _describe_with_body,
    "type_definition": _describe_typedef,
    "impl_item": _describe_impl,
    "method_declaration": _describe_method,
}

_DEFAULT_NAMES: Final = {
    "init_declaration": "init",
    "deinit_declaration": "deinit",
    "companion_object": "Companion",
    "secondary_constructor": "constructor",
}


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
