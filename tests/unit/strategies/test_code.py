"""The code strategy on small literal inputs: exact spans, symbols, headings and flags."""

from __future__ import annotations

import itertools

import pytest

from ragchunk.measure import CHARS, load_tokenizer
from ragchunk.model import Chunk, Document
from ragchunk.options import Budget, Capacity
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.code import parse
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.strategies.code import LINE_LEVELS, CodeOptions, is_minified
from ragchunk.text.separators import DEFAULT_LEVELS, split_range
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants

FIXTURES_CODE = FIXTURES / "code"


def chunks_of(
    text: str, source: str, size: int, *, unit: str = "chars", overlap: int = 0
) -> list[Chunk]:
    doc = parse(text.encode("utf-8"), ParseRequest(source=source))
    plan = make_plan(
        shortcuts({"strategy": "code", "size": size, "overlap": overlap, "unit": unit})
    )  # type: ignore[arg-type]
    return assert_invariants(doc, plan)


def rows(chunks: list[Chunk]) -> list[tuple[object, ...]]:
    """Span, headings, symbol, kind and flags of each chunk."""
    return [
        (
            c.text,
            c.headings,
            c.metadata["symbol"],
            c.metadata["kind"],
            sorted(k for k in ("oversize_split", "syntax_error") if c.metadata.get(k)),
        )
        for c in chunks
    ]


def test_defaults_are_tokens_without_overlap() -> None:
    assert CodeOptions().budget == Budget(size=512, overlap=0, unit="tokens")
    plan = make_plan(shortcuts({"strategy": "code", "size": 100}))
    assert plan.recipe.options.budget == Budget(size=100, overlap=0, unit="tokens")


def test_small_definitions_are_packed_up_to_the_size() -> None:
    text = "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n"
    chunks = chunks_of(text, "m.py", 50)
    assert [(c.start, c.end) for c in chunks] == [(0, 45), (48, 69)]
    assert rows(chunks) == [
        ("def a():\n    return 1\n\n\ndef b():\n    return 2", (), "a, b", "function", []),
        ("def c():\n    return 3", (), "c", "function", []),
    ]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 6), (9, 10)]
    assert all(c.metadata["language"] == "python" for c in chunks)


CLASS = (
    "class Parser:\n"
    '    """Reads tokens."""\n'
    "\n"
    "    def parse(self, text):\n"
    "        return text.split()\n"
    "\n"
    "    def close(self):\n"
    "        self.done = True\n"
    "\n"
    "\n"
    "def main():\n"
    '    Parser().parse("a b")\n'
)


def test_a_class_larger_than_the_size_splits_between_its_methods() -> None:
    assert rows(chunks_of(CLASS, "p.py", 80)) == [
        ('class Parser:\n    """Reads tokens."""', ("Parser",), "Parser", "class", []),
        (
            "def parse(self, text):\n        return text.split()",
            ("Parser",),
            "Parser.parse",
            "method",
            [],
        ),
        ("def close(self):\n        self.done = True", ("Parser",), "Parser.close", "method", []),
        ('def main():\n    Parser().parse("a b")', (), "main", "function", []),
    ]


def test_a_class_that_fits_is_one_chunk_and_never_joins_a_split_neighbour() -> None:
    chunks = chunks_of(CLASS, "p.py", 150)
    assert rows(chunks) == [
        (CLASS[: CLASS.index("\n\n\ndef main")], (), "Parser", "class", []),
        ('def main():\n    Parser().parse("a b")', (), "main", "function", []),
    ]


def test_comments_and_decorators_above_a_definition_stay_with_it() -> None:
    text = (
        "import functools\nimport os\n\n"
        "# Cached: the lookup is slow.\n"
        "@functools.cache\n"
        "def lookup(key):\n"
        "    return os.environ[key]\n"
    )
    chunks = chunks_of(text, "c.py", 100)
    assert [c.text for c in chunks] == [
        "import functools\nimport os",
        text[text.index("# Cached") :].rstrip("\n"),
    ]
    assert chunks[1].metadata["symbol"] == "lookup"


