"""The breadcrumb format and PrefixedSizer: exact sizes of breadcrumb + text."""

from __future__ import annotations

from ragchunk.measure import CHARS, load_tokenizer
from ragchunk.text.breadcrumb import PrefixedSizer, format_breadcrumb, with_prefix
from ragchunk.text.pack import align_to_word, pack

TEXT = "Intro text here. Body of the first section, with more words. Tail."


def test_breadcrumb_joins_the_path_and_ends_with_a_blank_line() -> None:
    assert format_breadcrumb(()) == ""
    assert format_breadcrumb(("Guide", " Install ", "Linux")) == "Guide > Install > Linux\n\n"


def _prefix(start: int) -> str:
    return "" if start < 17 else "Guide > Body\n\n"


def test_chars_add_up() -> None:
    sizer = PrefixedSizer(TEXT, CHARS.prepare(TEXT), count=len, prefix_at=_prefix, additive=True)
    assert sizer.size(0, 16) == 16
    assert sizer.size(17, 60) == 43 + len("Guide > Body\n\n")
    assert sizer.size(20, 20) == 0
    assert (sizer.total, sizer.offset(5), sizer.index(5)) == (len(TEXT), 5, 5)


def test_tokens_are_counted_on_the_joined_text() -> None:
    measure = load_tokenizer("cl100k_base")
    sizer = PrefixedSizer(
        TEXT, measure.prepare(TEXT), count=measure.count, prefix_at=_prefix, additive=False
    )
    for start, end in [(0, 16), (17, 60), (17, len(TEXT)), (30, 31)]:
        assert sizer.size(start, end) == measure.count(_prefix(start) + TEXT[start:end])


def test_a_further_prefix_comes_after_the_breadcrumb() -> None:
    sizer = PrefixedSizer(TEXT, CHARS.prepare(TEXT), count=len, prefix_at=_prefix, additive=True)
    header = with_prefix(sizer, TEXT, count=len, prefix_at=lambda _s: "| h |\n", additive=True)
    assert header.size(17, 60) == len("Guide > Body\n\n| h |\n") + 43
    plain = with_prefix(CHARS.prepare(TEXT), TEXT, count=len, prefix_at=_prefix, additive=True)
    assert plain.size(17, 60) == sizer.size(17, 60)


def test_a_prefixed_sizer_keeps_its_unit_but_never_takes_the_code_point_fast_path() -> None:
    sizer = PrefixedSizer(TEXT, CHARS.prepare(TEXT), count=len, prefix_at=_prefix, additive=True)
    assert (sizer.unit, sizer.is_length) == ("chars", False)
    windows = pack(
        TEXT,
        0,
        len(TEXT),
        sizer=sizer,
        size=24,
        overlap=0,
        find_cut=lambda _text, _lo, limit: limit,
        align_start=align_to_word,
    )
    assert all(sizer.size(w.start, w.end) <= 24 for w in windows)  # prefix counted
    assert any(w.end - w.start < 24 and w.end < len(TEXT) for w in windows)


def test_spans_whose_context_was_undercounted_are_split_with_their_own_breadcrumb() -> None:
    from ragchunk.model import Span
    from ragchunk.options import Capacity
    from ragchunk.text.breadcrumb import fit_contexts
    from ragchunk.text.separators import split_range

    text = "alpha beta gamma delta epsilon zeta"
    sizer = CHARS.prepare(text)
    budget = Capacity(size=30, overlap=0)
    spans = [
        Span(0, 16),  # "alpha beta gamma": no headings at all, fits
        Span(17, 35, headings=("Deep", "Heading")),  # 18 chars + 16 of breadcrumb > 30
    ]
    fitted = fit_contexts(
        text,
        spans,
        sizer=sizer,
        count=len,
        additive=True,
        limit=30,
        headings_at=lambda _offset: (),
        refine=lambda s, e, lead_sizer: split_range(text, s, e, sizer=lead_sizer, capacity=budget),
    )
    assert fitted[0] == spans[0]
    assert [text[s.start : s.end] for s in fitted[1:]] == ["delta epsilon ", "zeta"]
    for span in fitted[1:]:
        assert span.headings == ("Deep", "Heading")
        assert span.metadata == {"oversize_split": True}
        assert len("Deep > Heading\n\n") + span.end - span.start <= 30
