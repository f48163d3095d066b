"""Model cards (``README.md`` with Hub metadata) built from measured records.

The card of a checkpoint directory is rendered from ``training.json`` (written
by :mod:`models.train`) and, when present, ``evaluation.json`` (written by
:mod:`models.evaluate`): every number in it comes from those files.
"""
from __future__ import annotations

import json
from pathlib import Path

from huggingface_hub import EvalResult, ModelCardData

from ..network.attention import SCORES
from ..network.seq2seq import ModelConfig
from ..network.training import DEFAULT_LR

LENGTH_BUCKETS = ((1, 9), (10, 14), (15, 19), (20, 24), (25, 1000))  # source words, inclusive; 1000 = open end
CORPORA = {  # folder name -> what it is and whom to credit
    "multi30k": "Multi30k (English–French image descriptions; Elliott et al. 2016, 2017)",
    "tatoeba-en-fr": "Tatoeba English–French (everyday sentences; CC-BY 2.0 FR: www.manythings.org/anki and tatoeba.org)",
}


def corpora(training: dict) -> list[dict]:
    """The training corpora of ``training.json``; records from before several corpora trained on Multi30k alone."""
    return training.get("data") or [{"name": "multi30k", "train_split": "train", "train_pairs": 29000, "weight": 1.0}]


def scored_sets(evaluation: dict) -> list[dict]:
    """The test sets of ``evaluation.json``; a file from before several test sets held one Multi30k set."""
    return evaluation["test_sets"] if "test_sets" in evaluation else [{"data": "multi30k", **evaluation}]


def scored_set_name(test: dict) -> str:
    return f"{CORPORA.get(test['data'], test['data']).split(' (')[0]} {test['split']}"


def _metadata(training: dict, evaluation: dict | None) -> ModelCardData:
    results = [
        EvalResult(task_type="translation", dataset_type=test["data"], dataset_name=scored_set_name(test),
                   dataset_split=test["split"], metric_type=key.split("_")[0], metric_name=name,
                   metric_value=round(test["greedy"][key], 2))
        for test in (scored_sets(evaluation) if evaluation else [])
        for key, name in (("bleu", "BLEU"), ("bleu_lc", "BLEU (lowercased)"), ("chrf", "chrF"))
    ]
    return ModelCardData(
        language=training["languages"], license="mit", library_name="attention-atlas",
        tags=["translation", "attention", "seq2seq", "gru", training["score"]],
        datasets=[d["name"] for d in corpora(training)], metrics=["bleu", "chrf"],
        pipeline_tag="translation",
        model_name=f"attention-atlas en-fr {training['score']}", eval_results=results or None,
    )


def results_rows(evaluation: dict) -> list[dict]:
    """One row per test set and decoding of ``evaluation.json``: the card's table and the Models page's."""
    return [{"test set": scored_set_name(test), "decoding": mode if mode == "greedy" else f"beam {evaluation['beam_size']}",
             "BLEU": test[mode]["bleu"], "BLEU (lowercased)": test[mode]["bleu_lc"], "chrF": test[mode]["chrf"]}
            for test in scored_sets(evaluation) for mode in ("greedy", "beam") if mode in test]


def bucket_label(bucket: dict) -> str:
    """'10–14', or '25+' for the open-ended last bucket of ``evaluation.json``'s ``by_length``."""
    open_end = bucket["max_words"] >= LENGTH_BUCKETS[-1][1]
    return f"{bucket['min_words']}+" if open_end else f"{bucket['min_words']}–{bucket['max_words']}"


def _results_table(evaluation: dict) -> str:
    rows = ["| test set | decoding | BLEU | BLEU (lowercased) | chrF |", "|---|---|---|---|---|"]
    rows += [f"| {r['test set']} | {r['decoding']} | {r['BLEU']:.1f} | {r['BLEU (lowercased)']:.1f} | {r['chrF']:.1f} |"
             for r in results_rows(evaluation)]
    sigs = "\n".join(f"- `{s}`" for s in dict.fromkeys(s for t in scored_sets(evaluation) for s in t["signatures"].values()))
    return "\n".join(rows) + f"\n\nsacreBLEU signatures:\n{sigs}\n\nMeasured with:\n\n    {evaluation['command']}\n"


def load_records(directory: str | Path) -> tuple[dict, dict | None]:
    """``training.json`` and, if the checkpoint was evaluated, ``evaluation.json``."""
    d = Path(directory)
    training = json.loads((d / "training.json").read_text(encoding="utf-8"))
    evaluation_file = d / "evaluation.json"
    evaluation = json.loads(evaluation_file.read_text(encoding="utf-8")) if evaluation_file.exists() else None
    return training, evaluation


