"""Acceptance of the code strategy (issue 5) on every language, and SPEC §3 on generated code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.code import languages, syntax
from ragchunk.measure import measure_for
from ragchunk.model import Chunk, Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.code import parse
from ragchunk.parsers.code import sections as code_sections
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.conftest import FIXTURES
from tests.invariants import assert_invariants

FIXTURE_PATHS = sorted((FIXTURES / "code").iterdir())
BUDGETS = [(48, "tokens"), (128, "tokens"), (512, "tokens"), (150, "chars"), (600, "chars")]
FUNCTION_KINDS = {"function", "method", "constructor", "destructor"}
# What a chunk may hold past the end of a split definition: closing punctuation and keywords,
# and a comment ending the same line (`}  // namespace planner`).
TRIVIA = re.compile(r"[\s});\]]*(?:end)?[\s});\]]*(?:[ \t]*(?://|#|/\*)[^\n]*)?")


def chunk_fixture(
    path: Path, size: int, unit: str, overlap: int = 0
) -> tuple[Document, list[Chunk]]:
    doc = parse(path.read_bytes(), ParseRequest(source=str(path), doc_id=path.name))
    plan = make_plan(
        shortcuts({"strategy": "code", "size": size, "overlap": overlap, "unit": unit})
    )  # type: ignore[arg-type]
    return doc, assert_invariants(doc, plan)


def definitions_of(doc: Document) -> tuple[syntax.Definition, ...]:
    return syntax.parse(doc.text, str(doc.metadata["language"])).definitions


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[1]}")
@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=lambda p: p.name)
def test_no_chunk_cuts_a_function_that_fits(path: Path, budget: tuple[int, str]) -> None:
    size, unit = budget
    doc, chunks = chunk_fixture(path, size, unit)
    measure = measure_for(unit, "cl100k_base")  # type: ignore[arg-type]
    for definition in definitions_of(doc):
        if definition.kind not in FUNCTION_KINDS:
            continue
        inside = [
            c
            for c in chunks
            if definition.node_start < c.start < definition.end
            or definition.node_start < c.end < definition.end
        ]
        if not inside:
            continue
        own_size = measure.count(doc.text[definition.node_start : definition.end])
        assert own_size > size, f"{definition.symbol} ({own_size} {unit}) was cut"
        assert all(c.metadata.get("oversize_split") for c in inside), definition.symbol


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[1]}")
@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=lambda p: p.name)
def test_a_split_definition_takes_at_most_a_tiny_chunk_of_its_surroundings(
    path: Path, budget: tuple[int, str]
) -> None:
    """Outside a split definition, a chunk holding part of it holds only closing syntax (and a
    comment) after it, or a chunk too small to stand alone (an eighth of the size at most) that
    was merged into it: ``export class Ky {`` before its first member, a tail after its end."""
    size, unit = budget
    doc, chunks = chunk_fixture(path, size, unit)
    measure = measure_for(unit, "cl100k_base")  # type: ignore[arg-type]

    def is_tiny(text: str) -> bool:
        return measure.count(text.strip()) * 8 <= size

    for definition in definitions_of(doc):
        held = any(c.start <= definition.node_start and definition.end <= c.end for c in chunks)
        if held:
            continue
        for chunk in chunks:
            if chunk.end <= definition.node_start or chunk.start >= definition.end:
                continue
            lead = (
                doc.text[chunk.start : definition.start] if chunk.start < definition.start else ""
            )
            assert is_tiny(lead), f"{definition.symbol}: {chunk.text!r}"
            tail = doc.text[definition.end : chunk.end] if chunk.end > definition.end else ""
            trivia = TRIVIA.match(tail)
            assert trivia is not None
            assert is_tiny(tail[trivia.end() :]), f"{definition.symbol}: {chunk.text!r}"


@pytest.mark.parametrize("budget", BUDGETS, ids=lambda b: f"{b[0]}{b[1]}")
@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=lambda p: p.name)
def test_every_chunk_names_its_symbol_kind_and_lines(path: Path, budget: tuple[int, str]) -> None:
    doc, chunks = chunk_fixture(path, *budget)
    symbols = {d.symbol for d in definitions_of(doc)} | {"<top-level>"}
    for chunk in chunks:
        assert chunk.metadata["language"] == doc.metadata["language"]
        assert set(str(chunk.metadata["symbol"]).split(", ")) <= symbols
        assert chunk.metadata["kind"]
        assert chunk.line_start is not None
        assert chunk.line_end is not None
        assert chunk.line_start <= chunk.line_end


@pytest.mark.parametrize("overlap", [8, 30])
@pytest.mark.parametrize("path", FIXTURE_PATHS, ids=lambda p: p.name)
def test_invariants_hold_with_overlap(path: Path, overlap: int) -> None:
    chunk_fixture(path, 96, "tokens", overlap)
    chunk_fixture(path, 400, "chars", overlap * 4)


@pytest.mark.parametrize(
    "budget", [(100, "tokens"), (128, "tokens"), (512, "tokens"), (400, "chars")]
)
def test_a_string_holding_a_def_line_is_not_split(budget: tuple[int, str]) -> None:
    path = FIXTURES / "code" / "scaffold.py"
    doc, chunks = chunk_fixture(path, *budget)
    assert "\ndef fake():" in doc.text
    strings = []
    pending = [syntax.parse(doc.text, "python").root]
    while pending:
        node = pending.pop()
        if node.type == "string":
            strings.append((node.start_byte, node.end_byte))  # the file is ASCII
        pending.extend(node.children)
    fakes = [m.start() + 1 for m in re.finditer(r"\ndef fake\(\):", doc.text)]
    assert fakes
    assert all(any(s < f < e for s, e in strings) for f in fakes)
    for chunk in chunks:
        for start, end in strings:
            assert not start < chunk.start < end
            assert not start < chunk.end < end
    assert not any(c.start in fakes for c in chunks)


PIECES = [
    "def f(x):\n",
    "    return x\n",
    "class A:\n",
    "    pass\n",
    "fn main() {\n",
    "func (s *S) M() {\n",
    "function g() {\n",
    "public void m() {\n",
    "}\n",
    "};\n",
    "end\n",
    "{",
    "(",
    ")",
    "<?php\n",
    "@decorator\n",
    "#[derive(Debug)]\n",
    "// comment é\n",
    "# comment 日本\n",
    "/* block */",
    '"str \\n def fake():"',
    "'",
    "x = 1;\n",
    "    ",
    "\t",
    "\n",
    "\r\n",
    "\n\n",
    "👨‍👩‍👧",
    "e\u0301",
    "a" * 90,
    "namespace N {\n",
    "impl T for U {\n",
    "struct S { int x; };\n",
]


@st.composite
def code_cases(draw: st.DrawFn) -> tuple[str, str, int, int, str]:
    language = draw(st.sampled_from(sorted(languages.LANGUAGES)))
    text = draw(
        st.one_of(
            st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
            st.text(max_size=200),
        )
    )
    unit = draw(st.sampled_from(["chars", "tokens"]))
    size = draw(st.integers(1, 160 if unit == "chars" else 48))
    overlap = draw(st.integers(0, size - 1))
    return language, text, size, overlap, unit


@given(case=code_cases())
def test_invariants_hold_on_generated_code_in_every_language(
    case: tuple[str, str, int, int, str],
) -> None:
    language, text, size, overlap, unit = case
    sections = code_sections(syntax.parse(text, language))
    doc = Document(text=text, format="code", sections=sections, metadata={"language": language})
    plan = make_plan(
        shortcuts({"strategy": "code", "size": size, "overlap": overlap, "unit": unit})
    )  # type: ignore[arg-type]
    assert_invariants(doc, plan)
