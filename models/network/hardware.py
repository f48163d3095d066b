"""The machine a network runs on: which device it is put on (:func:`pick_device`, the one picker), and where its
bfloat16 weights are multiplied: in hardware where the device has bfloat16 matrix units, in float32 where it has
none.

A model loaded in bfloat16 (``ATLAS_DTYPE=bfloat16``: half the memory) runs its matrix products in bfloat16. On a
CPU without AVX512-BF16 or AMX, oneDNN emulates them, 3–4× slower than float32 on the same CPU: a Qwen2.5-0.5B-sized
model read 85 tokens in 3.7–3.9 s, and in 0.8–0.9 s under :func:`float32_arithmetic` (``python -m bench widening``).
Each product's inputs are bfloat16, so their products are exact in float32, and either way they are summed in
float32: only the order of the sums differs. The result is rounded back to bfloat16, as the library's is, so every
layer after it reads the dtype it was built for.

The weights stay in bfloat16: each is widened as it is used, a slice at a time (:data:`WIDENED_ELEMENTS`), so a
128,000-token output layer never has a float32 twin. Where gradients are taken (attribution) the products stay in
bfloat16: the backward pass would need every widened slice kept. The mode is the calling thread's alone (PyTorch
keeps the torch-function mode stack per thread), so one server thread's pass does not change another's.
"""
from __future__ import annotations

from contextlib import nullcontext

import torch
import torch.nn.functional as F
from torch import Tensor
from torch.overrides import TorchFunctionMode

#: The most weight elements widened to float32 at once (1 MiB): a slice that stays in the CPU's cache between its
#: widening and its product costs no second trip to memory; a narrower one makes an inefficient product.
#: ``python -m bench widening --size S --repeats 3``, one pass over 85 tokens, seconds per round, slices of
#: 16 M / 1 M / 512 K / 256 K / 64 K elements: Qwen2.5-0.5B-sized 1.33–1.37 / 0.89–0.97 / 0.81–0.91 / 0.84–0.87 /
#: 1.49–1.52 (bfloat16 products: 3.74–3.90); EuroLLM-1.7B-sized 3.45–4.04 / 2.40–3.26 / 2.70–3.43 / 2.60–3.80 /
#: 5.10–5.54 (bfloat16 products: 10.58–10.87).
WIDENED_ELEMENTS = 1 << 18


def pick_device(device: str | None = None) -> torch.device:
    """``device`` if given (``cpu``, ``cuda``, ``cuda:1`` …), else CUDA when available, else CPU: a name given by the
    user wins."""
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def native_bfloat16(device: torch.device) -> bool:
    """Whether bfloat16 matrix products run in hardware: a CUDA GPU that has them, or a CPU with AVX512-BF16 or
    AMX. Elsewhere oneDNN emulates them: about 10 s a training batch against 0.5 s in float32, measured on an
    AVX2-only CPU."""
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()


def _linear(x: Tensor, weight: Tensor, bias: Tensor | None, widened: Tensor) -> Tensor:
    """``F.linear`` in float32 over a bfloat16 ``weight`` [out, in], widened into ``widened`` (float32,
    :data:`WIDENED_ELEMENTS`) a slice of rows at a time."""
    rows, wide, parts = max(1, len(widened) // weight.shape[1]), x.float(), []
    for i in range(0, weight.shape[0], rows):
        part = weight[i : i + rows]
        slice_ = widened[: part.numel()].view(part.shape).copy_(part)
        parts.append(F.linear(wide, slice_, None if bias is None else bias[i : i + rows].float()))
    return torch.cat(parts, -1).to(x.dtype)


class _Float32Products(TorchFunctionMode):
    """Linear layers and batched matrix products of bfloat16 tensors, computed in float32. Every slice is widened
    into one buffer, allocated once a pass: a new one each time cost the kernel a page fault per 4 KiB of it, and the
    widening took nearly as long as the products themselves (torch's profiler, a EuroLLM-sized pass)."""

    def __init__(self, device: torch.device):
        super().__init__()
        self.widened = torch.empty(WIDENED_ELEMENTS, dtype=torch.float32, device=device)

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if torch.is_grad_enabled() and any(isinstance(a, Tensor) and a.requires_grad for a in args):
            return func(*args, **kwargs)  # a gradient would keep every widened slice alive until the backward pass
        if func is F.linear and args[1].dtype == torch.bfloat16:
            return _linear(args[0], args[1], args[2] if len(args) > 2 else kwargs.get("bias"), self.widened)
        if func is torch.matmul and args[0].dtype == torch.bfloat16 and args[1].dtype == torch.bfloat16:
            return torch.matmul(args[0].float(), args[1].float()).to(torch.bfloat16)
        return func(*args, **kwargs)


def float32_arithmetic(weights: Tensor):
    """A context in which a pass over many tokens multiplies in float32 where ``weights`` (any of the model's) are
    bfloat16 on a device without bfloat16 units; elsewhere it changes nothing. For passes over many tokens: a
    single step is bound by reading the weights, which widening them would only slow."""
    if weights.dtype != torch.bfloat16 or native_bfloat16(weights.device):
        return nullcontext()
    return _Float32Products(weights.device)
