"""The sentence splitter on tricky English (and some CJK): expected boundaries, measured accuracy.

``CASES`` pairs a text with the sentences a careful reader finds in it. The splitter is a set of
rules, not a model, so a few cases are known misses; ``test_accuracy_stays_at_the_measured_level``
states the measured accuracy and fails if a change makes it worse.
"""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragchunk.text.sentences import split_sentences

CASES: list[tuple[str, list[str]]] = [
    # abbreviations and titles
    ("Dr. Smith arrived. He sat down.", ["Dr. Smith arrived.", "He sat down."]),
    ("Mr. and Mrs. Jones left early.", ["Mr. and Mrs. Jones left early."]),
    (
        "Prof. Ng teaches at St. Mary's. She is kind.",
        ["Prof. Ng teaches at St. Mary's.", "She is kind."],
    ),
    ("Bring fruit, e.g. apples. Then leave.", ["Bring fruit, e.g. apples.", "Then leave."]),
    ("Use a tool, i.e. a hammer. Done.", ["Use a tool, i.e. a hammer.", "Done."]),
    ("Apples, pears, etc. are fruit. Eat them.", ["Apples, pears, etc. are fruit.", "Eat them."]),
    (
        "We sell apples, pears, etc. The shop opens at nine.",
        ["We sell apples, pears, etc.", "The shop opens at nine."],
    ),
    (
        "See Fig. 3 for details. It shows the curve.",
        ["See Fig. 3 for details.", "It shows the curve."],
    ),
    ("It is on p. 12 of the report. Read it.", ["It is on p. 12 of the report.", "Read it."]),
    ("Call No. 5 now. Then wait.", ["Call No. 5 now.", "Then wait."]),
    (
        "The meeting is on Jan. 5 this year. Be there.",
        ["The meeting is on Jan. 5 this year.", "Be there."],
    ),
    ("Smith et al. reported it. Others agreed.", ["Smith et al. reported it.", "Others agreed."]),
    ("Gen. Grant won. Lt. Dan lost.", ["Gen. Grant won.", "Lt. Dan lost."]),
    (
        "It was Apple Inc. that won. They celebrated.",
        ["It was Apple Inc. that won.", "They celebrated."],
    ),
    ("He works for Acme Inc. The pay is good.", ["He works for Acme Inc.", "The pay is good."]),
    ("Compare A vs. B carefully. Pick one.", ["Compare A vs. B carefully.", "Pick one."]),
    (
        "The vol. 2 edition sold out. A reprint came.",
        ["The vol. 2 edition sold out.", "A reprint came."],
    ),
    (
        "Martin Luther King Jr. spoke. Crowds listened.",
        ["Martin Luther King Jr. spoke.", "Crowds listened."],
    ),
    # acronyms and initials
    ("The U.S. Army marched. Nobody stopped it.", ["The U.S. Army marched.", "Nobody stopped it."]),
    ("She moved to the U.S. The move was hard.", ["She moved to the U.S.", "The move was hard."]),
    ("J. R. R. Tolkien wrote it. It sold well.", ["J. R. R. Tolkien wrote it.", "It sold well."]),
    ("George W. Bush spoke. Then he left.", ["George W. Bush spoke.", "Then he left."]),
    ("We met at 9 a.m. on Monday. It rained.", ["We met at 9 a.m. on Monday.", "It rained."]),
    (
        "The train left at 5 p.m. The station emptied.",
        ["The train left at 5 p.m.", "The station emptied."],
    ),
    (
        "She earned a Ph.D. in physics. Then she taught.",
        ["She earned a Ph.D. in physics.", "Then she taught."],
    ),
    (
        "The U.K. and the E.U. agreed. Markets rose.",
        ["The U.K. and the E.U. agreed.", "Markets rose."],
    ),
    # decimals, numbers, versions
    ("Costs rose 3.5% in 2024. Prices followed.", ["Costs rose 3.5% in 2024.", "Prices followed."]),
    ("Pi is about 3.14159. It never ends.", ["Pi is about 3.14159.", "It never ends."]),
    (
        "Upgrade to version 2.0.1 today. It is safer.",
        ["Upgrade to version 2.0.1 today.", "It is safer."],
    ),
    ("It cost $1,234.56 in total. We paid.", ["It cost $1,234.56 in total.", "We paid."]),
    ("The year was 1999. 2000 came next.", ["The year was 1999.", "2000 came next."]),
    ("Chapter 3. The storm begins.", ["Chapter 3.", "The storm begins."]),
    ("The score was 3.0 to 2.5. We won.", ["The score was 3.0 to 2.5.", "We won."]),
    # quotes and brackets after the stop
    ('He said, "Stop." Then he left.', ['He said, "Stop."', "Then he left."]),
    ("She whispered, 'Go.' They went.", ["She whispered, 'Go.'", "They went."]),
    ("“It works.” The crowd cheered.", ["“It works.”", "The crowd cheered."]),
    ('"Is it late?" she asked.', ['"Is it late?" she asked.']),
    ('"Run!" he shouted. We ran.', ['"Run!" he shouted.', "We ran."]),
    ("(This is a note.) The text goes on.", ["(This is a note.)", "The text goes on."]),
    (
        "The result holds (see above.) Next we test.",
        ["The result holds (see above.)", "Next we test."],
    ),
    ("It ended. (A new part began.)", ["It ended.", "(A new part began.)"]),
    ("He wrote «Fin.» Then he slept.", ["He wrote «Fin.»", "Then he slept."]),
    # question and exclamation marks
    ("Why? Because it works.", ["Why?", "Because it works."]),
    ("Really?! That is odd.", ["Really?!", "That is odd."]),
    ("Stop! Look! Listen!", ["Stop!", "Look!", "Listen!"]),
    ("Is it done? yes, mostly.", ["Is it done? yes, mostly."]),
    # ellipses
    ("Wait... What happened?", ["Wait...", "What happened?"]),
    ("I wonder... maybe not.", ["I wonder... maybe not."]),
    ("And then… Silence.", ["And then…", "Silence."]),
    ("The list goes on… and on.", ["The list goes on… and on."]),
    ("It faded. . . Then it was gone.", ["It faded. . .", "Then it was gone."]),
    # URLs and e-mail
    (
        "Visit https://example.com/a.b?q=1 for more. It is free.",
        ["Visit https://example.com/a.b?q=1 for more.", "It is free."],
    ),
    ("See example.com. Then sign up.", ["See example.com.", "Then sign up."]),
    (
        "Mail john.doe@example.org today. He answers fast.",
        ["Mail john.doe@example.org today.", "He answers fast."],
    ),
    (
        "The file is config.yaml in the root. Edit it.",
        ["The file is config.yaml in the root.", "Edit it."],
    ),
    ("Go to www.python.org. Download it.", ["Go to www.python.org.", "Download it."]),
    # lists
    (
        "Steps: 1. Open the lid. 2. Pour the water.",
        ["Steps: 1. Open the lid.", "2. Pour the water."],
    ),
    (
        "Do this:\n- buy milk\n- buy bread\nThen go home.",
        ["Do this:", "- buy milk", "- buy bread\nThen go home."],
    ),
    (
        "Plan:\n1. Draft the text\n2. Review it\n3. Publish",
        ["Plan:", "1. Draft the text", "2. Review it", "3. Publish"],
    ),
    ("Options:\n* red\n* blue", ["Options:", "* red", "* blue"]),
    ("Choose:\na) yes\nb) no", ["Choose:", "a) yes", "b) no"]),
    (
        "1. First point. It matters.\n2. Second point.",
        ["1. First point.", "It matters.", "2. Second point."],
    ),
    ("• one\n• two", ["• one", "• two"]),
    # paragraphs, lines, headings
    ("No full stop here\n\nNew paragraph", ["No full stop here", "New paragraph"]),
    (
        "A line that wraps\nonto the next line. End.",
        ["A line that wraps\nonto the next line.", "End."],
    ),
    ("# Title\nSome text. More text.", ["# Title", "Some text.", "More text."]),
    ("Intro text\n## Section 2.1\nBody here.", ["Intro text", "## Section 2.1", "Body here."]),
    ("Ends with a stop.\r\n\r\nNext one.", ["Ends with a stop.", "Next one."]),
    ("  Leading and trailing spaces.   ", ["Leading and trailing spaces."]),
    ("no terminal punctuation at all", ["no terminal punctuation at all"]),
    # CJK and other scripts
    ("日本語の文です。次の文。", ["日本語の文です。", "次の文。"]),
    ("これは本です！あれは何？", ["これは本です！", "あれは何？"]),
    ("「はい。」と言った。", ["「はい。」", "と言った。"]),
    ("Привет. Как дела?", ["Привет.", "Как дела?"]),
    # more everyday text
    ("Ask Mrs. Brown. She knows.", ["Ask Mrs. Brown.", "She knows."]),
    (
        "It happened in Sept. 2020. We remember it.",
        ["It happened in Sept. 2020.", "We remember it."],
    ),
    ("The U.N. met today. Talks failed.", ["The U.N. met today.", "Talks failed."]),
    ('She asked, "Where?" Nobody knew.', ['She asked, "Where?"', "Nobody knew."]),
    ("Read sec. 4.2 first. Then continue.", ["Read sec. 4.2 first.", "Then continue."]),
    (
        "It is defined in Art. 5. It applies broadly.",
        ["It is defined in Art. 5.", "It applies broadly."],
    ),
    ("Q: What is it? A: A tool.", ["Q: What is it?", "A: A tool."]),
    ("He scored 10/10. Amazing.", ["He scored 10/10.", "Amazing."]),
    ("The ratio was 1:2. Next we scale.", ["The ratio was 1:2.", "Next we scale."]),
    ("Hello world", ["Hello world"]),
    # known hard cases
    ('The sign read "Closed." "Why?" I asked.', ['The sign read "Closed."', '"Why?" I asked.']),
    ("Version 3 is out.Read the notes.", ["Version 3 is out.", "Read the notes."]),
    ("He read vitamin C. Then he slept.", ["He read vitamin C.", "Then he slept."]),
    ("They arrived at 5 p.m. Dinner was ready.", ["They arrived at 5 p.m.", "Dinner was ready."]),
    ("Contact Dr. J. Smith Jr. at home.", ["Contact Dr. J. Smith Jr. at home."]),
    ("I said no. No means no.", ["I said no.", "No means no."]),
]


