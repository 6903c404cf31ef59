"""sentence: whole sentences within the size, overlap in whole sentences, sentence-count mode."""

from __future__ import annotations

import pytest

from ragchunk.errors import OptionError
from ragchunk.model import Document
from ragchunk.parsers._spec import ParseRequest
from ragchunk.parsers.markdown import parse
from ragchunk.pipeline.engine import chunk_document
from ragchunk.pipeline.plan import make_plan
from ragchunk.settings import shortcuts
from tests.invariants import assert_invariants

TEXT = (
    "Dr. Smith arrived at 9 a.m. on Monday. He checked the gauge. It read 3.5 m. "
    'The clerk said, "All fine." Then they left... Nobody returned.'
)
SENTENCES = [
    "Dr. Smith arrived at 9 a.m. on Monday.",
    "He checked the gauge.",
    "It read 3.5 m.",
    'The clerk said, "All fine."',
    "Then they left...",
    "Nobody returned.",
]


def _texts(**plan: object) -> list[str]:
    chunks = assert_invariants(
        Document(text=TEXT), make_plan(shortcuts({"strategy": "sentence", **plan}))
    )  # type: ignore[arg-type]
    return [c.text for c in chunks]


def test_chunks_are_whole_sentences_packed_to_the_size() -> None:
    assert _texts(size=50, overlap=0) == [
        "Dr. Smith arrived at 9 a.m. on Monday.",
        "He checked the gauge. It read 3.5 m.",
        'The clerk said, "All fine." Then they left...',
        "Nobody returned.",
    ]


def test_overlap_repeats_whole_sentences_that_fit_it() -> None:
    texts = _texts(size=64, overlap=25)
    assert texts[1].startswith("He checked the gauge.")  # 21 chars: within the overlap
    for text in texts:
        assert any(text.startswith(s) for s in SENTENCES)
        assert any(text.endswith(s) for s in SENTENCES)


def test_a_sentence_larger_than_the_size_is_split_and_flagged() -> None:
    chunks = assert_invariants(
        Document(text=TEXT),
        make_plan(shortcuts({"strategy": "sentence", "size": 20, "overlap": 0})),
    )
    # Inside a sentence its full stops are not boundaries: "Dr. " is never a piece.
    assert [c.text for c in chunks[:2]] == ["Dr. Smith arrived ", "at 9 a.m. on Monday."]
    assert all(c.metadata.get("oversize_split") for c in chunks[:2])
    assert chunks[4].text == "It read 3.5 m."
    assert "oversize_split" not in chunks[4].metadata


def test_sentence_count_mode_takes_n_sentences_and_repeats_m() -> None:
    texts = _texts(options={"sentences": "3", "overlap_sentences": "1"})
    assert texts == [
        " ".join(SENTENCES[0:3]),
        " ".join(SENTENCES[2:5]),
        " ".join(SENTENCES[4:6]),
    ]


def test_sentence_count_mode_is_unbounded_unless_a_size_is_given() -> None:
    doc = Document(text=TEXT)
    unbounded = chunk_document(
        doc, make_plan(shortcuts({"strategy": "sentence", "options": {"sentences": "6"}})).recipe
    )
    assert [c.text for c in unbounded] == [TEXT]  # 6 sentences, well over no size at all
    bounded = assert_invariants(
        doc,
        make_plan(shortcuts({"strategy": "sentence", "size": 70, "options": {"sentences": "6"}})),
    )
    assert len(bounded) > 1
    assert all(c.chars <= 70 for c in bounded)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"sentences": "0"}, "sentences must be at least 1 (got 0)"),
        (
            {"sentences": "2", "overlap_sentences": "2"},
            "overlap_sentences must be at least 0 and smaller than sentences "
            "(got 2 with sentences=2)",
        ),
        (
            {"overlap_sentences": "1"},
            "overlap_sentences applies only in sentence-count mode (set sentences too)",
        ),
        (
            {"language": "klingon"},
            "language must be one of auto, en, de, fr, es, it, pt, nl (got 'klingon')",
        ),
    ],
)
def test_options_are_validated_before_any_work(options: dict[str, str], message: str) -> None:
    with pytest.raises(OptionError) as caught:
        make_plan(shortcuts({"strategy": "sentence", "options": options}))
    assert str(caught.value) == message


def test_tokens_unit_keeps_sentences_whole() -> None:
    chunks = assert_invariants(
        Document(text=TEXT * 5),
        make_plan(shortcuts({"strategy": "sentence", "size": 24, "overlap": 6, "unit": "tokens"})),
    )
    assert all(c.text.rstrip().endswith((".", '."', "...")) for c in chunks)


def test_sentence_count_mode_with_contextualize_stays_unbounded_without_a_size() -> None:
    text = "# Notes\n\n" + " ".join(SENTENCES * 5) + "\n"  # 700 chars: over the default 512
    doc = parse(text.encode(), ParseRequest(source="notes.md"))
    plan = make_plan(
        shortcuts({"strategy": "sentence", "options": {"sentences": "40"}, "contextualize": True})
    )
    chunks = assert_invariants(doc, plan)
    assert [c.text for c in chunks] == [text.strip()]  # 31 sentences (the heading is one)
    assert chunks[0].context == "Notes\n\n" + chunks[0].text


GERMAN = (
    "Der Bericht wurde am 12. Mai vorgelegt und ist für die Planung wichtig. Er nennt z. B. "
    "Kosten, Fristen usw. Die Stadt hat ihn noch nicht geprüft, aber sie wird es tun."
)


def _sentences_of(text: str, **options: str) -> list[str]:
    plan = make_plan(shortcuts({"strategy": "sentence", "options": {"sentences": "1", **options}}))
    return [c.text for c in assert_invariants(Document(text=text), plan)]


def test_language_is_detected_per_document_by_default() -> None:
    expected = [
        "Der Bericht wurde am 12. Mai vorgelegt und ist für die Planung wichtig.",
        "Er nennt z. B. Kosten, Fristen usw.",
        "Die Stadt hat ihn noch nicht geprüft, aber sie wird es tun.",
    ]
    assert _sentences_of(GERMAN) == expected
    assert _sentences_of(GERMAN, language="de") == expected


def test_a_language_given_overrides_detection() -> None:
    english_rules = _sentences_of(GERMAN, language="en")
    assert "Mai vorgelegt und ist für die Planung wichtig." in english_rules  # "12." ended one
    assert "B. Kosten, Fristen usw." in english_rules
