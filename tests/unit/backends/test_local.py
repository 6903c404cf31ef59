"""The local model's batches on the CPU: 4 texts where its linear layers are prepacked, else 8,
unless ``--embed-batch-size`` says."""

from __future__ import annotations

from typing import Any

import pytest

from ragchunk.backends import EmbedderSpec, load_backend
from ragchunk.backends.local import CPU_BATCH, PREPACKED_BATCH, LocalEmbedder
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


def test_the_cpu_runs_batches_of_4_prepacked_else_8_by_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    backend = load_backend(EmbedderSpec(device="cpu"))
    assert isinstance(backend, LocalEmbedder)
    prepacked = any("forward" in vars(module) for module in backend._model.modules())
    wanted = [PREPACKED_BATCH] if prepacked else [CPU_BATCH]
    assert batches_asked(EmbedderSpec(device="cpu"), monkeypatch) == wanted
    assert (PREPACKED_BATCH, CPU_BATCH) == (4, 8)


def test_embed_batch_size_sets_the_batch(monkeypatch: pytest.MonkeyPatch) -> None:
    assert batches_asked(EmbedderSpec(device="cpu", batch_size=3), monkeypatch) == [3]


def test_a_batch_of_no_text_is_refused() -> None:
    with pytest.raises(OptionError, match=r"--embed-batch-size.*at least 1"):
        EmbedderSpec(batch_size=0)
