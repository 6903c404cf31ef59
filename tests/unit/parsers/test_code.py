"""The code parser: languages, grammars, sections and code-point offsets."""

from __future__ import annotations

import itertools
import time

import pytest

from ragchunk import parsers
from ragchunk.code import languages, syntax
from ragchunk.errors import InputError
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.code import parse
from tests.conftest import FIXTURES

CODE = FIXTURES / "code"
FIXTURE_LANGUAGES = {
    "inventory.py": "python",
    "scaffold.py": "python",
    "event-bus.js": "javascript",
    "rate-limiter.ts": "typescript",
    "LibraryCatalog.java": "java",
    "kvstore.go": "go",
    "lexer.rs": "rust",
    "invoice.rb": "ruby",
    "OrderPipeline.cs": "csharp",
    "ringbuf.c": "c",
    "graph.cpp": "cpp",
    "UserRepository.php": "php",
    "TemperatureLog.swift": "swift",
    "TaskScheduler.kt": "kotlin",
}


def parse_text(text: str, source: str, language: str | None = None) -> Document:
    return parse(text.encode("utf-8"), ParseRequest(source=source, language=language))


def parse_fixture(name: str) -> Document:
    path = CODE / name
    return parse(path.read_bytes(), ParseRequest(source=str(path), doc_id=name))


def test_the_format_table_lists_every_language_extension() -> None:
    _, extensions = parsers.FORMATS["code"]
    assert sorted(extensions) == sorted(languages.extensions())
    assert len(set(extensions)) == len(extensions)


@pytest.mark.parametrize("extension", languages.extensions())
def test_detection_picks_the_code_format_by_extension(extension: str) -> None:
    assert parsers.detect(f"src/module{extension.upper()}", b"") == "code"


def test_every_fixture_language_is_covered() -> None:
    assert set(FIXTURE_LANGUAGES.values()) == set(languages.LANGUAGES) - {"tsx"}
    assert sorted(FIXTURE_LANGUAGES) == sorted(p.name for p in CODE.iterdir())


@pytest.mark.parametrize("name", sorted(languages.LANGUAGES))
def test_every_grammar_loads_from_its_wheel(name: str) -> None:
    tree = syntax.parse_tree("", name)
    assert tree.root_node.child_count == 0
    assert not tree.root_node.has_error


@pytest.mark.parametrize(("name", "language"), sorted(FIXTURE_LANGUAGES.items()))
def test_fixtures_parse_without_syntax_errors(name: str, language: str) -> None:
    doc = parse_fixture(name)
    assert doc.format == "code"
    assert doc.has_lines
    assert doc.metadata == {"language": language}
    assert doc.text == (CODE / name).read_text(encoding="utf-8")
    assert syntax.parse(doc.text, language).error_offsets() == []
    lines = doc.text.count("\n")
    assert 100 <= lines <= 300 or name == "scaffold.py"


