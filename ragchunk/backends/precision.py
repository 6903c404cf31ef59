"""A bfloat16 copy of a local model's transformer, for token vectors on CPUs that compute it.

Late chunking runs every token of a text through the model (``backends/local.py``); on a CPU
with native bfloat16 (AVX-512 BF16 or AMX) a bfloat16 copy of the transformer takes about 40 %
less CPU time, and late-pooled vectors stay within a cosine of 0.9999 of float32's (measured in
benchmarks/README.md). torch is imported inside the functions.
"""

from __future__ import annotations

import copy
from typing import Any


def token_network(model: Any) -> Any:
    """Return the transformer module that computes token vectors for late chunking.

    On a CPU that computes bfloat16 natively (AVX-512 BF16 or AMX) it is a bfloat16 copy of
    the model's transformer: its passes take about 40 % less CPU time, and late-pooled vectors
    stay within a cosine of 0.9999 of float32's (measured in benchmarks/README.md). The copy
    costs half the model's size in memory; ``embed`` keeps the model as loaded. Elsewhere, and
    on GPUs, the model's own transformer is used as loaded.
    """
    network = model[0].auto_model
    if model.device.type != "cpu" or not native_bfloat16():
        return network
    return bfloat16_copy(network)


def bfloat16_copy(module: Any) -> Any:
    """Return a copy of ``module`` whose floating-point weights are bfloat16.

    Only the tensors are new: the modules are copied shallowly, sharing their configuration
    (``copy.deepcopy`` of a transformers model takes several times longer).
    """
    import torch

    def convert(tensor: Any) -> Any:
        return tensor.detach().to(torch.bfloat16) if tensor.is_floating_point() else tensor

    clone = copy.copy(module)
    clone._parameters = {
        name: None if p is None else torch.nn.Parameter(convert(p), requires_grad=False)
        for name, p in module._parameters.items()
    }
    clone._buffers = {
        name: None if b is None else convert(b) for name, b in module._buffers.items()
    }
    clone._modules = {
        name: None if m is None else bfloat16_copy(m) for name, m in module._modules.items()
    }
    return clone


def native_bfloat16() -> bool:
    """Return whether this CPU computes bfloat16 natively (AVX-512 BF16 or AMX)."""
    import torch

    cpu = getattr(torch, "cpu", None)
    return any(
        bool(getattr(cpu, probe, lambda: False)())
        for probe in ("_is_avx512_bf16_supported", "_is_amx_tile_supported")
    )
