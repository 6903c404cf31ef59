"""cl100k_base and o200k_base from the ``bpe-openai`` wheel (the ``fast-tokens`` extra).

bpe-openai runs GitHub's Rust ``bpe-openai`` crate: the same token ids as tiktoken (a property
test compares ids, offsets and span sizes on adversarial text), about a quarter less CPU time on
prose and a quarter of it on long runs of one character (``benchmarks/token_speed.py``). Its
wheel ships both tables, so nothing is downloaded.

Only its extension module is loaded: importing the ``bpe_openai`` package parses three
vocabularies in Python (~0.65 s, more than the whole tiktoken load). The token byte lengths
ragchunk's sizer needs come from the table the wheel ships, accepted only when it is the exact
file tiktoken would download (tiktoken's SHA-256). Anything missing or different: ``None``, and
ragchunk uses tiktoken.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import importlib.machinery
import importlib.util
from pathlib import Path
from typing import Final

from ragchunk.measure.tiktoken import TiktokenMeasure

_TIKTOKEN_SHA256: Final = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
"""SHA-256 of the vocabulary files tiktoken downloads (its ``expected_hash``)."""
_PATTERNS: Final = {
    "cl100k_base": r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",  # noqa: E501
    "o200k_base": "|".join(
        [
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
            r"""\p{N}{1,3}""",
            r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
            r"""\s*[\r\n]+""",
            r"""\s+(?!\S)""",
            r"""\s+""",
        ]
    ),
}
"""tiktoken's pre-tokenizer patterns, the ones bpe-openai reproduces (``TiktokenMeasure`` reads
them to know whether spans may be sized from the whole text's encoding)."""


def _sanitize(text: str) -> str:
    """Return ``text`` with lone surrogates as U+FFFD, as tiktoken's ``encode_ordinary`` does."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class BpeOpenAIEncoding:
    """bpe-openai's tokenizer with the part of tiktoken's ``Encoding`` ragchunk uses."""

    def __init__(self, name: str, encode: object, ranks: dict[bytes, int]) -> None:
        self.name = name
        self._encode = encode
        self._pat_str = _PATTERNS[name]
        self._mergeable_ranks = ranks
        self.max_token_value = max(ranks.values())
        self.n_vocab = self.max_token_value + 1

    def encode_ordinary(self, text: str) -> list[int]:
        """Return the token ids of ``text`` (special tokens encoded as text)."""
        try:
            return self._encode(text)  # type: ignore[operator,no-any-return]
        except UnicodeEncodeError:  # a lone surrogate
            return self._encode(_sanitize(text))  # type: ignore[operator,no-any-return]

    def encode_ordinary_batch(self, texts: list[str], num_threads: int = 1) -> list[list[int]]:
        """Return the ids of each text, on this thread (the binding holds the GIL)."""
        del num_threads
        return [self.encode_ordinary(text) for text in texts]


def load(name: str) -> TiktokenMeasure | None:
    """Return the measure of ``name`` from bpe-openai, or None when it cannot be used."""
    if name not in _TIKTOKEN_SHA256:
        return None
    spec = importlib.util.find_spec("bpe_openai")  # found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    try:
        table = gzip.decompress((root / "data" / f"{name}.tiktoken.gz").read_bytes())
        if hashlib.sha256(table).hexdigest() != _TIKTOKEN_SHA256[name]:
            return None
        loader = importlib.machinery.ExtensionFileLoader(
            "bpe_openai._bindings", str(root / "_bindings.abi3.so")
        )
        module_spec = importlib.util.spec_from_loader(loader.name, loader)
        if module_spec is None:
            return None
        module = importlib.util.module_from_spec(module_spec)
        loader.exec_module(module)
        encode = module.tokenizer_for_encoding(name).encode
    except (OSError, ImportError, AttributeError, ValueError, EOFError, gzip.BadGzipFile):
        return None
    lines = (line.split() for line in table.splitlines() if line)
    ranks = {base64.b64decode(token): int(rank) for token, rank in lines}
    return TiktokenMeasure(name, BpeOpenAIEncoding(name, encode, ranks))