@pytest.mark.parametrize(
    ("name", "symbol", "kind"),
    [
        ("inventory.py", "Ledger.merge", "method"),
        ("inventory.py", "reorder_plan.needed", "function"),
        ("event-bus.js", "EventBus.emit", "method"),
        ("event-bus.js", "debounced", "function"),
        ("rate-limiter.ts", "TokenBucketLimiter.take", "method"),
        ("rate-limiter.ts", "LimiterOptions", "interface"),
        ("rate-limiter.ts", "Presets", "namespace"),
        ("LibraryCatalog.java", "LibraryCatalog.Loan.due", "method"),
        ("LibraryCatalog.java", "LibraryCatalog.Book", "record"),
        ("kvstore.go", "Store.Get", "method"),
        ("kvstore.go", "Clock", "interface"),
        ("lexer.rs", "Lexer.next", "method"),
        ("lexer.rs", "tests.numbers_and_operators", "function"),
        ("invoice.rb", "Billing.Invoice.total", "method"),
        ("OrderPipeline.cs", "Shop.Orders.OrderPipeline.ProcessAsync", "method"),
        ("OrderPipeline.cs", "Shop.Orders.Pricing.RunAsync.Discounted", "function"),
        ("ringbuf.c", "ringbuf_put", "function"),
        ("ringbuf.c", "ringbuf_status", "enum"),
        ("graph.cpp", "planner.Graph.name", "method"),
        ("graph.cpp", "planner.Graph::shortest_from", "function"),
        ("UserRepository.php", "UserRepository.search", "method"),
        ("UserRepository.php", "Timestamps", "trait"),
        ("TemperatureLog.swift", "TemperatureLog.summaries.summarise", "function"),
        ("TemperatureLog.swift", "AlertSink", "protocol"),
        ("TemperatureLog.swift", "Reading", "struct"),
        ("TaskScheduler.kt", "TaskScheduler.Companion.verbose", "method"),
        ("TaskScheduler.kt", "Job", "interface"),
    ],
)
def test_definitions_have_symbols_and_kinds(name: str, symbol: str, kind: str) -> None:
    doc = parse_fixture(name)
    found = syntax.parse(doc.text, str(doc.metadata["language"])).definitions
    assert (symbol, kind) in {(d.symbol, d.kind) for d in found}


@pytest.mark.parametrize(
    ("name", "symbol", "first_line"),
    [
        ("inventory.py", "Item", "@dataclasses.dataclass(frozen=True)"),
        ("lexer.rs", "Span", "/// A half-open byte range into the source text."),
        ("lexer.rs", "tests", "#[cfg(test)]"),
        ("rate-limiter.ts", "TokenBucketLimiter.take", "@logged"),
        (
            "LibraryCatalog.java",
            "LibraryCatalog.Loan",
            "/** One loan of one copy to one member. */",
        ),
        ("kvstore.go", "Store.Get", "// Get returns the value of key, or ErrNotFound."),
        ("OrderPipeline.cs", "Shop.Orders.Order", "[Serializable]"),
    ],
)
def test_comments_and_decorators_directly_above_belong_to_the_definition(
    name: str, symbol: str, first_line: str
) -> None:
    doc = parse_fixture(name)
    found = syntax.parse(doc.text, str(doc.metadata["language"])).definitions
    definition = next(d for d in found if d.symbol == symbol)
    assert doc.text[definition.start :].lstrip().startswith(first_line)


def test_a_comment_after_a_blank_line_or_at_a_line_end_is_not_attached() -> None:
    text = "# about the section\n\ndef f():\n    pass\n\nx = 1  # trailing\ndef g():\n    pass\n"
    found = syntax.parse(text, "python").definitions
    assert [(d.name, d.start, d.node_start) for d in found] == [
        ("f", text.index("def f"), text.index("def f")),
        ("g", text.index("def g"), text.index("def g")),
    ]


def test_sections_tile_the_text_with_top_level_definitions() -> None:
    text = (
        "import os\n\n"
        "# A point.\n"
        "class Point:\n"
        "    def norm(self):\n"
        "        return 0\n\n\n"
        "def main():\n"
        "    print(Point())\n"
    )
    doc = parse_text(text, "geometry.py")
    spans = [(s.start, s.end, s.kind, s.headings, dict(s.metadata)) for s in doc.sections]
    point, main = text.index("# A point."), text.index("def main")
    assert spans == [
        (0, point, "code", (), {}),
        (point, text.index("\n\n\ndef"), "class", ("Point",), {"symbol": "Point"}),
        (text.index("\n\n\ndef"), main, "code", (), {}),
        (main, len(text) - 1, "function", ("main",), {"symbol": "main"}),
        (len(text) - 1, len(text), "code", (), {}),
    ]