def test_a_definition_is_parted_from_its_comment_only_when_both_do_not_fit() -> None:
    text = "# Cached: the lookup is slow.\n@functools.cache\ndef lookup(key):\n    return key\n"
    chunks = chunks_of(text, "c.py", 55)
    assert rows(chunks) == [
        ("# Cached: the lookup is slow.", ("lookup",), "lookup", "function", []),
        (
            "@functools.cache\ndef lookup(key):\n    return key",
            (),
            "lookup",
            "function",
            [],
        ),
    ]


def test_a_function_larger_than_the_size_splits_at_statements_and_is_flagged() -> None:
    text = (
        "def total(items):\n"
        "    count = 0\n"
        "    for item in items:\n"
        "        count += item.price\n"
        "    return count\n"
    )
    flagged = ["oversize_split"]
    assert rows(chunks_of(text, "t.py", 40)) == [
        ("def total(items):\n    count = 0", ("total",), "total", "function", flagged),
        ("for item in items:", ("total",), "total", "function", flagged),
        ("count += item.price\n    return count", ("total",), "total", "function", flagged),
    ]


def test_a_closing_brace_stays_with_the_last_statement_and_a_line_is_never_cut() -> None:
    text = (
        "package p\n\n"
        "// Sum adds.\n"
        "func Sum(xs []int) int {\n"
        "\ttotal := 0\n"
        "\tfor _, x := range xs {\n"
        "\t\ttotal += x\n"
        "\t}\n"
        "\treturn total\n"
        "}\n"
    )
    chunks = chunks_of(text, "s.go", 40)
    assert [c.text for c in chunks] == [
        "package p",
        "// Sum adds.\nfunc Sum(xs []int) int {",
        "total := 0",
        "for _, x := range xs {\n\t\ttotal += x\n\t}",
        "return total\n}",
    ]
    assert {c.metadata["symbol"] for c in chunks[1:]} == {"Sum"}


def test_a_split_definition_starts_its_own_chunk() -> None:
    text = "use std::fmt;\n\nimpl Point {\n    fn x(&self) -> i32 {\n        self.x\n    }\n}\n"
    chunks = chunks_of(text, "p.rs", 40)
    assert chunks[0].text == "use std::fmt;"
    assert chunks[1].text.startswith("impl Point {")
    assert chunks[-1].text.endswith("}\n}") or chunks[-1].text == "}"


def test_a_leaf_larger_than_the_size_is_cut_at_lines() -> None:
    body = "".join(f"line {n} of the help text\n" for n in range(6))
    text = f'HELP = """\n{body}"""\n'
    chunks = chunks_of(text, "h.py", 60)
    assert len(chunks) > 2
    assert all(c.metadata.get("oversize_split") for c in chunks)
    for chunk in chunks[1:]:
        assert text[chunk.start - 1] == "\n"


def test_the_chunk_nearest_a_syntax_error_is_flagged() -> None:
    text = "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n\n\ndef fine():\n    return 2\n"
    assert rows(chunks_of(text, "e.py", 30)) == [
        ("def ok():\n    return 1", (), "ok", "function", []),
        ("def broken(:\n    pass", (), "broken", "function", ["syntax_error"]),
        ("def fine():\n    return 2", (), "fine", "function", []),
    ]


def test_a_missing_token_is_flagged_in_the_chunk_around_it() -> None:
    text = "int f(void) {\n    return 1\n}\n\nint g(void) {\n    return 2;\n}\n"
    chunks = chunks_of(text, "m.c", 40)
    assert [c.metadata.get("syntax_error", False) for c in chunks] == [True, False]


def test_text_that_is_not_code_is_packed_by_lines() -> None:
    text = "first line of notes\nsecond line\n\nthird paragraph line\n"
    doc = Document(text=text)
    plan = make_plan(shortcuts({"strategy": "code", "size": 25, "unit": "chars"}))
    chunks = assert_invariants(doc, plan)
    capacity = plan.recipe.capacity
    expected = split_range(
        text, 0, len(text), sizer=CHARS.prepare(text), capacity=capacity, levels=LINE_LEVELS
    )
    assert [(c.start, c.end) for c in chunks] == [(w.start, w.end) for w in expected]
    assert [c.text for c in chunks] == [
        "first line of notes\n",
        "second line\n\n",
        "third paragraph line\n",
    ]
    assert all(c.metadata == {} for c in chunks)


