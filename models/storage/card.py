"""Model cards (``README.md`` with Hub metadata) built from measured records.

The card of a checkpoint directory is rendered from ``training.json`` (written
by :mod:`models.train`) and, when present, ``evaluation.json`` (written by
:mod:`models.evaluate`): every number in it comes from those files.
"""
from __future__ import annotations

import json
from pathlib import Path

from huggingface_hub import EvalResult, ModelCardData

SCORE_NAMES = {
    "additive": "additive (Bahdanau) attention, e = vᵀ tanh(W_q q + W_k k)",
    "dot": "scaled dot-product attention over the same projections, e = (W_q q)·(W_k k)/√A",
    "general": "Luong 'general' attention, e = qᵀ W k",
    "plain_dot": "plain dot-product attention, e = qᵀ k",
    "none": "no attention (the RNNencdec baseline: a fixed summary of the source)",
}


def _metadata(training: dict, evaluation: dict | None) -> ModelCardData:
    results = []
    if evaluation:
        for key, name in (("bleu", "BLEU"), ("bleu_lc", "BLEU (lowercased)"), ("chrf", "chrF")):
            results.append(
                EvalResult(
                    task_type="translation", dataset_type="multi30k", dataset_name="Multi30k test_2016_flickr",
                    dataset_split=evaluation["split"], metric_type=key.split("_")[0], metric_name=name,
                    metric_value=round(evaluation["greedy"][key], 2),
                )
            )
    return ModelCardData(
        language=training["languages"], license="mit", library_name="attention-atlas",
        tags=["translation", "attention", "seq2seq", "gru", training["score"]],
        datasets=["multi30k"], metrics=["bleu", "chrf"], pipeline_tag="translation",
        model_name=f"attention-atlas en-fr {training['score']}", eval_results=results or None,
    )


def _results_table(evaluation: dict) -> str:
    rows = ["| decoding | BLEU | BLEU (lowercased) | chrF |", "|---|---|---|---|"]
    for mode in ("greedy", "beam"):
        if mode in evaluation:
            r = evaluation[mode]
            label = mode if mode == "greedy" else f"beam {evaluation['beam_size']}"
            rows.append(f"| {label} | {r['bleu']:.1f} | {r['bleu_lc']:.1f} | {r['chrf']:.1f} |")
    sigs = "\n".join(f"- `{s}`" for s in evaluation["signatures"].values())
    return "\n".join(rows) + f"\n\nsacreBLEU signatures:\n{sigs}\n\nMeasured with:\n\n    {evaluation['command']}\n"


def load_records(directory: str | Path) -> tuple[dict, dict | None]:
    """``training.json`` and, if the checkpoint was evaluated, ``evaluation.json``."""
    d = Path(directory)
    training = json.loads((d / "training.json").read_text(encoding="utf-8"))
    evaluation_file = d / "evaluation.json"
    evaluation = json.loads(evaluation_file.read_text(encoding="utf-8")) if evaluation_file.exists() else None
    return training, evaluation


def training_summary(training: dict) -> str:
    """'16 epochs in 68.8 min on cpu (1 thread(s))': for the card and the Models page."""
    runs = len(training["commands"])
    threads = f"{training['threads']} thread(s)"
    if runs > 1:
        threads = f"{runs} invocations, the last with {threads}"
    return f"{training['epochs']} epochs in {training['wall_clock_s'] / 60:.1f} min on {training['device']} ({threads})"


def render_card(directory: str | Path) -> str:
    training, evaluation = load_records(directory)
    commands = "\n".join("    " + c for c in training["commands"])
    body = f"""
# Attention Atlas — English→French, {training['score']}

A small RNN encoder–decoder (bidirectional GRU encoder, GRU decoder) after
Bahdanau, Cho & Bengio (2015), with {SCORE_NAMES[training['score']]}.
Made for looking at attention in the Attention Atlas app, not for production translation.

- Parameters: {training['parameters']:,}
- Training data: Multi30k train (29,000 English–French image descriptions; Elliott et al. 2016, 2017)
- Training: {training_summary(training)};
  best validation BLEU {training['best_val_bleu']:.1f}
- Tokenisation: BPE (Hugging Face `tokenizers`), separate source and target vocabularies

Trained with (one line per invocation; a resumed run continues the one before it exactly):

{commands}

## Test results (Multi30k test_2016_flickr)

{_results_table(evaluation) if evaluation else 'Not evaluated yet: run `python -m models.evaluate`.'}

## Use

```python
from models.storage.hub import load_model
from models.decoding.greedy import greedy
loaded = load_model("path/or/owner/repo")
print(greedy(loaded.model, loaded.tokenizers, "A dog runs on the beach.").translation)
```

## Limitations

Trained on short image captions only: expect poor output outside that domain.
Attention weights show where the model looked, not a guaranteed explanation of why.
"""
    return f"---\n{_metadata(training, evaluation).to_yaml()}\n---\n{body}"


def write_card(directory: str | Path) -> None:
    (Path(directory) / "README.md").write_text(render_card(directory), encoding="utf-8")