@pytest.mark.parametrize("name", sorted(FIXTURE_LANGUAGES))
def test_sections_of_every_fixture_tile_its_text(name: str) -> None:
    doc = parse_fixture(name)
    bounds = [(s.start, s.end) for s in doc.sections]
    assert bounds[0][0] == 0
    assert bounds[-1][1] == len(doc.text)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(bounds))
    kinds = {s.kind for s in doc.sections}
    assert kinds - {"code"}, "no definition found"
    for section in doc.sections:
        if section.kind != "code":
            assert section.metadata["symbol"] == ".".join(section.headings)


def test_sections_look_through_namespaces_and_modules() -> None:
    text = "namespace Shop {\n    class Cart { }\n    class Order { }\n}\n"
    doc = parse_text(text, "Shop.cs")
    symbols = [(s.kind, s.headings, s.metadata.get("symbol")) for s in doc.sections]
    assert ("class", ("Shop", "Cart"), "Shop.Cart") in symbols
    assert ("class", ("Shop", "Order"), "Shop.Order") in symbols
    gaps = [s.headings for s in doc.sections if s.kind == "code"]
    assert ("Shop",) in gaps


def test_offsets_are_code_points_in_non_ascii_source() -> None:
    text = '# café ☕ — 日本語\nGREETING = "👨‍👩‍👧 héllo"\n\ndef größe(x):\n    return "ü" * x\n'
    doc = parse_text(text, "unicode.py")
    [definition] = syntax.parse(doc.text, "python").definitions
    assert (definition.name, definition.start, definition.end) == (
        "größe",
        text.index("def größe"),
        len(text) - 1,
    )
    assert text[definition.start : definition.end].endswith('return "ü" * x')


def test_a_utf8_bom_is_dropped_and_offsets_stay_exact() -> None:
    source = "def f():\n    return 'é'\n"
    doc = parse(b"\xef\xbb\xbf" + source.encode(), ParseRequest(source="bom.py"))
    assert doc.text == source
    [definition] = syntax.parse(doc.text, "python").definitions
    assert (definition.start, definition.end) == (0, len(source) - 1)


def test_a_forced_language_wins_over_the_extension() -> None:
    doc = parse_text("fn main() {}\n", "notes.txt", language="rust")
    assert doc.metadata == {"language": "rust"}
    assert [s.metadata.get("symbol") for s in doc.sections if s.kind == "function"] == ["main"]


def test_unknown_language_is_an_input_error_naming_the_file() -> None:
    with pytest.raises(InputError) as caught:
        parse_text("x", "Makefile")
    assert str(caught.value) == (
        "Makefile: cannot tell the programming language of the file (no known extension, no #! "
        "line); pass --language (one of c, cpp, csharp, go, java, javascript, kotlin, php, "
        "python, ruby, rust, swift, tsx, typescript)"
    )


@pytest.mark.parametrize(
    ("first_line", "language"),
    [
        ("#!/usr/bin/env python3", "python"),
        ("#!/usr/bin/python3.12 -u", "python"),
        ("#! /usr/local/bin/pypy3", "python"),
        ("#!/usr/bin/env node", "javascript"),
        ("#!/usr/bin/env -S deno run --allow-net", "typescript"),
        ("#!/usr/bin/env LANG=C ruby -w", "ruby"),
        ("<?php", "php"),
        ("#!/usr/bin/env kotlin", "kotlin"),
        ("#!/bin/sh", None),  # no grammar for shell
        ("#![allow(dead_code)]", None),  # a Rust attribute, not an interpreter
        ("import os", None),  # no declaration: never guessed from trial parses
    ],
)
def test_the_first_line_may_declare_the_language(first_line: str, language: str | None) -> None:
    assert languages.language_in(first_line + "\nrest\n") == language


def test_a_file_without_extension_is_read_in_the_language_its_first_line_names() -> None:
    doc = parse_text("#!/usr/bin/env ruby\ndef hello\n  1\nend\n", "bin/hello")
    assert doc.metadata == {"language": "ruby"}
    assert [s.metadata.get("symbol") for s in doc.sections if s.kind == "function"] == ["hello"]


