"""How a definition node is named: ``(name, kind)`` of functions, classes, methods, types...

Each language's definition node types come from ``code.languages``; most name themselves by a
``name`` field, C and C++ through their declarators, and a few node types need a rule of their
own (variables holding functions, typedefs, impl blocks, receivers of Go methods).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import tree_sitter

    from ragchunk.code.languages import Language

_MAX_NAME: Final = 120


def describe_wrapped(
    node: tree_sitter.Node, language: Language, consumed: set[int]
) -> tuple[str, str] | None:
    """Return ``(name, kind)`` of a definition node, looking through wrappers."""
    if node.type not in language.wrappers:
        return describe(node, language)
    found = [
        (child, described)
        for child in node.named_children
        if (described := describe_wrapped(child, language, consumed)) is not None
    ]
    if len(found) != 1:
        return None
    consumed.add(found[0][0].id)
    return found[0][1]


def describe(node: tree_sitter.Node, language: Language) -> tuple[str, str] | None:
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
