"""The Pragmatic Segmenter's 48 English "Golden Rules", as our own cases with exact spans.

Each rule is one case of ``sentence_cases.GOLDEN_RULES`` (our text, the same rule). The spans
must be exact: the sentences, found in order in the text, with nothing else. Measured: 48 of
48 (pySBD 0.3.4 gets 47 on the same cases: it ends a sentence at ``By 7 a.m.``).
"""

from __future__ import annotations

import re

import pytest

from ragchunk.text.sentences import split_sentences
from tests.unit.text.sentence_cases import GOLDEN_RULES, Case, expected_spans


def _params() -> list[object]:
    params = []
    for rule, case in GOLDEN_RULES.items():
        marks = [pytest.mark.xfail(strict=True, reason=case.miss)] if case.miss else []
        params.append(pytest.param(case, id=rule, marks=marks))
    return params


def test_there_are_48_rules_and_each_case_is_well_formed() -> None:
    assert len(GOLDEN_RULES) == 48
    for case in GOLDEN_RULES.values():
        expected_spans(case.text, case.sentences)  # raises unless they are slices, in order
        assert re.sub(r"\s", "", "".join(case.sentences)) == re.sub(r"\s", "", case.text)


@pytest.mark.parametrize("case", _params())
def test_golden_rule(case: Case) -> None:
    assert split_sentences(case.text, language="en") == expected_spans(case.text, case.sentences)


@pytest.mark.parametrize("case", _params())
def test_golden_rule_reads_the_same_inside_a_longer_text(case: Case) -> None:
    # Preceded by a paragraph and followed by another: the same spans, shifted.
    before, after = "An opening line.\n\n", "\n\nA closing line."
    text = before + case.text + after
    shifted = [
        (s + len(before), e + len(before)) for s, e in expected_spans(case.text, case.sentences)
    ]
    spans = split_sentences(text, language="en")
    assert spans == [(0, len(before) - 2), *shifted, (len(text) - 15, len(text))]