def _sentences(text: str) -> list[str]:
    return [text[s:e] for s, e in split_sentences(text)]


def _accuracy() -> tuple[float, list[str]]:
    misses = [text for text, expected in CASES if _sentences(text) != expected]
    return 1 - len(misses) / len(CASES), misses


def test_the_set_is_large_and_well_formed() -> None:
    assert len(CASES) >= 60
    for text, expected in CASES:
        assert re.sub(r"\s", "", "".join(expected)) == re.sub(r"\s", "", text), text


# Measured: 88 of 90 cases (97.8%). The two misses are ambiguous for rules without a model:
# '"Why?" I asked.' (a capital after a quoted question) and "out.Read" (no space after the
# stop, as in file names and versions, is never a boundary).
MEASURED_ACCURACY = 88 / 90


def test_accuracy_stays_at_the_measured_level() -> None:
    accuracy, misses = _accuracy()
    assert accuracy >= MEASURED_ACCURACY, f"accuracy {accuracy:.3f}; misses: {misses}"


@pytest.mark.parametrize("text", [text for text, _ in CASES[::9]], ids=lambda t: t[:20])
def test_spans_are_absolute_and_read_the_same_after_a_prefix(text: str) -> None:
    prefix = "xx. "
    spans = split_sentences(prefix + text, len(prefix))
    assert [(prefix + text)[s:e] for s, e in spans] == _sentences(text)
    assert all(s >= len(prefix) for s, _ in spans)