def test_a_header_is_c_unless_only_cpp_reads_it() -> None:
    c_header = (
        '#ifndef RING_H\n#define RING_H\n#ifdef __cplusplus\nextern "C" {\n#endif\n'
        "struct ring { int head; };\nint put(int);\n"
        "#ifdef __cplusplus\n}\n#endif\n#endif\n"
    )
    cpp_header = "#pragma once\nnamespace io {\nclass Ring {\npublic:\n  int put(int b);\n};\n}\n"
    assert parse_text(c_header, "ring.h").metadata == {"language": "c"}
    assert parse_text(cpp_header, "ring.h").metadata == {"language": "cpp"}


def test_tsx_parses_jsx_elements() -> None:
    text = "export function Badge({ label }: { label: string }) {\n  return <b>{label}</b>;\n}\n"
    doc = parse_text(text, "Badge.tsx")
    assert doc.metadata == {"language": "tsx"}
    assert syntax.parse(doc.text, "tsx").error_offsets() == []
    assert [s.metadata.get("symbol") for s in doc.sections] == ["Badge", None]


def test_syntax_errors_are_recovered_and_located() -> None:
    text = "def ok():\n    return 1\n\ndef broken(:\n    pass\n"
    doc = parse_text(text, "broken.py")
    offsets = syntax.parse(doc.text, "python").error_offsets()
    assert offsets
    assert all(text.index("def broken") <= offset < len(text) for offset in offsets)


def test_sections_of_many_definitions_take_linear_time() -> None:
    """Regression: every gap between definitions scanned every definition (quadratic)."""
    source = "".join(f"function f{k}(a){{return a+{k}}};" for k in range(20_000))
    began = time.process_time()
    doc = parse(source.encode(), ParseRequest(source="min.js"))
    assert time.process_time() - began < 5
    assert sum(1 for s in doc.sections if s.kind == "function") == 20_000


NESTED = """namespace Outer {
int a;
void f() {}
namespace Inner {
int b;
void g() {}
}
int c;
void h() {}
}
int d;
"""


@pytest.mark.parametrize(
    "path", [*sorted((FIXTURES / "code").iterdir()), "nested.cpp"], ids=lambda p: str(p)[-20:]
)
def test_gaps_take_the_innermost_namespace_as_a_full_scan_would(path: object) -> None:
    from pathlib import Path

    data = NESTED.encode() if path == "nested.cpp" else Path(str(path)).read_bytes()
    doc = parse(data, ParseRequest(source=str(path)))
    syntax_tree = syntax.parse(doc.text, str(doc.metadata["language"]))
    for section in doc.sections:
        if section.kind != "code":
            continue
        around = [
            d
            for d in syntax_tree.definitions
            if d.kind in languages.NAMESPACE_KINDS and d.node_start <= section.start < d.end
        ]
        expected = (*around[-1].path, around[-1].name) if around else ()
        assert section.headings == expected
    if path == "nested.cpp":
        gaps = [(doc.text[s.start : s.end].split()[-1], s.headings) for s in doc.sections]
        assert [g for g in gaps if g[0] in ("a;", "b;", "c;", "d;")] == [
            ("a;", ("Outer",)),
            ("b;", ("Outer",)),
            ("c;", ("Outer", "Inner")),
            ("d;", ("Outer",)),
        ]


def test_large_syntax_trees_are_not_kept_after_their_document() -> None:
    """Regression: a cached 5 MB file's tree (370 MB) stayed in a worker for the next inputs."""
    small = "def f():\n    return 1\n"
    assert syntax.parse(small, "python") is syntax.parse(small, "python")
    large = small * (syntax.CACHED_TEXT // len(small) + 1)
    assert syntax.parse(large, "python") is not syntax.parse(large, "python")
