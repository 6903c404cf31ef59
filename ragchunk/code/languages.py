"""The code language table: names, extensions, grammar packages and definition node types.

Pure data: importing this module loads no grammar, so ``--language`` is checked at plan time for
free. Each grammar is a wheel (``tree-sitter-python``...) loaded with
``tree_sitter.Language(module.function())`` by ``ragchunk.code.syntax``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Final

from ragchunk import registry
from ragchunk.errors import OptionError


@dataclass(frozen=True, slots=True)
class Language:
    """One language a tree-sitter grammar reads.

    Attributes:
        name: the single lowercase word users pass to ``--language``.
        module: the grammar package's module (``tree_sitter_python``).
        function: the module function returning the grammar (``language``).
        extensions: file suffixes, lowercase with the dot.
        definitions: node type → kind (``function``, ``class``...) of the nodes that define a
            symbol; ``function`` becomes ``method`` inside a class-like definition.
        wrappers: node types that hold one definition and lend it their span (a decorated
            definition, an ``export`` statement, a C++ template).
    """

    name: str
    module: str
    function: str
    extensions: tuple[str, ...]
    definitions: Mapping[str, str]
    wrappers: frozenset[str] = frozenset()


CLASS_KINDS: Final = frozenset(
    {
        "actor",
        "class",
        "enum",
        "extension",
        "impl",
        "interface",
        "object",
        "protocol",
        "record",
        "struct",
        "trait",
        "union",
    }
)
"""Kinds whose functions are methods and which split between members without being flagged."""

NAMESPACE_KINDS: Final = frozenset({"module", "namespace"})
"""Kinds that only group other definitions: the parser lists the definitions inside them."""

CONTAINER_KINDS: Final = CLASS_KINDS | NAMESPACE_KINDS

_JAVASCRIPT: Final = {
    "function_declaration": "function",
    "generator_function_declaration": "function",
    "class_declaration": "class",
    "method_definition": "method",
    # `const f = () => ...`: a definition only when its value is a function or a class.
    "lexical_declaration": "function",
    "variable_declaration": "function",
}
_TYPESCRIPT: Final = {
    **_JAVASCRIPT,
    "abstract_class_declaration": "class",
    "interface_declaration": "interface",
    "type_alias_declaration": "type",
    "enum_declaration": "enum",
    "internal_module": "namespace",
    "module": "module",
}
_C: Final = {
    "function_definition": "function",
    "struct_specifier": "struct",
    "union_specifier": "union",
    "enum_specifier": "enum",
    "type_definition": "type",
}

_TABLE: Final = (
    Language(
        "python",
        "tree_sitter_python",
        "language",
        (".py", ".pyi"),
        {"function_definition": "function", "class_definition": "class"},
        frozenset({"decorated_definition"}),
    ),
    Language(
        "javascript",
        "tree_sitter_javascript",
        "language",
        (".js", ".mjs", ".cjs", ".jsx"),
        _JAVASCRIPT,
        frozenset({"export_statement"}),
    ),
    Language(
        "typescript",
        "tree_sitter_typescript",
        "language_typescript",
        (".ts",),
        _TYPESCRIPT,
        frozenset({"export_statement", "ambient_declaration"}),
    ),
    Language(
        "tsx",
        "tree_sitter_typescript",
        "language_tsx",
        (".tsx",),
        _TYPESCRIPT,
        frozenset({"export_statement", "ambient_declaration"}),
    ),
    Language(
        "java",
        "tree_sitter_java",
        "language",
        (".java",),
        {
            "class_declaration": "class",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "record",
            "annotation_type_declaration": "annotation",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
            "compact_constructor_declaration": "constructor",
        },
    ),
    Language(
        "go",
        "tree_sitter_go",
        "language",
        (".go",),
        {
            "function_declaration": "function",
            "method_declaration": "method",
            "type_spec": "type",
        },
        frozenset({"type_declaration"}),
    ),
    Language(
        "rust",
        "tree_sitter_rust",
        "language",
        (".rs",),
        {
            "function_item": "function",
            "struct_item": "struct",
            "enum_item": "enum",
            "union_item": "union",
            "trait_item": "trait",
            "impl_item": "impl",
            "mod_item": "module",
            "macro_definition": "macro",
            "type_item": "type",
        },
    ),
    Language(
        "ruby",
        "tree_sitter_ruby",
        "language",
        (".rb",),
        {
            "class": "class",
            "module": "module",
            "method": "function",
            "singleton_method": "function",
        },
    ),
    Language(
        "csharp",
        "tree_sitter_c_sharp",
        "language",
        (".cs",),
        {
            "namespace_declaration": "namespace",
            "class_declaration": "class",
            "struct_declaration": "struct",
            "interface_declaration": "interface",
            "enum_declaration": "enum",
            "record_declaration": "record",
            "method_declaration": "method",
            "constructor_declaration": "constructor",
            "destructor_declaration": "destructor",
            "local_function_statement": "function",
        },
    ),
    Language("c", "tree_sitter_c", "language", (".c", ".h"), _C),
    Language(
        "cpp",
        "tree_sitter_cpp",
        "language",
        (".cpp", ".cc", ".cxx", ".hpp", ".hh"),
        {**_C, "class_specifier": "class", "namespace_definition": "namespace"},
        frozenset({"template_declaration"}),
    ),
    Language(
        "php",
        "tree_sitter_php",
        "language_php",
        (".php",),
        {
            "namespace_definition": "namespace",
            "class_declaration": "class",
            "interface_declaration": "interface",
            "trait_declaration": "trait",
            "enum_declaration": "enum",
            "function_definition": "function",
            "method_declaration": "method",
        },
    ),
    Language(
        "swift",
        "tree_sitter_swift",
        "language",
        (".swift",),
        {
            # struct, enum, extension and actor are class_declaration nodes too; the
            # declaration_kind field tells them apart.
            "class_declaration": "class",
            "protocol_declaration": "protocol",
            "function_declaration": "function",
            "init_declaration": "constructor",
            "deinit_declaration": "destructor",
        },
    ),
    Language(
        "kotlin",
        "tree_sitter_kotlin",
        "language",
        (".kt", ".kts"),
        {
            "class_declaration": "class",
            "object_declaration": "object",
            "companion_object": "object",
            "function_declaration": "function",
            "secondary_constructor": "constructor",
        },
    ),
)

LANGUAGES: Final[Mapping[str, Language]] = {language.name: language for language in _TABLE}

CPP_ONLY_TYPES: Final = (
    "namespace_definition",
    "class_specifier",
    "template_declaration",
    "access_specifier",
    "using_declaration",
    "alias_declaration",
    "qualified_identifier",
    "template_type",
)
"""C++ grammar nodes no C header holds: a ``.h`` file with any of them is read as C++."""


def names() -> tuple[str, ...]:
    """Return every language name, sorted."""
    return tuple(sorted(LANGUAGES))


def check_language(name: str) -> None:
    """Raise ``OptionError`` unless ``name`` is a language (``--language``).

    Raises:
        OptionError: the message lists every language and the closest match.
    """
    if name not in LANGUAGES:
        raise OptionError("--language", registry.unknown_name_message(name, LANGUAGES))


def language_for(source: str) -> str | None:
    """Return the language of a path from its extension, or None when it has no known one."""
    suffix = PurePath(source).suffix.lower()
    for language in _TABLE:
        if suffix in language.extensions:
            return language.name
    return None


# Interpreters a ``#!`` line may name, version digits and dots dropped (python3.12 → python).
_INTERPRETERS: Final = {
    "python": "python",
    "pypy": "python",
    "node": "javascript",
    "nodejs": "javascript",
    "deno": "typescript",
    "ts-node": "typescript",
    "ruby": "ruby",
    "jruby": "ruby",
    "php": "php",
    "swift": "swift",
    "kotlin": "kotlin",
    "kscript": "kotlin",
    "rust-script": "rust",
}
_SHEBANG: Final = re.compile(r"#![ \t]*(\S+)[ \t]*([^\r\n]*)")


def language_in(text: str) -> str | None:
    """Return the language a text declares on its first line, or None.

    A ``#!`` line naming an interpreter (``#!/usr/bin/env python3``, ``#!/usr/bin/env -S deno
    run``) or an opening ``<?php`` tag. Only such declarations count: tree-sitter recovers
    from errors in any grammar, and one language's grammar reads many others (TypeScript
    reads JavaScript, C++ reads C), so a language guessed from trial parses could be silently
    wrong.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    if text.startswith("<?php"):
        return "php"
    found = _SHEBANG.match(text)
    if found is None:
        return None
    words = [found.group(1), *found.group(2).split()]
    if PurePath(words[0]).name == "env":
        words = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
    if not words:
        return None
    name = PurePath(words[0]).name.rstrip("0123456789.")
    return _INTERPRETERS.get(name)


def extensions() -> tuple[str, ...]:
    """Return every extension of every language, in table order (the ``code`` format's)."""
    return tuple(ext for language in _TABLE for ext in language.extensions)