def training_data(training: dict) -> str:
    """The corpora of ``training.json``, credited."""
    return "; ".join(f"{CORPORA.get(d['name'], d['name'])}, {d['train_split']} split, {d['train_pairs']:,} pairs"
                     + (f", sampling weight {d['weight']:g}" if d["weight"] != 1 else "") for d in corpora(training))


def training_summary(training: dict) -> str:
    """'7 epochs (the last partial) in 118.3 min on cpu (2 thread(s))': for the card and the Models page."""
    runs = len(training["commands"])
    threads = f"{training['threads']} thread(s)"
    if runs > 1:
        threads = f"{runs} invocations, the last with {threads}"
    partial = " (the last partial)" if training["history"] and training["history"][-1].get("partial") else ""
    return (f"{training['epochs']} epochs{partial} in {training['wall_clock_s'] / 60:.1f} min on {training['device']} "
            f"({threads})")


def best_validation(training: dict) -> str:
    """'38.1 (epoch 6; multi30k 45.0, tatoeba-en-fr 31.2)': the chosen epoch's validation BLEU, by corpus if several."""
    best = max(training["history"], key=lambda r: r["val_bleu"])
    where = f"epoch {best['epoch']}"
    by_corpus = best.get("by_corpus", {})
    if len(by_corpus) > 1:
        where += "; " + ", ".join(f"{name} {v['val_bleu']:.1f}" for name, v in by_corpus.items())
    return f"{best['val_bleu']:.1f} ({where})"


def learning_rate(training: dict) -> str:
    """The first epoch's learning rate, and whether it is the training CLI's default."""
    start = training["history"][0]["lr"]
    default = "the default" if start == DEFAULT_LR else f"not the default {DEFAULT_LR:g}"
    return (f"Adam from learning rate {start:g} ({default}), halved whenever validation BLEU stalls and after the "
            "epochs `--halve-lr-after` names")


def _files(directory: str | Path) -> str:
    """The optional files beside the weights, said plainly (the app's learning page and neighbours read them)."""
    d, notes = Path(directory), []
    if (d / "alignment_timeline.json").exists():
        notes.append("`alignment_timeline.json`: each curated example's greedy translation and attention after "
                     "every epoch")
    if (d / "neighbours.safetensors").exists():
        notes.append("`neighbours.safetensors`: decoder states of sampled training sentences, for nearest-neighbour "
                     "search (`python -m models.neighbours`)")
    return "".join(f"\n- {n}" for n in notes)


def _sizes(directory: str | Path) -> str:
    """The sizes line, from the checkpoint's ``config.json`` (the model's own config)."""
    c = ModelConfig(**json.loads((Path(directory) / "config.json").read_text(encoding="utf-8")))
    return (f"; embeddings {c.emb_dim}, encoder {c.enc_hidden} each way, decoder {c.dec_hidden}, "
            f"attention {c.attn_dim}, dropout {c.dropout}")


def render_card(directory: str | Path) -> str:
    training, evaluation = load_records(directory)
    commands = "\n".join("    " + c for c in training["commands"])
    body = f"""
# Attention Atlas — English→French, {training['score']}

A small RNN encoder–decoder (bidirectional GRU encoder, GRU decoder) after
Bahdanau, Cho & Bengio (2015), with {SCORES[training['score']].description}.
Made for looking at attention in the Attention Atlas app, not for production translation.

- Parameters: {training['parameters']:,}{_sizes(directory)}
- Training data: {training_data(training)}
- Training: {training_summary(training)};
  best validation BLEU {best_validation(training)}, greedy, cased, one reference
- Optimiser: {learning_rate(training)}
- Tokenisation: BPE (Hugging Face `tokenizers`), separate source and target vocabularies{_files(directory)}

Trained with (one line per invocation; a resumed run continues the one before it exactly):

{commands}

## Test results

{_results_table(evaluation) if evaluation else 'Not evaluated yet: run `python -m models.evaluate`.'}

## Use

```python
from models.storage.hub import load_model
from models.decoding.greedy import greedy
loaded = load_model("path/or/owner/repo")
print(greedy(loaded.model, loaded.tokenizers, "A dog runs on the beach.").translation)
```

## Limitations

Trained on {', '.join(d['name'] for d in corpora(training))} only: expect poor output outside that domain.
Attention weights show where the model looked, not a guaranteed explanation of why.
"""
    return f"---\n{_metadata(training, evaluation).to_yaml()}\n---\n{body}"


def write_card(directory: str | Path) -> None:
    (Path(directory) / "README.md").write_text(render_card(directory), encoding="utf-8")