def test_minified_code_falls_back_to_the_recursive_strategy() -> None:
    text = "var a=1;" + "function f(x){return x*2};" * 60 + "\n"
    assert is_minified(text)
    chunks = chunks_of(text, "app.min.js", 200)
    capacity = Capacity(size=200, overlap=0, unit="chars")
    expected = split_range(
        text, 0, len(text), sizer=CHARS.prepare(text), capacity=capacity, levels=DEFAULT_LEVELS
    )
    assert [(c.start, c.end) for c in chunks] == [(w.start, w.end) for w in expected]
    assert all(c.metadata["language"] == "javascript" for c in chunks)
    assert all(c.metadata["symbol"] for c in chunks)  # derived from the sections it overlaps


def test_ordinary_code_is_not_minified() -> None:
    assert not is_minified("x = 1\n" * 400)
    assert not is_minified("short = 'one line without a newline'")


def test_overlap_repeats_whole_lines_of_the_previous_chunk() -> None:
    text = "".join(
        f"def f{n}():\n    a = {n}\n    b = {n}\n    return a + b\n\n\n" for n in range(4)
    )
    chunks = chunks_of(text, "o.py", 80, overlap=20)
    assert len(chunks) == 4
    for before, after in itertools.pairwise(chunks):
        assert before.start < after.start < before.end
        assert text[after.start - 1] == "\n"
        assert len(text[after.start : before.end]) <= 20
        assert text[after.start : before.end].strip() == "return a + b"


def test_offsets_and_token_sizes_are_exact_in_non_ascii_code() -> None:
    text = (
        "# Grüße aus Köln — 日本語のコメント\n"
        "def greet(name):\n"
        '    return f"👨‍👩‍👧 Hallo {name}, schön dich zu sehen"\n\n\n'
        "def farewell(name):\n"
        '    return f"さようなら {name} 🇫🇷"\n'
    )
    chunks = chunks_of(text, "g.py", 50, unit="tokens")
    count = load_tokenizer("cl100k_base").count
    assert [c.metadata["symbol"] for c in chunks] == ["greet", "farewell"]
    assert chunks[0].text.startswith("# Grüße")
    assert chunks[1].text == 'def farewell(name):\n    return f"さようなら {name} 🇫🇷"'
    assert all(c.tokens == count(c.text) <= 50 for c in chunks)


def test_crlf_line_endings_are_kept_verbatim() -> None:
    text = "def a():\r\n    return 1\r\n\r\n\r\ndef b():\r\n    return 2\r\n"
    chunks = chunks_of(text, "w.py", 25)
    assert [c.text for c in chunks] == ["def a():\r\n    return 1", "def b():\r\n    return 2"]
    assert [(c.line_start, c.line_end) for c in chunks] == [(1, 2), (5, 6)]


@pytest.mark.parametrize("text", ["", "\n\n", "   \t\n"])
def test_empty_code_gives_no_chunks(text: str) -> None:
    assert chunks_of(text, "empty.py", 10) == []


def test_a_tiny_size_still_keeps_every_invariant() -> None:
    for size in (1, 2, 3, 7):
        chunks = chunks_of(CLASS, "p.py", size)
        assert "".join(c.text for c in chunks).replace(" ", "").replace("\n", "") == (
            CLASS.replace(" ", "").replace("\n", "")
        )


# --- chunks too small to stand alone (at most an eighth of the size) ------------------------------

KY = (
    "import { retry } from './retry.js';\n"
    "export class Ky {\n"
    "    static create(input, options) {\n"
    "        const ky = new Ky(input, options);\n"
    "        const run = async () => {\n"
    "            const response = await ky.fetch(input, options.timeout, options.headers);\n"
    "            if (!response.ok && options.throwHttpErrors !== false) {\n"
    "                throw new Error(`Request failed with status ${response.status}`);\n"
    "            }\n"
    "            return response;\n"
    "        };\n"
    "        return retry(run, options.retries);\n"
    "    }\n"
    "}\n"
    "//# sourceMappingURL=Ky.js.map\n"
)


