"""One teacher-forced training step — the same for the training CLI, the benchmark and the tests — and the few
collective operations that let ``torchrun --nproc_per_node N -m models.train …`` run it on N processes
(DistributedDataParallel averages the gradients; these helpers shard the batches and keep decisions in step).
"""
from __future__ import annotations

import gc
import os
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch.distributed as dist
from torch import Tensor, nn

from ..tokenization import PAD_ID
from .guided import GuidedAlignment

#: Adam's starting learning rate unless ``--lr`` says otherwise. Measured on the Multi30k + Tatoeba mix: at 2e-3
#: the dot-product model saturated its attention within the first epochs (an unbounded score of two learned
#: projections, one-hot weights, no gradient through the softmax) and the additive model's validation BLEU rose
#: most after the rate was halved; at 1e-3 the dot-product model passed the additive one's 7 epochs in 2.5.
DEFAULT_LR = 1e-3

#: What ``--precision`` may name: the dtype of the forward's matrix products.
PRECISIONS = {"float32": torch.float32, "bfloat16": torch.bfloat16}


Batch = tuple[Tensor, Tensor, Tensor, Tensor]  # src [B, S], src_mask [B, S], tgt_in [B, T], tgt_out [B, T]


def loss_function(label_smoothing: float = 0.0) -> nn.CrossEntropyLoss:
    """Cross-entropy over target pieces, padding ignored."""
    return nn.CrossEntropyLoss(ignore_index=PAD_ID, label_smoothing=label_smoothing)


def train_step(
    model: nn.Module,
    batch: Batch,
    optimizer: torch.optim.Optimizer,
    loss_fn: nn.Module,
    forward: Callable[[Tensor, Tensor, Tensor, Tensor], Tensor] | None = None,
    max_grad_norm: float = 1.0,
    precision: torch.dtype = torch.float32,
    guide: GuidedAlignment | None = None,
    links: Tensor | None = None,
) -> float:
    """Forward, loss, backward, clipped update; returns the batch loss.

    ``forward(src, mask, tgt_in, keep) -> logits [N, V]`` of the ``keep`` [B, T] positions
    (the real target pieces) defaults to the model's own (the benchmark passes a step-by-step reference).
    ``precision=torch.bfloat16`` runs the forward's matrix products under autocast (weights, gradients,
    the softmax and the loss stay float32: a bfloat16 loss over 8,000 classes does not learn).
    With ``guide``, its head's alignment loss against ``links`` [B, T, S] (:func:`.guided.link_targets`) is added.
    """
    src, mask, tgt_in, tgt_out = batch
    keep = tgt_out != PAD_ID  # [B, T]
    with torch.autocast(src.device.type, dtype=precision, enabled=precision != torch.float32):
        if guide is None:
            logits = (forward or model)(src, mask, tgt_in, keep)  # [N, V]
        else:
            logits, attention = model(src, mask, tgt_in, keep, watch=guide.layer, full_context=guide.full_context)
    loss = loss_fn(logits.float(), tgt_out[keep])  # over the N real pieces
    if guide is not None:
        loss = loss + guide.weight * guide.loss(attention, links)
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
    optimizer.step()
    return loss.item()


@dataclass(frozen=True)
class Replicas:
    """This process among ``torchrun``'s (a plain ``python -m models.train`` is rank 0 of 1)."""

    rank: int = 0
    world: int = 1

    @property
    def main(self) -> bool:
        """The one process that validates, writes checkpoints and prints."""
        return self.rank == 0


def replica_device(device: torch.device, local_rank: int, visible_gpus: int) -> torch.device:
    """The device of torchrun's process ``local_rank`` on this node: its own GPU on CUDA (NCCL stops on two
    processes sharing one: "Duplicate GPU detected"), the CPU otherwise. ValueError, with what to run instead,
    when more processes than visible GPUs were asked for."""
    if device.type != "cuda":
        return device
    if local_rank >= visible_gpus:
        raise ValueError(f"torchrun started more processes on this node than it has GPUs ({visible_gpus} visible): "
                         f"use --nproc_per_node {visible_gpus}, or --device cpu to train on CPU processes")
    return torch.device("cuda", local_rank)


def join_replicas(device: torch.device) -> Replicas:
    """Join torchrun's process group when launched by it: gloo on CPU, nccl on CUDA."""
    if int(os.environ.get("WORLD_SIZE", "1")) == 1:
        return Replicas()
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    return Replicas(dist.get_rank(), dist.get_world_size())


def leave_replicas(replicas: Replicas) -> None:
    """Leave torchrun's process group while Python is still fully alive.

    A ``DistributedDataParallel`` wrapper outlives the function that made it: it sits in reference cycles, which
    only the garbage collector frees. Left to the interpreter's shutdown, its gloo group's worker threads were
    destroyed after Python had gone and aborted the process ("terminate called without an active exception") in
    about 6 % of two-process runs; collecting the cycles first releases the group before it is destroyed.
    """
    if replicas.world > 1:
        gc.collect()
        dist.destroy_process_group()


def shard(items: list, replicas: Replicas) -> list:
    """Every ``world``-th item from ``rank`` on, the same count on every rank (DDP steps in lockstep)."""
    usable = len(items) - len(items) % replicas.world
    return items[replicas.rank : usable : replicas.world]


def from_main(value, replicas: Replicas):
    """The main process's ``value`` on every process (other processes pass anything, e.g. None)."""
    if replicas.world == 1:
        return value
    box = [value]
    dist.broadcast_object_list(box, src=0)
    return box[0]


def largest(value: float, replicas: Replicas) -> float:
    """The largest of every process's ``value``, on every process (e.g. the run's clock, so all share a schedule)."""
    if replicas.world == 1:
        return value
    t = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    return t.item()


def replicas_agree(model: nn.Module, replicas: Replicas) -> bool:
    """Whether every process holds the same weights (they must, if gradients were synchronised)."""
    if replicas.world == 1:
        return True
    flat = torch.cat([p.detach().float().flatten().cpu() for p in model.parameters()])
    mine = torch.tensor([flat.sum().item(), flat.square().sum().item(), flat[::97].sum().item()], dtype=torch.float64)
    everyone = [torch.zeros_like(mine) for _ in range(replicas.world)]
    dist.all_gather(everyone, mine)
    return all(torch.equal(everyone[0], other) for other in everyone[1:])
