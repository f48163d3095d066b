"""The corpus table's column names: one grammar, built and read here only.

A model's statistic is named ``"{model} {stat}"`` — ``"Additive (Bahdanau) BLEU"``, ``"additive translation"`` —
with ``stat`` one of :data:`MODEL_STATS`; the sentence's own columns (:data:`SENTENCE`) and the two models'
(:data:`PAIR_STATS`) are bare names. A model's name may hold spaces, so a name is read against the models' names.
"""
from __future__ import annotations

from collections.abc import Sequence

#: The per-model statistics, in table order, with what each means (the page's column help says it).
STATS = {
    "BLEU": "sentence BLEU against the references (sacreBLEU, effective order)",
    "chrF": "sentence chrF against the references",
    "entropy": "mean entropy of each written word's attention, bits",
    "coverage": "share of source words attended, each counting up to once: mean of min(1, Σ_t α_ts)",
    "monotonicity": "share of written words whose most-attended source word lies right of the previous one's",
    "AER": "alignment error rate of the attention against people's links, % (human-aligned sets only)",
}
#: Between two models, on the first one's translation forced through both.
JSD, AGREEMENT = "JSD", "agreement"
PAIR_STATS = {JSD: "Jensen–Shannon divergence of the two attentions per word, averaged, bits",
              AGREEMENT: "share of words where both look hardest at the same source word"}
MODEL_STATS = ("translation", *STATS)  # what a model's columns hold
SENTENCE = ("#", "source", "reference", "words")  # the sentence's own columns


def column(model: str, stat: str) -> str:
    """The column of ``model``'s ``stat``."""
    if stat not in MODEL_STATS:
        raise ValueError(f"unknown statistic {stat!r}; a model's columns hold {MODEL_STATS}")
    return f"{model} {stat}"


def parse(name: str, models: Sequence[str]) -> tuple[str | None, str]:
    """``(model, stat)`` of a column of these models' table, ``(None, name)`` for the sentence's and the pair's."""
    for model in sorted(models, key=len, reverse=True):  # "a b" before "a", were one name the other's start
        stat = name.removeprefix(f"{model} ")
        if stat != name and stat in MODEL_STATS:
            return model, stat
    return None, name


def order(columns: Sequence[str], models: Sequence[str]) -> list[str]:
    """The columns as a table shows them: the sentence and the disagreement first, then each model's translation,
    then its statistics, the reference last."""
    first = ["#", "source", *PAIR_STATS, *(column(m, "translation") for m in models)]
    stats = [column(m, s) for m in models for s in STATS]
    return [c for c in [*first, *stats, "words", "reference"] if c in columns]
