"""The local model's CPU paths: float32 linears on prepacked oneDNN weights, a bfloat16 copy."""

from __future__ import annotations

from typing import Any

import pytest

from ragchunk.backends import EmbedderSpec, load_backend
from ragchunk.backends.cpu import bfloat16_copy, prepack_linears, prepacks
from ragchunk.backends.local import LocalEmbedder

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

TEXTS = [
    "The tide gauge reads 41 centimetres above the datum.",
    "Chunks keep their spans; " * 30,
    "é",
    "Vector stores are kept in step with the tree, one document at a time.",
]
AVX512 = prepacks()


def loaded() -> LocalEmbedder:
    backend = load_backend(EmbedderSpec(device="cpu"))
    assert isinstance(backend, LocalEmbedder)
    return backend


def small_model() -> Any:
    torch.manual_seed(7)
    return torch.nn.Sequential(
        torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8, bias=False)
    )


def test_embed_gives_the_vectors_of_the_model_as_sentence_transformers_loads_it() -> None:
    from sentence_transformers import SentenceTransformer

    backend = loaded()
    plain = SentenceTransformer(str(backend._path), device="cpu", local_files_only=True)
    ours = np.array(backend.embed(TEXTS))
    theirs = plain.encode(TEXTS, normalize_embeddings=True)
    assert np.abs(ours - theirs).max() < 1e-6
    assert (ours * theirs).sum(axis=1).min() > 0.999999


@pytest.mark.skipif(not AVX512, reason="prepacking is for x86 CPUs with AVX-512")
def test_on_an_avx512_cpu_every_linear_layer_of_the_loaded_model_is_prepacked() -> None:
    linears = [m for m in loaded()._model.modules() if isinstance(m, torch.nn.Linear)]
    assert len(linears) == 37  # all-MiniLM-L6-v2: 6 per layer, 6 layers, and the pooler
    assert all("forward" in vars(m) for m in linears)


@pytest.mark.skipif(not AVX512, reason="prepacking is for x86 CPUs with AVX-512")
def test_a_prepacked_layer_computes_what_the_layer_does_and_hands_other_input_back() -> None:
    model = small_model()
    x = torch.randn(3, 5, 16)
    with torch.inference_mode():
        before = model(x)
    assert prepack_linears(model) == 2
    with torch.inference_mode():
        assert torch.allclose(model(x), before, atol=1e-6)
    # Input it was not prepacked for goes through the layer's own forward.
    wanted = x.clone().requires_grad_()
    model(wanted).sum().backward()
    assert wanted.grad is not None
    with pytest.raises(RuntimeError):  # what torch's own linear says of a bfloat16 input
        model(x.to(torch.bfloat16))


@pytest.mark.skipif(not AVX512, reason="prepacking is for x86 CPUs with AVX-512")
def test_a_bfloat16_copy_of_a_prepacked_model_computes_in_bfloat16() -> None:
    model = small_model()
    x = torch.randn(2, 16)
    with torch.inference_mode():
        before = model(x)
    prepack_linears(model)
    copy = bfloat16_copy(model)
    with torch.inference_mode():
        out = copy(x.to(torch.bfloat16))
        assert torch.allclose(model(x), before, atol=1e-6)  # the original keeps its own
    assert out.dtype == torch.bfloat16
    assert torch.allclose(out.float(), before, atol=0.1)


def test_without_avx512_no_layer_changes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(torch.backends.cpu, "get_cpu_capability", lambda: "AVX2")
    model = small_model()
    assert prepack_linears(model) == 0
    assert not any("forward" in vars(m) for m in model.modules())
