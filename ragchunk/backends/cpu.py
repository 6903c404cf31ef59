"""A local model's transformer on the CPU: the fast paths this CPU offers, chosen at load.

- ``embed`` (``prepack_linears``): on an x86 CPU with AVX-512, every float32 linear layer runs
  through oneDNN with its weight reordered once, at load, into oneDNN's blocked layout (torch's
  own ``linear`` has its matrix product repack the weight on every call). Same weights, float32
  throughout: vectors stay within 3e-7 of torch's own, and the model's passes take about a
  fifth less time (all-MiniLM-L6-v2, 2 cores; benchmarks/README.md).
- Token vectors for late chunking (``token_network``): on a CPU with native bfloat16 (AVX-512
  BF16 or AMX) a bfloat16 copy of the transformer takes about 40 % less CPU time, and
  late-pooled vectors stay within a cosine of 0.9999 of float32's (measured in
  benchmarks/README.md).

torch is imported inside the functions.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any


def token_network(model: Any) -> Any:
    """Return the transformer module that computes token vectors for late chunking.

    On a CPU that computes bfloat16 natively (AVX-512 BF16 or AMX) it is a bfloat16 copy of
    the model's transformer: its passes take about 40 % less CPU time, and late-pooled vectors
    stay within a cosine of 0.9999 of float32's (measured in benchmarks/README.md). The copy
    costs half the model's size in memory; ``embed`` keeps the float32 model. Elsewhere, and
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
    vars(clone).pop("forward", None)  # a prepacked float32 forward stays the original's
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


def prepack_linears(model: Any) -> int:
    """Run ``model``'s float32 CPU linear layers through oneDNN with prepacked weights.

    Only on an x86 CPU with AVX-512 (where it was measured faster) and a torch built with
    oneDNN; elsewhere nothing changes. Each layer keeps its own weight (the bfloat16 copy and
    anything that reads the weights see them as loaded); the prepacked one is held beside it,
    so the linear weights take twice their memory. Return how many layers were prepacked.
    """
    import torch

    if not prepacks():
        return 0
    count = 0
    for module in model.modules():
        weight = getattr(module, "weight", None)
        if (
            type(module) is torch.nn.Linear
            and weight is not None
            and weight.dtype == torch.float32
            and weight.device.type == "cpu"
        ):
            module.forward = _prepacked(module)
            count += 1
    return count


def prepacks() -> bool:
    """Return whether ``prepack_linears`` prepacks here: x86 with AVX-512, torch with oneDNN."""
    import torch

    mkldnn = torch.ops.mkldnn
    return (
        torch.backends.mkldnn.is_available()
        and torch.backends.cpu.get_cpu_capability() == "AVX512"
        and hasattr(mkldnn, "_reorder_linear_weight")
        and hasattr(mkldnn, "_linear_pointwise")
    )


def _prepacked(linear: Any) -> Callable[[Any], Any]:
    """Return ``linear``'s forward on its weight prepacked for oneDNN (see ``prepack_linears``).

    Input it was not prepacked for (another dtype or device, or one that needs gradients)
    goes through the layer's own forward.
    """
    import torch

    weight = linear.weight.detach()
    bias = None if linear.bias is None else linear.bias.detach()
    packed = torch.ops.mkldnn._reorder_linear_weight(weight, None)
    own = linear.forward

    def forward(x: Any) -> Any:
        if x.dtype != torch.float32 or x.device.type != "cpu" or x.requires_grad:
            return own(x)
        return torch.ops.mkldnn._linear_pointwise(x.contiguous(), packed, bias, "none", [], "")

    return forward
