"""The rewrite pass's pieces: grounding, the answer's shape, Ctrl-C, the library's entry point."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import pytest

from ragchunk.api import chunk_text
from ragchunk.backends.chat import ChatSpec, each, forget_modes
from ragchunk.errors import OptionError
from ragchunk.measure import measure_for
from ragchunk.strategies._prompts import INVALID, read_answer
from ragchunk.strategies.proposition import content_words, grounding
from ragchunk.strategies.resume import field_spans
from tests.support.scripted import CHAT, Reply, ScriptedServer, chat_body

PASSAGE = "The pump at Wend station failed in March. Engineers replaced its bearings in April."


@pytest.fixture(autouse=True)
def _fresh_modes() -> Iterator[None]:
    forget_modes()
    yield
    forget_modes()


def test_grounding_counts_content_words_found_in_the_passage() -> None:
    words = content_words(PASSAGE)
    assert grounding("The pump at Wend station failed in March.", words) == 1.0
    assert grounding("Engineers replace the bearing.", words) == 1.0  # inflections match
    assert grounding("The moon is made of green cheese.", words) == 0.0
    assert grounding("The pump was made of cheese.", words) == pytest.approx(1 / 3)
    assert grounding("It is.", words) == 0.0  # nothing but stop words says nothing


def test_answers_may_come_fenced_but_must_be_json() -> None:
    assert read_answer('```json\n{"propositions": ["A."]}\n```') == {"propositions": ["A."]}
    assert read_answer("[1, 2]") == [1, 2]
    assert read_answer("null") is None  # JSON, if not the shape asked for
    assert read_answer("Sure! Here you go: [") is INVALID


def test_fields_found_verbatim_keep_their_span_and_the_rest_is_kept() -> None:
    text = "Ada Lovelace\nLondon\n\nSkills: mathematics, poetry\n"
    spans = field_spans(text, [("contact", "Ada Lovelace"), ("skills", "mathematics, poetry")])
    assert [(s.start, s.end, s.metadata["kind"]) for s in spans] == [
        (0, 12, "field"),
        (13, 28, "passage"),  # "London\n\nSkills:": what no field holds
        (29, 48, "field"),
    ]
    rewritten = field_spans(text, [("summary", "A mathematician.")])
    assert [(s.start, s.end, s.text) for s in rewritten] == [(0, len(text), "A mathematician.")]


def test_ctrl_c_in_a_call_is_never_swallowed() -> None:
    started = threading.Event()

    def work(item: int) -> int:
        if item == 3:
            started.set()
            raise KeyboardInterrupt
        return item

    with pytest.raises(KeyboardInterrupt):
        each(work, list(range(8)), workers=3)
    assert started.is_set()
    assert each(lambda item: item * 2, [1, 2, 3], workers=2) == [2, 4, 6]


def test_proposition_options_are_checked() -> None:
    spec = ChatSpec(url="http://127.0.0.1:9/v1", model="m")
    with pytest.raises(OptionError, match="grounding"):
        chunk_text("A.", strategy="proposition", options={"grounding": "2"}, chat=spec)
    with pytest.raises(OptionError, match="--overlap"):
        chunk_text("A.", strategy="proposition", overlap=10, chat=spec)
    with pytest.raises(OptionError, match="--api-base"):
        chunk_text("A.", strategy="proposition")


@pytest.mark.localhost
@pytest.mark.allow_hosts(["127.0.0.1"])
def test_chunk_text_runs_proposition_through_the_library(
    scripted_server: ScriptedServer,
) -> None:
    answer = json.dumps({"propositions": ["The pump at Wend station failed in March."]})
    scripted_server.on(CHAT, lambda _r: Reply.json(chat_body(answer)))
    spec = ChatSpec(url=scripted_server.base_url, model="m")
    chunks = chunk_text(PASSAGE, strategy="proposition", chat=spec, no_cache=True)
    assert [(c.text, c.start, c.end) for c in chunks] == [
        ("The pump at Wend station failed in March.", 0, len(PASSAGE))
    ]
    assert chunks[0].metadata == {"kind": "proposition", "passage": 0, "proposition": 0}
    own = measure_for("tokens", "cl100k_base").count(chunks[0].text)
    assert chunks[0].tokens == own < measure_for("tokens", "cl100k_base").count(PASSAGE)
