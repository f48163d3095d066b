"""A run's training state in ``--out/train_state``: enough to continue an interrupted run exactly.

Weights, Adam's moments, the weight average and the random generators' states are safetensors files (never
pickles); the step and epoch counters, the learning-rate scheduler's counters, the clock and the history are
``state.json``. The state is written at every validation point, so ``--resume`` continues from the last one,
inside an epoch if that is where it was.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, load_model, save_file, save_model
from torch import nn

STATE_DIR = "train_state"


def fresh_state() -> dict:
    """The counters of a run that has not started: completed epochs, batches done in the current one, steps."""
    return {"epoch": 0, "batch": 0, "step": 0, "elapsed_s": 0.0, "best_bleu": -1.0, "history": [], "commands": [],
            "first_step_s": [], "peak_memory_mib": 0.0}


def _random_states() -> dict[str, torch.Tensor]:
    states = {"cpu": torch.get_rng_state()}
    if torch.cuda.is_available():
        states["cuda"] = torch.cuda.get_rng_state()
    return states


def save_state(out: Path, model: nn.Module, optimizer, scheduler, average: nn.Module, state: dict) -> None:
    d = out / STATE_DIR
    d.mkdir(parents=True, exist_ok=True)
    save_model(model, d / "model.safetensors")  # a tensor tied to another (a tied embedding) is written once
    save_model(average, d / "average.safetensors")
    save_file(_random_states(), d / "random.safetensors")
    opt = optimizer.state_dict()
    tensors = {f"{i}.{k}": v for i, s in opt["state"].items() for k, v in s.items()}
    save_file(tensors, d / "optimizer.safetensors")
    schedule = {k: v for k, v in scheduler.state_dict().items() if k != "lr_lambdas"}  # the lambda is code
    (d / "state.json").write_text(json.dumps({**state, "param_groups": opt["param_groups"], "scheduler": schedule},
                                             indent=1))


def load_state(out: Path, model: nn.Module, optimizer, scheduler, average: nn.Module) -> dict:
    """Restore everything :func:`save_state` wrote; returns the counters and history."""
    d = out / STATE_DIR
    state = json.loads((d / "state.json").read_text())
    load_model(model, d / "model.safetensors", strict=True)
    load_model(average, d / "average.safetensors", strict=True)
    per_param: dict[int, dict] = {}
    for key, value in load_file(d / "optimizer.safetensors").items():
        i, name = key.split(".", 1)
        per_param.setdefault(int(i), {})[name] = value
    optimizer.load_state_dict({"state": per_param, "param_groups": state.pop("param_groups")})
    scheduler.load_state_dict({**state.pop("scheduler"), "lr_lambdas": [None]})
    randoms = load_file(d / "random.safetensors")
    torch.set_rng_state(randoms["cpu"])
    if "cuda" in randoms and torch.cuda.is_available():
        torch.cuda.set_rng_state(randoms["cuda"])
    return state
