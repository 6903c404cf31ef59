"""The local model's batches: 8 texts on the CPU unless ``--embed-batch-size`` says."""

from __future__ import annotations

from typing import Any

import pytest

from ragchunk.backends import EmbedderSpec, load_backend
from ragchunk.backends.local import CPU_BATCH, LocalEmbedder
from ragchunk.errors import OptionError

TEXTS = [f"The tide gauge reads {n} centimetres above the datum." for n in range(20)]


def batches_asked(spec: EmbedderSpec, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Embed TEXTS with ``spec``'s model; return the batch size each ``encode`` was asked for."""
    backend = load_backend(spec)
    assert isinstance(backend, LocalEmbedder)
    model = backend._model
    asked: list[int] = []
    encode = model.encode

    def spying(texts: Any, **options: Any) -> Any:
        asked.append(options["batch_size"])
        return encode(texts, **options)

    monkeypatch.setattr(model, "encode", spying)
    vectors = backend.embed(TEXTS)
    assert len(vectors) == len(TEXTS)
    return asked


def test_the_cpu_runs_batches_of_8_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert batches_asked(EmbedderSpec(device="cpu"), monkeypatch) == [CPU_BATCH] == [8]


def test_embed_batch_size_sets_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert batches_asked(EmbedderSpec(device="cpu", batch_size=3), monkeypatch) == [3]


def test_a_batch_of_no_text_is_refused() -> None:
    with pytest.raises(OptionError, match=r"--embed-batch-size.*at least 1"):
        EmbedderSpec(batch_size=0)
