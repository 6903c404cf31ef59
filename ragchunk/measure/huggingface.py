"""Tokens of a Hugging Face ``tokenizer.json`` file (needs the ``hf`` extra, loaded lazily)."""

from __future__ import annotations

import re
from bisect import bisect_right
from pathlib import Path
from typing import TYPE_CHECKING, Final

from ragchunk.errors import UsageError

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

_SURROGATE: Final = re.compile("[\ud800-\udfff]")


class HuggingFaceSizer:
    """Token sizes from a Hugging Face tokenizer; each span is re-encoded alone."""

    __slots__ = ("_measure", "_starts", "_text", "total")
    unit: Final = "tokens"
    is_length: Final = False

    def __init__(self, measure: HuggingFaceMeasure, text: str) -> None:
        self._measure = measure
        self._text = text
        offsets = measure.offsets(text)
        starts = sorted({s for s, _ in offsets} - {0})
        self._starts = [0, *starts, len(text)] if text else [0]
        self.total = len(self._starts) - 1

    def offset(self, index: int) -> int:
        """Return the character offset where token ``index`` starts."""
        return self._starts[index]

    def index(self, offset: int) -> int:
        """Return the index of the token containing character ``offset``."""
        return min(bisect_right(self._starts, offset) - 1, self.total)

    def size(self, start: int, end: int) -> int:
        """Return the number of tokens of ``text[start:end]`` encoded alone."""
        return self._measure.count(self._text[start:end]) if end > start else 0


class HuggingFaceMeasure:
    """Tokens of a Hugging Face ``tokenizer.json`` (special tokens not added)."""

    unit: Final = "tokens"
    is_length: Final = False

    def __init__(self, name: str, tokenizer: Tokenizer) -> None:
        self.name = name
        self._tokenizer = tokenizer

    def count(self, text: str) -> int:
        """Return the number of tokens of ``text`` encoded alone."""
        return len(self._encode(text).ids)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """Return each token's character span in ``text``."""
        return list(self._encode(text).offsets)

    def _encode(self, text: str) -> Encoding:
        encode = self._tokenizer.encode
        try:
            return encode(text, add_special_tokens=False)
        except TypeError:
            # A lone surrogate cannot cross into Rust; U+FFFD stands for it one for one (as
            # tiktoken does), so character offsets are unchanged.
            return encode(_SURROGATE.sub("\ufffd", text), add_special_tokens=False)

    def prepare(self, text: str) -> HuggingFaceSizer:
        """Return a sizer for spans of ``text``."""
        return HuggingFaceSizer(self, text)


def load_tokenizer_file(name: str) -> HuggingFaceMeasure:
    """Return the measure of the ``tokenizer.json`` file at path ``name``.

    Raises:
        UsageError: the file is missing or not a tokenizer, or ``tokenizers`` is not installed.
    """
    path = Path(name)
    if not path.is_file():
        raise UsageError(f"--tokenizer {name!r}: no such tokenizer.json file")
    try:
        from tokenizers import Tokenizer
    except ImportError:
        raise UsageError(
            "--tokenizer with a tokenizer.json needs the 'tokenizers' package: "
            "pip install 'ragchunk[hf]'"
        ) from None
    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:  # noqa: BLE001 - tokenizers raises a bare Exception subclass
        raise UsageError(f"--tokenizer {name!r} is not a valid tokenizer.json ({exc})") from None
    # A model's tokenizer.json may truncate (all-MiniLM-L6-v2's cuts at 128 tokens) or pad:
    # sizes would then stop growing at the cut, and no size limit would hold (SPEC §3.3).
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return HuggingFaceMeasure(name, tokenizer)
