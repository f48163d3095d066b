"""Train an English→French translator on one or more Multi30k-style corpora.

    python -m models.train --data ../shared/data/multi30k --score additive --out my-model --epochs 10
    python -m models.train --data ../shared/data/multi30k:weight=2 ../shared/data/tatoeba-en-fr --minutes 150 …

The budget is whatever ends first of ``--epochs``, ``--steps`` and ``--minutes``; the learning rate warms up
for ``--warmup-steps`` and then falls to zero as the budget is spent (``--schedule``), so a run stopped by its
clock has annealed (:mod:`models.network.learning.schedule`). Each epoch mixes the corpora by their weights
(:func:`models.storage.data.mix`). At each epoch's end (or every ``--validate-every`` steps, for long epochs)
and when the budget is spent, the raw weights and their moving average are validated on each corpus's
validation split (teacher-forced loss, greedy sacreBLEU); the better is traced on the curated examples into
``--out/alignment_timeline.safetensors`` and, if its mean BLEU is the best so far, written as the checkpoint in
``--out``. Training state (weights, average, Adam moments, schedule, random generators) is kept in
``--out/train_state``, so ``--resume`` continues an interrupted run exactly from its last validation point.
Deterministic on CPU for a given ``--seed``.
"""
from .cli import main
from .state import STATE_DIR

__all__ = ["STATE_DIR", "main"]