def test_a_class_opening_too_small_to_stand_alone_leads_its_first_member() -> None:
    # Before: "export class Ky {" (4 tokens) and "//# sourceMappingURL=Ky.js.map" (6) alone.
    chunks = chunks_of(KY, "Ky.js", 48, unit="tokens")
    assert [c.text for c in chunks] == [
        "import { retry } from './retry.js';",
        "export class Ky {\n    static create(input, options) {\n"
        "        const ky = new Ky(input, options);",
        KY[KY.index("const run") : KY.index("            if")].rstrip("\n"),
        KY[KY.index("if (!response") : KY.index("        return retry")].rstrip("\n"),
        "return retry(run, options.retries);\n    }\n}\n//# sourceMappingURL=Ky.js.map",
    ]
    assert chunks[1].metadata["symbol"] == "Ky.create"
    assert chunks[1].headings == ("Ky", "create")
    assert chunks[1].metadata["oversize_split"] is True


def test_tiny_chunks_merge_on_while_the_merged_chunk_is_still_tiny_and_fits() -> None:
    body = "            const response = await ky.fetch(input, options.timeout);\n" * 12
    text = KY.replace(
        "            const response = await ky.fetch(input, options.timeout, options.headers);\n",
        body,
    )
    chunks = chunks_of(text, "Ky.js", 200, unit="tokens")
    # The import (9 tokens), the class opening (4) and the method's first statement (17) each
    # stay under 25 tokens together: one chunk. The nested function's part fills the size,
    # so neither that chunk nor the source map comment (6 tokens) fits beside it.
    assert chunks[0].text == (
        "import { retry } from './retry.js';\nexport class Ky {\n"
        "    static create(input, options) {\n        const ky = new Ky(input, options);"
    )
    assert [c.tokens for c in chunks] == [31, 198, 6]
    assert chunks[2].text == "//# sourceMappingURL=Ky.js.map"


def test_a_tiny_chunk_never_crosses_into_a_definition_it_is_not_part_of() -> None:
    # The comment above to_text was parted from it (together they exceed 128 tokens); it
    # would fit the chunk before, but that chunk holds other methods: it stays alone.
    path = FIXTURES_CODE / "invoice.rb"
    doc = parse(path.read_bytes(), ParseRequest(source=str(path)))
    chunks = assert_invariants(
        doc, make_plan(shortcuts({"strategy": "code", "size": 128, "unit": "tokens"}))
    )
    [comment] = [c for c in chunks if c.text.startswith("# Renders the invoice")]
    after = chunks[comment.index + 1]
    assert after.text.startswith("def to_text")
    assert comment.tokens is not None
    assert chunks[comment.index - 1].tokens is not None
    assert comment.tokens + chunks[comment.index - 1].tokens <= 128


def test_a_tiny_whole_definition_keeps_its_symbol() -> None:
    text = (
        "def tiny():\n    pass\n\n\n"
        "class Big:\n"
        "    def a(self, values):\n"
        "        total = sum(value * value for value in values if value > 0)\n"
        "        return total / len(values) if values else 0.0\n\n"
        "    def b(self):\n"
        "        return self.a([1, 2, 3])\n"
    )
    # "def tiny" (5 tokens) fits beside "class Big:" and the first method, but would give that
    # chunk its symbol: it stays alone.
    chunks = chunks_of(text, "b.py", 48, unit="tokens")
    assert [c.metadata["symbol"] for c in chunks] == ["tiny", "Big.a", "Big.b"]
    assert chunks[1].text.startswith("class Big:")


def test_an_opening_joins_its_own_definition_before_a_tiny_neighbour() -> None:
    # At 64 tokens the tail of silentSensors (7 tokens) fits beside neither larger neighbour.
    # Before: the tiny tail and the tiny "extension TemperatureLog {" made one chunk across two
    # definitions; the opening now leads its own first member, the tail stays alone.
    path = FIXTURES_CODE / "TemperatureLog.swift"
    doc = parse(path.read_bytes(), ParseRequest(source=str(path)))
    chunks = assert_invariants(
        doc, make_plan(shortcuts({"strategy": "code", "size": 64, "unit": "tokens"}))
    )
    [opening] = [c for c in chunks if "extension TemperatureLog {" in c.text]
    assert opening.text.startswith("extension TemperatureLog {\n    /// Loads readings")
    assert opening.metadata["symbol"] == "TemperatureLog.load"
    assert chunks[opening.index - 1].text == "return silent.sorted()\n    }\n}"