def test_a_range_is_split_like_the_text_around_it() -> None:
    text = "Intro. Dr. Smith came at 9 a.m. on Monday. It rained. The end."
    whole = split_sentences(text)
    inner = split_sentences(text, whole[1][0], whole[2][1])
    assert inner == whole[1:3]


def test_blank_input_has_no_sentences() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t \r\n") == []
    assert split_sentences("abc", 1, 1) == []


def test_a_combining_mark_after_a_space_stays_in_its_cluster() -> None:
    text = "One. \u0301two"
    spans = split_sentences(text)
    assert spans[-1][0] == 4  # the space that carries the mark


@given(st.text(max_size=300))
def test_sentences_cover_every_non_space_character_in_order(text: str) -> None:
    spans = split_sentences(text)
    covered = "".join(text[s:e] for s, e in spans)
    assert re.sub(r"\s", "", covered) == re.sub(r"\s", "", text)
    previous = 0
    for s, e in spans:
        assert previous <= s < e
        previous = e


def test_time_is_linear_in_the_input() -> None:
    unit = (
        "Dr. Smith paid $3.50 at 9 a.m. on Jan. 5, e.g. for coffee... Then he left! "
        '"Why?" she asked. (See https://example.com/a.b.) 1. First. 2. Second.\n\n'
    )
    small, large = unit * 200, unit * 3200

    def seconds(text: str) -> float:
        best = float("inf")
        for _ in range(3):
            began = time.process_time()
            split_sentences(text)
            best = min(best, time.process_time() - began)
        return best

    ratio = seconds(large) / seconds(small)
    assert ratio < 16 * 2.5, f"16x the input took {ratio:.1f}x the time"


def test_pathological_runs_stay_fast() -> None:
    for text in (
        "a. " * 50_000,
        "." * 200_000,
        " " * 200_000 + "x.",
        "\n" * 100_000,
        "#" * 100_000,
    ):
        began = time.process_time()
        split_sentences(text)
        assert time.process_time() - began < 2.0, text[:10]
