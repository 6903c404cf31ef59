"""The local model: its batches, and the runtime that runs it on the CPU (torch or ONNX Runtime).

ONNX Runtime runs a copy of the model's transformer exported once into the user cache directory
(``backends/onnx_runtime.py``); these tests run the real export and the real runtime.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragchunk.backends import EmbedderSpec, load_backend
from ragchunk.backends import local as local_backend
from ragchunk.backends.local import CPU_BATCH, ONNX_BATCH, LocalEmbedder
from ragchunk.backends.onnx_runtime import OnnxEncoder
from ragchunk.errors import OptionError, UsageError

TEXTS = [f"The tide gauge reads {n} centimetres above the datum." for n in range(20)]
VARIED = [
    "Short.",
    "Die Gezeitenmessung zeigt 42 Zentimeter über dem Pegelnull, gemessen um Mitternacht.",
    "潮位計は基準面から四十二センチを示した。",
    "A long paragraph about harbours. " * 40,  # past the model's 256 tokens: truncated alike
    "",
]


def loaded(spec: EmbedderSpec) -> LocalEmbedder:
    backend = load_backend(spec)
    assert isinstance(backend, LocalEmbedder)
    return backend


def batches_asked(spec: EmbedderSpec, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Embed TEXTS with ``spec``'s model; return the size of each batch the runtime was given."""
    backend = loaded(spec)
    asked: list[int] = []
    if spec.runtime == "torch":
        encode = backend._model.encode

        def spying(texts: Any, **options: Any) -> Any:
            asked.append(options["batch_size"])
            return encode(texts, **options)

        monkeypatch.setattr(backend._model, "encode", spying)
    else:
        batch = OnnxEncoder._batch

        def counting(self: OnnxEncoder, texts: list[str]) -> Any:
            asked.append(len(texts))
            return batch(self, texts)

        backend._onnx_encoder()  # made first: its check on load embeds probe texts
        monkeypatch.setattr(OnnxEncoder, "_batch", counting)
    vectors = backend.embed(TEXTS)
    assert len(vectors) == len(TEXTS)
    return asked


def test_torch_runs_batches_of_8_on_the_cpu_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = EmbedderSpec(device="cpu", runtime="torch")
    assert batches_asked(spec, monkeypatch) == [CPU_BATCH] == [8]


def test_onnx_runtime_runs_batches_of_8_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = EmbedderSpec(device="cpu", runtime="onnx")
    assert batches_asked(spec, monkeypatch) == [ONNX_BATCH] * 2 + [4]


@pytest.mark.parametrize("runtime", ["torch", "onnx"])
def test_embed_batch_size_sets_the_batch(runtime: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = EmbedderSpec(device="cpu", runtime=runtime, batch_size=7)
    assert batches_asked(spec, monkeypatch) == ([7] if runtime == "torch" else [7, 7, 6])


def test_a_batch_of_no_text_is_refused() -> None:
    with pytest.raises(OptionError, match=r"--embed-batch-size.*at least 1"):
        EmbedderSpec(batch_size=0)


def test_onnx_runtime_gives_torchs_vectors_in_order() -> None:
    onnx = loaded(EmbedderSpec(runtime="onnx"))
    torch = loaded(EmbedderSpec(runtime="torch"))
    texts = VARIED + TEXTS[:3] + VARIED[::-1]
    ours = np.array(onnx.embed(texts))
    theirs = np.array(torch.embed(texts))
    assert isinstance(onnx._onnx, OnnxEncoder)
    assert torch._onnx is False
    assert ours.shape == theirs.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert np.min(np.sum(ours * theirs, axis=1)) > 0.99999
    assert np.max(np.abs(ours - theirs)) < 1e-4


def test_auto_is_onnx_runtime_on_the_cpu_where_installed() -> None:
    assert isinstance(loaded(EmbedderSpec(device="cpu"))._onnx_encoder(), OnnxEncoder)


def exports(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Count the exports made from now on (each still made for real)."""
    made: list[Path] = []
    export = OnnxEncoder._export

    def counting(self: OnnxEncoder, target: Path) -> None:
        made.append(target)
        export(self, target)

    monkeypatch.setattr(OnnxEncoder, "_export", counting)
    return made


def fresh(monkeypatch: pytest.MonkeyPatch, cache: Path) -> LocalEmbedder:
    """A model loaded anew (not the process's), its exports under ``cache``."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return LocalEmbedder(EmbedderSpec(runtime="onnx").options)  # type: ignore[arg-type]


def test_the_export_is_made_once_then_found_in_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = exports(monkeypatch)
    first = fresh(monkeypatch, tmp_path).embed(TEXTS[:2])
    kept = sorted((tmp_path / "ragchunk" / "onnx").iterdir())
    assert len(made) == 1
    assert made[0].parent == kept[0].parent
    assert [p.suffix for p in kept] == [".onnx"]  # the temporary file became it
    again = fresh(monkeypatch, tmp_path).embed(TEXTS[:2])
    assert len(made) == 1  # found, not made again
    assert np.allclose(np.array(first), np.array(again))


def test_a_damaged_export_is_made_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fresh(monkeypatch, tmp_path).embed(TEXTS[:1])
    (kept,) = (tmp_path / "ragchunk" / "onnx").iterdir()
    kept.write_bytes(kept.read_bytes()[:4096])  # cut short, as by a full disk
    made = exports(monkeypatch)
    vectors = fresh(monkeypatch, tmp_path).embed(TEXTS[:1])
    assert len(made) == 1
    assert len(vectors) == 1
    assert kept.stat().st_size > 1_000_000
    assert [p.name for p in kept.parent.iterdir()] == [kept.name]


def test_a_cache_that_cannot_be_written_keeps_the_export_in_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    backend = fresh(monkeypatch, blocker)
    vectors = backend.embed(TEXTS[:3])
    assert isinstance(backend._onnx, OnnxEncoder)
    assert len(vectors) == 3
    assert blocker.read_text() == "not a directory\n"


def test_an_unknown_runtime_is_refused_naming_the_choices() -> None:
    with pytest.raises(OptionError, match=r"--embed-runtime.*auto, onnx or torch.*'tensorrt'"):
        EmbedderSpec(runtime="tensorrt")


def test_onnx_runtime_on_a_gpu_is_refused() -> None:
    with pytest.raises(OptionError, match=r"--embed-runtime.*CPU.*--device cuda"):
        EmbedderSpec(runtime="onnx", device="cuda")


def test_without_onnxruntime_auto_is_torch_and_onnx_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local_backend, "onnx_installed", lambda: False)
    with pytest.raises(
        UsageError, match=r"--embed-runtime onnx needs onnxruntime.*ragchunk\[embed\]"
    ):
        EmbedderSpec(runtime="onnx").options.check("--embed", tokens=False)
    EmbedderSpec().options.check("--embed", tokens=False)  # auto: torch will do
    backend = LocalEmbedder(EmbedderSpec().options)  # type: ignore[arg-type]
    assert backend._onnx_encoder() is None
    assert len(backend.embed(TEXTS[:2])) == 2
