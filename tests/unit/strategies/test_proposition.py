"""proposition and resume without a model: the passages and the fallback the model would get.

A dry run asks nothing and returns the strategy's own spans, so the passages can be checked
against the invariants here; the model's side is tests/cli/test_proposition.py.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from ragchunk.backends.chat import ChatClient, ChatSpec
from ragchunk.errors import OptionError
from ragchunk.model import Document
from ragchunk.pipeline.check import find_violations
from ragchunk.pipeline.engine import chunk_document, limits_for
from ragchunk.pipeline.plan import make_plan
from ragchunk.pipeline.rewrite import Rewriter
from ragchunk.settings import shortcuts
from ragchunk.text.sentences import split_sentences

SPEC = ChatSpec(url="http://127.0.0.1:9/v1", model="m")  # never reached: a dry run
ENDPOINT = {"api_base": SPEC.url, "model": SPEC.model}
TEXT = (
    "Dr. Smith arrived at 9 a.m. on Monday. He checked the gauge. It read 3.5 m. "
    'The clerk said, "All fine." Then they left... Nobody returned.\n\n'
    + "Supercalifragilistic " * 12
    + "ends here."
)


def passages(strategy: str = "proposition", **plan: Any) -> list[Any]:
    made = make_plan(shortcuts({"strategy": strategy, **ENDPOINT, **plan}))
    doc = Document(text=TEXT)
    rewriter = Rewriter(ChatClient(SPEC, None), dry_run=True)
    chunks = chunk_document(doc, made.recipe, rewriter=rewriter)
    assert not find_violations(doc, chunks, limits_for(made.recipe))
    # one call per distinct passage (the same text is asked once), one per résumé
    distinct = len({c.text for c in chunks}) if strategy == "proposition" else 1
    assert rewriter.snapshot()["planned_calls"] == distinct
    return chunks


def test_passages_are_whole_sentences_without_overlap() -> None:
    chunks = passages(size=20)
    assert all(c.metadata["kind"] == "passage" for c in chunks)
    assert all(b.start >= a.end for a, b in pairwise(chunks))
    ends = {end for _, end in split_sentences(TEXT)}
    whole = [c for c in chunks if not c.metadata.get("oversize_split")]
    assert all(c.end in ends for c in whole)
    assert [c.text for c in whole] == [
        "Dr. Smith arrived at 9 a.m. on Monday. He checked the gauge.",
        'It read 3.5 m. The clerk said, "All fine." Then they left...',
        "Nobody returned.",
    ]
    assert any(c.metadata.get("oversize_split") for c in chunks)  # a sentence over the size


def test_the_default_passage_is_256_tokens() -> None:
    plan = make_plan(shortcuts({"strategy": "proposition", **ENDPOINT}))
    assert (plan.recipe.capacity.size, plan.recipe.capacity.unit, plan.recipe.limit) == (
        256,
        "tokens",
        256,
    )
    assert len(passages()) == 1


def test_options_are_checked() -> None:
    with pytest.raises(OptionError, match="max_propositions"):
        make_plan(
            shortcuts({"strategy": "proposition", **ENDPOINT, "options": {"max_propositions": "0"}})
        )
    with pytest.raises(OptionError, match="--overlap"):
        make_plan(shortcuts({"strategy": "proposition", **ENDPOINT, "overlap": 5}))
    with pytest.raises(OptionError, match="--api-base"):
        make_plan(shortcuts({"strategy": "resume"}))


def test_the_chat_model_is_part_of_the_chunk_ids() -> None:
    one = make_plan(shortcuts({"strategy": "proposition", **ENDPOINT})).recipe.fingerprint
    other = make_plan(shortcuts({"strategy": "proposition", **ENDPOINT, "model": "n"}))
    assert one != other.recipe.fingerprint


def test_resume_falls_back_to_recursive_spans() -> None:
    chunks = passages("resume", size=60, overlap=0)
    assert len(chunks) > 1
    assert all(c.strategy == "recursive" for c in chunks)
