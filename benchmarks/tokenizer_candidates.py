"""Other implementations of tiktoken's encodings, shaped as the encoding ragchunk's sizer uses.

For ``benchmarks/token_speed.py`` and ``tests/properties/test_tokenizer_candidates.py`` (issue 32):
``TokieEncoding`` (``tokie``, which ships no tables: it runs here from a ``tokenizer.json`` that
``tokie_json`` converts from tiktoken's offline ranks) and ``adversarial()``, the benchmark's
hostile text. bpe-openai, adopted, is ``ragchunk.measure.bpe_openai``. An encoding here has
``encode_ordinary``, ``encode_ordinary_batch``, ``_pat_str``, ``_mergeable_ranks`` and
``max_token_value``: what ``ragchunk.measure.tiktoken`` reads of a tiktoken encoding.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any


def sanitize(text: str) -> str:
    """Return ``text`` with lone surrogates as U+FFFD, as tiktoken's ``encode_ordinary`` does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text


class TokieEncoding:
    """tokie shaped as a tiktoken encoding, from a ``tokenizer.json`` made by ``tokie_json``."""

    def __init__(self, path: Path, reference: Any) -> None:
        import tokie

        self._tokenizer = tokie.Tokenizer.from_json(str(path))
        self._pat_str = reference._pat_str
        self._mergeable_ranks = reference._mergeable_ranks
        self.max_token_value = reference.max_token_value
        self.n_vocab = reference.n_vocab

    def encode_ordinary(self, text: str) -> list[int]:
        # Not ``encode_bytes``: it cuts pieces otherwise ("fox.'s": ".", "'s", not ".'", "s").
        return self._tokenizer.encode(sanitize(text), add_special_tokens=False).ids

    def encode_ordinary_batch(self, texts: list[str], num_threads: int = 1) -> list[list[int]]:
        del num_threads
        batch = self._tokenizer.encode_batch([sanitize(t) for t in texts], add_special_tokens=False)
        return [encoding.ids for encoding in batch]


def _byte_symbols() -> dict[int, str]:
    """GPT-2's byte-to-character table of byte-level BPE ``tokenizer.json`` files."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    extra = [b for b in range(256) if b not in printable]
    table = {b: chr(b) for b in printable}
    table.update({b: chr(256 + n) for n, b in enumerate(extra)})
    return table


def tokie_json(encoding: Any, path: Path) -> Path:
    """Write ``encoding``'s ranks as a byte-level BPE ``tokenizer.json`` (merges by rank)."""
    ranks: dict[bytes, int] = encoding._mergeable_ranks
    symbols = _byte_symbols()

    def spell(token: bytes) -> str:
        return "".join(symbols[b] for b in token)

    merges = sorted(
        (rank, ranks[token[:i]], spell(token[:i]), spell(token[i:]))
        for token, rank in ranks.items()
        for i in range(1, len(token))
        if token[:i] in ranks and token[i:] in ranks
    )
    document = {
        "version": "1.0",
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {
                    "type": "Split",
                    "pattern": {"Regex": encoding._pat_str},
                    "behavior": "Isolated",
                    "invert": False,
                },
                {
                    "type": "ByteLevel",
                    "add_prefix_space": False,
                    "trim_offsets": True,
                    "use_regex": False,
                },
            ],
        },
        "post_processor": None,
        "decoder": {
            "type": "ByteLevel",
            "add_prefix_space": True,
            "trim_offsets": True,
            "use_regex": True,
        },
        "model": {
            "type": "BPE",
            "dropout": None,
            "unk_token": None,
            "continuing_subword_prefix": "",
            "end_of_word_suffix": "",
            "fuse_unk": False,
            "byte_fallback": False,
            "ignore_merges": True,
            "vocab": {spell(t): r for t, r in ranks.items()},
            "merges": [[a, b] for _, _, a, b in merges],
        },
    }
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def adversarial(size: int = 1_000_000, seed: int = 32) -> str:
    """Return ~``size`` characters built to move piece and token boundaries (fixed seed)."""
    rng = random.Random(seed)
    scripts = ["The quick brown fox", "Привет мир", "日本語のテキスト", "한국어 텍스트", "Ελληνικά",
               "مرحبا بالعالم", "नमस्ते दुनिया", "สวัสดีชาวโลก", "e\u0301\u0301"]  # fmt: skip
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    emoji = [family, "\U0001f44d\U0001f3fd", "\U0001f1eb\U0001f1f7", "\u2764\ufe0f",
             "\U0001f3f3\ufe0f\u200d\U0001f308"]  # fmt: skip
    makers: list[Callable[[], str]] = [
        lambda: " " * rng.choice([1, 2, 3, 17, 300, 5000]),
        lambda: "".join(rng.choice("0123456789") for _ in range(rng.choice([4, 99, 3000]))),
        lambda: rng.choice("!?.,;:-_=+*#/\\|()[]{}<>\"'`~") * rng.choice([2, 50, 2000]),
        lambda: rng.choice(scripts),
        lambda: "".join(rng.choices(emoji, k=rng.choice([1, 3, 40]))),
        lambda: rng.choice(["\udcff", "\ud800", "x\udc80y"]),
        lambda: rng.choice("abcdefghij") * rng.choice([200, 20_000, 100_000]),
        lambda: "".join(rng.choices("qwertyuiopasdfghjkl", k=rng.choice([60, 5000]))),
        lambda: rng.choice(["\r\n", "\r\n\r\n", "\r", " \r\n ", "\t\r\n\t", "\n\n\n"]),
        lambda: rng.choice(["\t", "\u00a0", "\u3000", "\u2028", "\x0b\x0c", "\x85"]) * 3,
        lambda: rng.choice(["don't", "'S", "'ll", "\u2019re", "<|endoftext|>", "1,234.5"]),
    ]
    pieces: list[str] = []
    total = 0
    while total < size:
        piece = rng.choice(makers)() + rng.choice(["", " ", "\n"])
        pieces.append(piece)
        total += len(piece)
    return "".join(pieces)[:size]
