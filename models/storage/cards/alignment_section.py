"""The model card's section on human word alignments: AER by matrix, reading and rule (``alignment.json``, written
by ``python -m models.align --save``), and the reading and rule the model aligns with (chosen on the trial set)."""
from __future__ import annotations

import json
from pathlib import Path

from ...network.architectures import check_config
from ...nouns.attention_map import Kind, Reading
from ...nouns.matrix import ATTENTION, Matrix
from ..records.alignment_rows import default_reading, recorded, trial_best


def _cross_shape(directory: str | Path) -> tuple[int, int]:
    """``(L, heads)`` of the cross-attention of the checkpoint in ``directory``, (0, 0) without, from its config (a
    decoder-only model's, in its family's format: its one stack's layers and query heads)."""
    raw = json.loads((Path(directory) / "config.json").read_text(encoding="utf-8"))
    if "model_type" in raw:
        return raw["num_hidden_layers"], raw["num_attention_heads"]
    return check_config(raw).attention_shapes.get(Kind.CROSS, (0, 0))


def alignment_table(directory: str | Path, matrix: Matrix = ATTENTION) -> str:
    """AER by matrix and rule on the human-aligned gold (``alignment.json``, written by ``models.align --save``),
    after the reading of ``matrix`` (the model's own) it aligns with."""
    results = [r for r in recorded(directory) if not r.chosen_on_trial]  # --matrix all rows: matrix_scores
    if not results:
        return "Not measured yet: run `python -m models.align --save`."
    rnn = _cross_shape(directory) == (1, 1)  # one head: its readings need no name
    rows = [f"| {r.matrix.name}{reading_name(r.reading, rnn)} | {r.method} | {r.split} | "
            f"{r.aer:.1f} | {r.precision:.1f} | {r.recall:.1f} |" for r in results]
    commands = "\n".join(dict.fromkeys(f"    {r.command}" for r in results if r.command))
    return (_chosen_reading(directory, matrix)
            + "| links from | read as | split | AER % | precision % | recall % |\n|---|---|---|---|---|---|\n"
            + "\n".join(rows) + f"\n\n{commands}")


def reading_name(key: str | None, rnn: bool) -> str:
    """How a result's reading shows beside its matrix: an RNN's one head needs no name, only its shift."""
    if not key:
        return ""
    if rnn:
        return ", one step later" if Reading.from_key(key).shifted else ""
    return " " + key


def _chosen_reading(directory: str | Path, matrix: Matrix) -> str:
    """The reading and rule the model aligns with under ``matrix``, and why (readings are ``LAYER.HEAD``,
    1-based)."""
    shape = _cross_shape(directory)
    if shape == (0, 0):
        return ""
    reading, best = default_reading(directory, shape, matrix=matrix), trial_best(directory, shape, matrix)
    if best is None:
        return (f"Read as **{reading.label}** (`{reading.key}`): no reading scored on the trial set yet.\n\n"
                if shape != (1, 1) else "")
    label = reading.label if shape != (1, 1) else "its attention" + (", read one step later" * reading.shifted)
    label += f" in the {matrix.name}" * matrix.full_context
    return (f"Aligned with **{label}** (`{reading.key}`), links read by **{best.method}**: the lowest "
            f"AER on the trial set ({best.aer:.1f}) of every reading and rule scored there.\n\n")
