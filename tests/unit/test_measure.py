"""Measures: exact sizes of spans measured alone, and token boundaries as character offsets."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragchunk.errors import UsageError
from ragchunk.measure import CHARS, load_tokenizer
from ragchunk.measure.encoding_files import load_tiktoken

WORDS = st.sampled_from(
    [
        "the",
        "quick",
        " ",
        "  ",
        "\n",
        "\n\n",
        "fox.",
        "'s",
        "don't",
        "123456",
        "ü",
        "日本",
        "😀",
        "e\u0301",
        "\t",
        " ,",
        "!!",
        "   x",
        "<|endoftext|>",
        "\r\n",
        "ab\u200dcd",
        "\udcff",
    ]
)
TEXT = st.lists(WORDS, min_size=0, max_size=200).map("".join)


@given(TEXT, st.data())
def test_token_size_of_any_span_equals_encoding_it_alone(text: str, data: st.DataObject) -> None:
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert sizer.size(start, end) == measure.count(text[start:end])


@given(TEXT)
def test_token_offsets_are_monotone_and_index_inverts_offset(text: str) -> None:
    sizer = load_tokenizer("cl100k_base").prepare(text)
    offsets = [sizer.offset(i) for i in range(sizer.total + 1)]
    assert offsets[0] == 0
    assert offsets[-1] == len(text)
    assert offsets == sorted(offsets)
    for i, offset in enumerate(offsets):
        assert sizer.index(offset) <= i
    for c in range(len(text)):
        assert sizer.offset(sizer.index(c)) <= c


def test_token_offsets_match_tiktoken_decoding() -> None:
    text = "Héllo wörld — 日本語 😀 done."
    sizer = load_tokenizer("cl100k_base").prepare(text)
    encoding = load_tiktoken("cl100k_base")._encoding  # tiktoken decodes, whichever encodes
    _, starts = encoding.decode_with_offsets(encoding.encode_ordinary(text))
    assert [sizer.offset(i) for i in range(sizer.total)] == starts


def test_token_offsets_are_exact_after_lone_surrogates() -> None:
    """tiktoken encodes a lone surrogate as U+FFFD: three bytes, one code point, as here."""
    text = "ab \ud800cd ef\udcff gh " + "日本 " * 200 + "x\udcff y"
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    encoding = load_tiktoken("cl100k_base")._encoding  # tiktoken decodes, whichever encodes
    replaced = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    _, starts = encoding.decode_with_offsets(encoding.encode_ordinary(replaced))
    assert [sizer.offset(i) for i in range(sizer.total)] == starts


def test_cl100k_base_resolves_to_the_offline_copy() -> None:
    assert load_tokenizer("cl100k_base").count("hello world") == 2


def test_char_measure_counts_code_points() -> None:
    assert CHARS.count("e\u0301😀") == 3
    assert CHARS.prepare("abc").size(1, 3) == 2


def test_unknown_tokenizer_is_a_usage_error_naming_the_flag() -> None:
    with pytest.raises(UsageError, match=r"--tokenizer 'nope' is neither a tiktoken encoding"):
        load_tokenizer("nope")


def test_uncached_tiktoken_encoding_fails_naming_what_works_offline(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    with pytest.raises(UsageError) as caught:
        load_tokenizer.__wrapped__("r50k_base")
    assert str(caught.value) == (
        "--tokenizer 'r50k_base' is not available offline and ragchunk never downloads "
        "(offline encodings: cl100k_base, o200k_base (o200k_base with pip install "
        "'ragchunk[o200k]'), or a path to a Hugging Face tokenizer.json)"
    )


def test_o200k_base_loads_offline_from_the_packaged_vocabulary(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # an empty cache: nothing to reuse
    measure = load_tiktoken("o200k_base")  # tiktoken's, whether or not bpe-openai is installed
    encoding = measure._encoding
    assert encoding.n_vocab == 200019
    assert encoding.encode_ordinary("hello world") == [24912, 2375]  # GPT-4o's ids
    assert measure.count("Grüße, 你好 👋") == len(encoding.encode_ordinary("Grüße, 你好 👋"))
    assert list(tmp_path.iterdir()) == []  # nothing written to tiktoken's cache either


def test_a_packaged_vocabulary_that_is_not_o200k_base_is_refused() -> None:
    import importlib.util

    from ragchunk.measure.encoding_files import _ranks_if_genuine

    spec = importlib.util.find_spec("quicktok")
    assert spec is not None
    assert spec.submodule_search_locations
    data = (Path(next(iter(spec.submodule_search_locations))) / "data" / "o200k.vocab").read_bytes()
    expected = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
    assert len(_ranks_if_genuine(data, expected, "o200k.vocab")) == 199998
    tampered = data[:-1] + bytes([data[-1] ^ 1])  # one rank changed
    with pytest.raises(UsageError, match="is not the vocabulary tiktoken expects"):
        _ranks_if_genuine(tampered, expected, "o200k.vocab")
    with pytest.raises(UsageError, match="is not a readable vocabulary"):
        _ranks_if_genuine(data[:1000], expected, "o200k.vocab")


def test_missing_tokenizer_json_is_a_usage_error(tmp_path) -> None:
    with pytest.raises(UsageError, match=r"no such tokenizer\.json"):
        load_tokenizer(str(tmp_path / "missing.json"))


def test_token_offsets_are_exact_across_long_mixed_scripts() -> None:
    text = "Grüße aus Köln, 日本語のテキスト 😀👍🏽 and plain ASCII words. " * 120
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    encoding = load_tiktoken("cl100k_base")._encoding  # tiktoken decodes, whichever encodes
    _, starts = encoding.decode_with_offsets(encoding.encode_ordinary(text))
    assert [sizer.offset(i) for i in range(sizer.total)] == starts
    for c in range(0, len(text), 7):
        assert sizer.offset(sizer.index(c)) <= c


def test_parallel_encoding_of_a_large_text_equals_the_single_encoding(monkeypatch) -> None:
    from ragchunk.measure import tiktoken as measure_module

    text = "Some words, then more words.  Spaces\tand\ttabs.\n\nGrüße 日本 😀 end " * 50
    measure = load_tiktoken("cl100k_base")  # tiktoken's batch call, on threads
    monkeypatch.setattr(measure_module, "_PARALLEL_FROM", 100)
    monkeypatch.setattr(measure_module, "_SEGMENT", 300)
    monkeypatch.setattr(measure_module.os, "cpu_count", lambda: 4)
    sizer = measure.prepare(text)
    encoding = load_tiktoken("cl100k_base")._encoding  # tiktoken decodes, whichever encodes
    _, starts = encoding.decode_with_offsets(encoding.encode_ordinary(text))
    assert sizer.total == len(starts)
    assert [sizer.offset(i) for i in range(sizer.total)] == starts


def test_sizes_stay_exact_across_forced_cuts_in_unspaced_runs(monkeypatch) -> None:
    from ragchunk.measure import tiktoken as measure_module

    monkeypatch.setattr(measure_module, "_SEGMENT", 64)
    text = "short words here " + "x" * 500 + " and then words again, " * 20
    measure = load_tokenizer("cl100k_base")
    sizer = measure.prepare(text)
    for start in range(0, len(text), 37):
        for end in range(start, len(text), 53):
            assert sizer.size(start, end) == measure.count(text[start:end])


@pytest.fixture(scope="module")
def tokenizer_json(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Train a small BPE tokenizer offline and save it as a ``tokenizer.json`` file."""
    tokenizers = pytest.importorskip("tokenizers")
    path = tmp_path_factory.mktemp("hf") / "tokenizer.json"
    tokenizer = tokenizers.Tokenizer(tokenizers.models.BPE(unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    trainer = tokenizers.trainers.BpeTrainer(vocab_size=120, special_tokens=["[UNK]"])
    tokenizer.train_from_iterator(["the quick brown fox jumps over the lazy dog"] * 20, trainer)
    tokenizer.save(str(path))
    return str(path)


@given(TEXT, st.data())
@settings(max_examples=40)
def test_hugging_face_sizes_equal_encoding_the_span_alone(
    tokenizer_json: str, text: str, data: st.DataObject
) -> None:
    measure = load_tokenizer(tokenizer_json)
    sizer = measure.prepare(text)
    assert (sizer.unit, sizer.is_length, measure.is_length) == ("tokens", False, False)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    assert sizer.size(start, end) == measure.count(text[start:end])
    offsets = [sizer.offset(i) for i in range(sizer.total + 1)]
    assert offsets == sorted(offsets)
    assert (offsets[0], offsets[-1]) == (0, len(text))
    assert all(sizer.index(offset) == i for i, offset in enumerate(offsets[:-1]))


def test_invalid_tokenizer_json_is_a_usage_error(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers")
    path = tmp_path / "tokenizer.json"
    path.write_text('{"not": "a tokenizer"}', encoding="utf-8")
    with pytest.raises(UsageError, match=r"is not a valid tokenizer\.json"):
        load_tokenizer(str(path))


def test_sizers_flag_plain_length_and_only_characters_are_plain_length() -> None:
    text = "Grüße, 日本 😀 words"
    chars, tokens = CHARS.prepare(text), load_tokenizer("cl100k_base").prepare(text)
    assert (CHARS.is_length, chars.is_length, chars.unit) == (True, True, "chars")
    assert all(chars.size(s, e) == e - s for s in range(len(text)) for e in range(s, len(text)))
    assert (load_tokenizer("cl100k_base").is_length, tokens.is_length) == (False, False)
    assert tokens.unit == "tokens"


def test_a_tokenizer_json_that_truncates_and_pads_is_measured_in_full(tmp_path: Path) -> None:
    """A model's tokenizer.json (all-MiniLM-L6-v2's cuts at 128 and pads) counts every token."""
    tokenizers = pytest.importorskip("tokenizers")
    path = tmp_path / "tokenizer.json"
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel({"[UNK]": 0, "w": 1}, "[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.enable_truncation(max_length=8)
    tokenizer.enable_padding(length=16, pad_id=0, pad_token="[UNK]")
    tokenizer.save(str(path))
    measure = load_tokenizer(str(path))
    text = "w " * 50
    assert measure.count(text) == 50
    assert measure.count("w") == 1
    assert measure.prepare(text).size(0, len(text)) == 50
