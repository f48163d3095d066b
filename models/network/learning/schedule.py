"""How a training run spends its budget: the learning rate planned from it, and an average of the weights.

A run's budget is whatever ends first of a number of optimizer steps (``--steps``, or ``--epochs`` turned into
steps) and a wall-clock time (``--minutes``). Its *progress* p ∈ [0, 1] is the larger of the two fractions spent,
and the learning rate follows p down to zero, after a short linear warm-up:

    lr(step) = lr₀ · min(1, (step + 1) / warmup) · shape(p)

    shape(p) = 1 − p (linear),  ½(1 + cos πp) (cosine),  or min(1, (1 − p) / 0.2) (wsd: warm-up, stable, decay)

so a run stopped by its clock has annealed as surely as one stopped by its step count. "wsd" holds the peak
rate for the first 80 % of the budget and decays linearly over the last 20 % (Hägele et al. 2024, "Scaling Laws
and Compute-Optimal Training Beyond Fixed Training Durations"). The multiplier is a
:class:`torch.optim.lr_scheduler.LambdaLR`, whose state (the step count) is saved with the training state.

The exponential moving average of the weights (Polyak & Juditsky 1992; "EMA" in most training code) is kept by
:class:`torch.optim.swa_utils.AveragedModel`; its decay grows from 0 towards ``decay`` as (1 + n) / (10 + n) so
the early average follows the fast-moving weights instead of remembering the random initialisation.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.optim.lr_scheduler import LambdaLR
from torch.optim.swa_utils import AveragedModel

COOLDOWN = 0.2  # the share of the budget over which "wsd" decays

#: ``--schedule`` choices: the learning rate's multiplier as a function of progress p ∈ [0, 1].
SHAPES: dict[str, Callable[[float], float]] = {
    "linear": lambda p: 1.0 - p,
    "cosine": lambda p: 0.5 * (1.0 + math.cos(math.pi * p)),
    "wsd": lambda p: min(1.0, (1.0 - p) / COOLDOWN),
}


@dataclass(frozen=True)
class Budget:
    """What a run may spend: ``steps`` optimizer steps and ``seconds`` of wall-clock time (None: no limit)."""

    steps: int | None = None
    seconds: float | None = None

    def __post_init__(self):
        if self.steps is None and self.seconds is None:
            raise ValueError("a budget needs steps, seconds or both")

    def progress(self, step: int, elapsed_s: float) -> float:
        """The larger fraction spent, capped at 1."""
        fractions = [step / self.steps if self.steps else 0.0, elapsed_s / self.seconds if self.seconds else 0.0]
        return min(1.0, max(fractions))

    def spent(self, step: int, elapsed_s: float) -> bool:
        return self.progress(step, elapsed_s) >= 1.0


def lr_factor(step: int, progress: float, warmup_steps: int, shape: str) -> float:
    """The multiplier of the starting learning rate at ``step`` (0-based) and ``progress``."""
    warm = min(1.0, (step + 1) / warmup_steps) if warmup_steps > 0 else 1.0
    return warm * SHAPES[shape](progress)


def planned_schedule(optimizer: torch.optim.Optimizer, budget: Budget, shape: str, warmup_steps: int,
                     elapsed_s: Callable[[], float]) -> LambdaLR:
    """A LambdaLR whose rate reaches zero when ``budget`` is spent; ``elapsed_s()`` reads the run's clock."""
    return LambdaLR(optimizer, lambda step: lr_factor(step, budget.progress(step, elapsed_s()), warmup_steps, shape))


def averaged(model: nn.Module, decay: float) -> AveragedModel:
    """An exponential moving average of ``model``'s weights; call ``update_parameters(model)`` after each step."""

    def ema(averages: list[Tensor], currents: list[Tensor], n: Tensor) -> None:
        d = min(decay, (1.0 + float(n)) / (10.0 + float(n)))  # n: updates averaged so far
        for average, current in zip(averages, currents):
            average.lerp_(current, 1.0 - d)  # average += (1 − d)(current − average)

    return AveragedModel(model, multi_avg_fn=ema, use_buffers=True)
