"""``NearIndex`` against a plain sequential reference, however the texts are cut into calls.

The reference compares each text with every kept text before it, in order, with the same
rules (a shared band key, signatures agreeing in at least the least rows, then the exact
Jaccard similarity): the bulk search must give the same answers, for any batches, including
batches with so many shared keys that they are resolved in halves.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragchunk.runs.dedupe import minhash, near

VOCABULARY = [
    "tide",
    "gauge",
    "sensor",
    "silt",
    "ferry",
    "steps",
    "birds",
    "mudflats",
    "water",
    "boat",
    "survey",
    "count",
]


def reference(texts: list[str], threshold: float) -> list[int | None]:
    """Return ``NearIndex(threshold).match(texts)``'s answers, computed one pair at a time."""
    shingled = minhash.shingle(texts)
    rows = minhash.signatures(shingled)
    keys = minhash.band_keys(rows, minhash.choose_rows(threshold)).tolist()
    least = max(0, math.ceil((threshold - near.ESTIMATE_MARGIN) * minhash.PERMUTATIONS))
    kept: list[int] = []
    answer: list[int | None] = []
    for number, text_keys in enumerate(keys):
        if shingled.bounds[number] == shingled.bounds[number + 1]:
            answer.append(near.NO_WORDS)
            continue
        found = None
        for candidate in kept:
            shares = set(text_keys) & set(keys[candidate])
            agree = int((rows[number] == rows[candidate]).sum())
            own, other = shingled.set_of(number), shingled.set_of(candidate)
            if shares and agree >= least and minhash.jaccard(own, other) >= threshold:
                found = candidate
                break
        if found is None:
            kept.append(number)
        answer.append(found)
    return answer


@st.composite
def corpora(draw: st.DrawFn) -> list[str]:
    """Texts that are copies, light edits and mixtures of a few originals, and some empty."""
    originals = draw(
        st.lists(
            st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=24).map(" ".join),
            min_size=1,
            max_size=4,
        )
    )
    texts = []
    for _ in range(draw(st.integers(1, 40))):
        words = draw(st.sampled_from(originals)).split()
        for _ in range(draw(st.integers(0, 3))):
            at = draw(st.integers(0, len(words) - 1))
            words[at] = draw(st.sampled_from([*VOCABULARY, "-", "Tide"]))
        texts.append(" ".join(words))
    return texts


@settings(max_examples=60, deadline=None)
@given(corpora(), st.sampled_from([0.5, 0.7, 0.9]), st.lists(st.integers(1, 12), max_size=6))
def test_matches_the_sequential_reference_in_any_batches(
    texts: list[str], threshold: float, cuts: list[int]
) -> None:
    index = near.NearIndex(threshold)
    answer: list[int | None] = []
    begin = 0
    for size in [*cuts, len(texts)]:
        answer += index.match(texts[begin : begin + size])
        begin += size
        if begin >= len(texts):
            break
    assert answer == reference(texts, threshold)


def test_many_copies_are_resolved_in_halves_with_the_same_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = [" ".join(VOCABULARY[k % 5 :] + VOCABULARY[: k % 5]) for k in range(300)]
    expected = reference(texts, 0.7)
    assert expected.count(None) <= 5  # five rotations (some alike), and their copies
    halves = []
    resolve = near.NearIndex._resolve

    def counting(self: near.NearIndex, members: Any, *rest: Any) -> None:
        halves.append(members.size)
        resolve(self, members, *rest)

    monkeypatch.setattr(near, "_PAIRS_SLACK", 64)
    monkeypatch.setattr(near.NearIndex, "_resolve", counting)
    assert near.NearIndex(0.7).match(texts) == expected
    assert len(halves) > 1  # 300 copies of five texts: too many pairs for one pass
