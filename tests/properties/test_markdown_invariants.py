"""SPEC §3 on generated Markdown: headings, tables, fences, lists, quotes and nesting, parsed by the
Markdown parser, for every strategy in both units, with and without --contextualize and
--min-size. The only refusals allowed are the two by design (a breadcrumb that leaves no room
within --size, and the output budget), each one sentence naming the document."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragchunk.errors import InputError
from ragchunk.measure import measure_for
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import parse
from ragchunk.pipeline.plan import Plan, make_plan
from ragchunk.settings import shortcuts
from ragchunk.text.breadcrumb import format_breadcrumb
from tests.invariants import assert_invariants
from tests.meaning import EMBEDDING, SHAPES

WORDS = st.sampled_from(
    ["alpha", "beta", "Gauge", "tide", "3.5", "e.g.", "Dr.", "日本語", "👍🏽", "naïve", "x" * 30]
)
SENTENCES = st.lists(WORDS, min_size=1, max_size=12).map(lambda w: " ".join(w) + ".")
PARAGRAPHS = st.lists(SENTENCES, min_size=1, max_size=5).map(" ".join)


@st.composite
def headings(draw: st.DrawFn) -> str:
    title = draw(st.lists(WORDS, min_size=1, max_size=4).map(" ".join))
    if draw(st.booleans()):
        return "#" * draw(st.integers(1, 6)) + " " + title
    return title + "\n" + draw(st.sampled_from(["===", "---"]))


@st.composite
def tables(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 4))
    cell = st.one_of(WORDS, st.just("**bold**"), st.just(""))
    header = "| " + " | ".join(draw(WORDS) for _ in range(columns)) + " |"
    delimiter = "|" + "|".join(draw(st.sampled_from(["---", ":--", "--:"])) for _ in range(columns))
    rows = [
        "| " + " | ".join(draw(cell) for _ in range(columns)) + " |"
        for _ in range(draw(st.integers(0, 12)))
    ]
    return "\n".join([header, delimiter + "|", *rows])


@st.composite
def fences(draw: st.DrawFn) -> str:
    char = draw(st.sampled_from("`~"))
    fence = char * draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", "text"]))
    lines = draw(
        st.lists(st.one_of(SENTENCES, st.just(char * 3), st.just("    indented")), max_size=8)
    )
    closing = [] if draw(st.integers(0, 9)) == 0 else [fence]  # sometimes left open
    return "\n".join([fence + info, *lines, *closing])


@st.composite
def lists(draw: st.DrawFn, depth: int = 0) -> str:
    ordered = draw(st.booleans())
    items = []
    for n in range(draw(st.integers(1, 5))):
        marker = f"{n + 1}." if ordered else "-"
        item = "  " * depth + f"{marker} {draw(SENTENCES)}"
        if depth < 2 and draw(st.integers(0, 3)) == 0:
            item += "\n" + draw(lists(depth + 1))
        items.append(item)
    return "\n".join(items)


BLOCKS = st.one_of(
    headings(),
    PARAGRAPHS,
    PARAGRAPHS.map(lambda p: "**Label**\n" + p),
    tables(),
    fences(),
    lists(),
    lists().map(lambda items: "> " + items.replace("\n", "\n> ")),
    st.just("<div>\nraw html\n</div>"),
    st.just("* * *"),
)


@st.composite
def documents(draw: st.DrawFn) -> str:
    blocks = draw(st.lists(BLOCKS, max_size=14))
    if draw(st.integers(0, 5)) == 0:
        blocks.insert(0, "---\ntitle: front matter\n---")
    text = "\n\n".join(blocks) + draw(st.sampled_from(["", "\n", "\n\n"]))
    return text.replace("\n", "\r\n") if draw(st.integers(0, 5)) == 0 else text


def _refusal_is_by_design(error: InputError, doc: Document, plan: Plan) -> bool:
    message = str(error)
    assert message.startswith("doc.md: ")
    assert "\n" not in message
    if "the heading breadcrumb" in message:
        budget = plan.recipe.options.budget
        measure = measure_for(budget.unit, plan.recipe.tokenizer)
        worst = max(measure.count(format_breadcrumb(s.headings)) for s in doc.sections)
        return plan.recipe.contextualize and worst >= budget.size
    return "repeated in the chunks' contexts" in message


@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize("name", SHAPES)
@given(data=st.data())
@example(data=None)
def test_invariants_hold_on_generated_markdown(
    name: str, unit: str, data: st.DataObject | None
) -> None:
    check_generated_markdown(name, unit, data, refine=False)


@pytest.mark.slow
@pytest.mark.parametrize("unit", ["chars", "tokens"])
@pytest.mark.parametrize(
    ("name", "refine"),
    [*((name, False) for name in EMBEDDING), ("hierarchical", True), ("markdown", True)],
)
@settings(max_examples=15)
@given(data=st.data())
@example(data=None)
def test_invariants_hold_on_generated_markdown_with_embeddings(
    name: str, refine: bool, unit: str, data: st.DataObject | None
) -> None:
    check_generated_markdown(name, unit, data, refine=refine)


def check_generated_markdown(
    name: str, unit: str, data: st.DataObject | None, *, refine: bool
) -> None:
    if data is None:  # pinned: a table and a fence at tiny sizes, all flags on
        text, size, contextualize, min_size = "| a |\n|---|\n| b |\n\n```\nx y\n```", 1, False, 1
    else:
        text = data.draw(documents())
        size = data.draw(st.integers(1, 300 if unit == "chars" else 80))
        contextualize = data.draw(st.booleans())
        min_size = data.draw(st.one_of(st.none(), st.integers(1, size)))
    overlap = 0 if data is None else data.draw(st.integers(0, size - 1))
    doc = parse(text.encode(), ParseRequest(source="doc.md", doc_id="doc.md"))
    plan = make_plan(
        shortcuts(
            {
                "strategy": name,
                "size": size,
                "overlap": overlap,
                "unit": unit,
                "contextualize": contextualize,
                "min_size": min_size,
                "refine": refine,
            }
        )
    )
    refused: InputError | None = None
    try:
        assert_invariants(doc, plan)
    except InputError as error:
        refused = error
    if refused is not None:
        assert _refusal_is_by_design(refused, doc, plan), str(refused)
