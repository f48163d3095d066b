"""models/network/learning/step.py: one step lowers the loss; the forward can be swapped for a reference."""
import os
import subprocess
import sys

import pytest
import torch

from models import ROOT
from models.network.hardware import native_bfloat16
from models.network.learning.step import loss_function, replica_device, train_step
from models.network.tokenization import PAD_ID
from models.storage.data import batches
from models.storage.pieces import tokenize_pairs

from .helpers import make_model, synthetic_pairs


def test_repeated_steps_lower_the_loss_on_a_batch(tiny_tokenizers):
    model = make_model(tiny_tokenizers).train()
    batch = next(batches(tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(16)), max_len=50), 16))
    optimizer, loss_fn = torch.optim.Adam(model.parameters(), lr=1e-2), loss_function()
    losses = [train_step(model, batch, optimizer, loss_fn) for _ in range(30)]
    assert losses[-1] < 0.5 * losses[0]


def test_padding_is_ignored_and_label_smoothing_applies():
    logits = torch.tensor([[0.0, 1.0, 2.0, 0.5, 0.0], [3.0, 0.0, 0.0, 0.0, 0.0]])
    with_pad = loss_function()(logits, torch.tensor([2, PAD_ID]))
    torch.testing.assert_close(with_pad, loss_function()(logits[:1], torch.tensor([2])))  # the PAD row counts nothing
    uniform = torch.zeros(1, 5)  # smoothing cannot change the loss of a uniform prediction …
    target = torch.tensor([2])
    torch.testing.assert_close(loss_function(0.1)(uniform, target), loss_function()(uniform, target))
    peaked = torch.tensor([[0.0, 0.0, 9.0, 0.0, 0.0]])  # … and penalises a confident one
    assert loss_function(0.1)(peaked, torch.tensor([2])) > loss_function()(peaked, torch.tensor([2])) + 0.1


def test_the_forward_can_be_a_reference(tiny_tokenizers):
    """The benchmark times the step with a step-by-step forward: the same update as the model's own."""
    from bench.kernels import stepwise_log_probs

    batch = next(batches(tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(8)), max_len=50), 8))
    a, b = make_model(tiny_tokenizers, seed=4).train(), make_model(tiny_tokenizers, seed=4).train()
    loss_a = train_step(a, batch, torch.optim.SGD(a.parameters(), lr=0.1), loss_function())
    loss_b = train_step(b, batch, torch.optim.SGD(b.parameters(), lr=0.1), loss_function(),
                        forward=lambda *x: stepwise_log_probs(b, *x))
    assert abs(loss_a - loss_b) < 1e-5
    for p, q in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-4)


def test_bfloat16_products_learn_like_float32(tiny_tokenizers):
    """--precision bfloat16 autocasts the forward only: the same steps lower the loss about as far, and the
    weights stay float32."""
    batch = next(batches(tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(16)), max_len=50), 16))
    final = {}
    for precision in (torch.float32, torch.bfloat16):
        model = make_model(tiny_tokenizers, seed=2).train()
        optimizer, loss_fn = torch.optim.Adam(model.parameters(), lr=1e-2), loss_function(0.1)
        losses = [train_step(model, batch, optimizer, loss_fn, precision=precision) for _ in range(30)]
        assert losses[-1] < 0.5 * losses[0]
        assert all(p.dtype == torch.float32 for p in model.parameters())
        final[precision] = losses[-1]
    assert abs(final[torch.bfloat16] - final[torch.float32]) < 0.25 * final[torch.float32]


def test_each_torchrun_process_gets_its_own_gpu_or_a_clear_refusal():
    """On CUDA, process r takes GPU r; more processes than visible GPUs would share one and stop NCCL
    ("Duplicate GPU detected"), so they are refused with what to run instead. CPU processes all share the CPU."""
    cuda = torch.device("cuda")
    assert replica_device(cuda, 0, 1) == torch.device("cuda", 0)
    assert replica_device(cuda, 3, 4) == torch.device("cuda", 3)
    with pytest.raises(ValueError, match="--nproc_per_node 1, or --device cpu"):
        replica_device(cuda, 1, 1)
    assert replica_device(torch.device("cpu"), 5, 0) == torch.device("cpu")


def test_bfloat16_is_native_only_on_a_cpu_with_avx512_bf16_or_amx(monkeypatch):
    for avx512_bf16, amx, native in ((False, False, False), (True, False, True), (False, True, True)):
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda v=avx512_bf16: v)
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda v=amx: v)
        assert native_bfloat16(torch.device("cpu")) is native


LEAVING = """
import gc, sys, weakref
import torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from models.network.learning.step import Replicas, leave_replicas

dist.init_process_group("gloo", init_method="file://" + sys.argv[1], rank=0, world_size=1)
gc.disable()  # as if the collector had not run since the wrapper was dropped

def fit():
    wrapper = DistributedDataParallel(torch.nn.Linear(3, 3))
    wrapper(torch.randn(2, 3)).sum().backward()
    return weakref.ref(wrapper)

wrapper = fit()
alive = wrapper() is not None
leave_replicas(Replicas(rank=0, world=2))  # leaving acts only for more than one process
print(alive, wrapper() is None, dist.is_initialized())
"""


def test_leaving_frees_the_ddp_wrapper_before_the_group_goes(tmp_path):
    """In a fresh process the wrapper a training function made and dropped is still held by reference cycles;
    left to the interpreter's shutdown, its gloo group aborted the process. Leaving frees it, then the group."""
    done = subprocess.run([sys.executable, "-c", LEAVING, str(tmp_path / "store")], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "True", "False"]  # held before; freed, and the group gone, after
