"""Measures: how big a span is, in characters or in tokens of a tokenizer.

A ``Measure`` counts any string and prepares a ``Sizer`` for one document. A sizer answers, for
spans of that document's text, the exact size the span has *when encoded alone* (as an embedding
model will see the chunk), and maps between unit boundaries and character offsets without a
decode round-trip per token. ``is_length`` on both says that every size is a plain length in
code points, so callers may skip measuring (the character fast paths test it, never a name).

One module per unit: ``chars`` (code points), ``tiktoken`` (tiktoken encodings, offline copies
only) and ``huggingface`` (``tokenizer.json`` files, the ``hf`` extra). The token modules and
their libraries load only when a tokenizer is asked for. Nothing is ever downloaded.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Protocol

from ragchunk.measure.chars import CHARS, CharMeasure, CharSizer

if TYPE_CHECKING:
    from ragchunk.measure.huggingface import HuggingFaceMeasure
    from ragchunk.measure.tiktoken import TiktokenMeasure
    from ragchunk.options import Unit

__all__ = [
    "CHARS",
    "CharMeasure",
    "CharSizer",
    "Measure",
    "Sizer",
    "load_tokenizer",
    "measure_for",
    "use_one_encoding_thread",
]


class Sizer(Protocol):
    """Sizes of spans of one document's text, in one unit.

    Unit boundaries are numbered ``0..total``; boundary ``i`` sits at character ``offset(i)``.
    For characters every code point boundary is a unit boundary.
    """

    @property
    def unit(self) -> str:
        """``chars`` or ``tokens``: what ``size`` counts (a label, never a test for a fast path)."""
        ...

    @property
    def is_length(self) -> bool:
        """Whether ``size(start, end) == end - start`` for every span: nothing need be measured."""
        ...

    @property
    def total(self) -> int:
        """The number of units in the whole text (as one encoding)."""
        ...

    def size(self, start: int, end: int) -> int:
        """Return the exact size of ``text[start:end]`` measured alone."""
        ...

    def offset(self, index: int) -> int:
        """Return the character offset of unit boundary ``index`` (floored to a code point)."""
        ...

    def index(self, offset: int) -> int:
        """Return the index of the unit that contains character ``offset``."""
        ...


class Measure(Protocol):
    """A unit of size: characters or the tokens of one tokenizer."""

    @property
    def name(self) -> str:
        """``chars``, or the tokenizer's name."""
        ...

    @property
    def unit(self) -> str:
        """``chars`` or ``tokens``."""
        ...

    @property
    def is_length(self) -> bool:
        """Whether ``count(text) == len(text)`` for every text (sizes add up across a join)."""
        ...

    def count(self, text: str) -> int:
        """Return the size of ``text`` measured alone."""
        ...

    def prepare(self, text: str) -> Sizer:
        """Return a sizer for spans of ``text``."""
        ...


@functools.cache
def load_tokenizer(name: str) -> TiktokenMeasure | HuggingFaceMeasure:
    """Return the measure for a tiktoken encoding name or a ``tokenizer.json`` path.

    Raises:
        UsageError: the name is unknown, or its file is not available offline.
    """
    if name.endswith(".json"):
        from ragchunk.measure.huggingface import load_tokenizer_file

        return load_tokenizer_file(name)
    from ragchunk.measure.encoding_files import load_encoding

    return load_encoding(name)


def measure_for(unit: Unit, tokenizer: str) -> Measure:
    """Return the measure a budget in ``unit`` uses."""
    return CHARS if unit == "chars" else load_tokenizer(tokenizer)


def use_one_encoding_thread() -> None:
    """Encode on this process's thread only: for worker processes that already fill the cores."""
    from ragchunk.measure import tiktoken

    tiktoken.use_one_encoding_thread()
