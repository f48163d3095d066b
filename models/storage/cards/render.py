"""Model cards (``README.md`` with Hub metadata) built from measured records.

The card of a checkpoint directory is rendered from ``training.json`` (written
by :mod:`models.train`) and, when present, ``evaluation.json`` (written by
:mod:`models.evaluate`): every number in it comes from those files.
"""
from __future__ import annotations

import json
from pathlib import Path

from huggingface_hub import EvalResult, ModelCardData

from ...network.family import Family, family, variant_of
from ...nouns.attention_map import Reading
from ...nouns.matrix import ATTENTION, FULL_CONTEXT, Matrix
from ..examples import examples_file, first_example, load_examples
from ..languages import language_key, language_name, pair_name
from ..records.evaluation import EvaluationRecord, TestScores, read_evaluation
from ..records.head_scores import heads_table
from ..records.matrix_scores import matrix_table
from ..records.timeline import timeline_file
from ..records.training import (
    TrainingRecord,
    best_validation,
    kept_weights,
    learning_rate,
    read_training,
    training_summary,
    validation_table,
)
from .alignment_section import alignment_table

LENGTH_BUCKETS = ((1, 9), (10, 14), (15, 19), (20, 24), (25, 1000))  # source words, inclusive; 1000 = open end
CORPORA = {  # folder name -> what it is and whom to credit
    "multi30k": "Multi30k (English–French image descriptions; Elliott et al. 2016, 2017)",
    "tatoeba-en-fr": "Tatoeba English–French (everyday sentences; CC-BY 2.0 FR: www.manythings.org/anki and "
                     "tatoeba.org)",
    "hansard-en-fr": "Canadian Hansard English–French (parliamentary debates of the 36th Parliament; USC/ISI "
                     "release, Germann 2001)",
    "newstest-en-fr": "WMT newstest English–French (news; newstest2012 to validate, newstest2013 to test; "
                      "Callison-Burch et al. 2012, Bojar et al. 2013)",
}


def scored_set_name(test: TestScores) -> str:
    return f"{CORPORA.get(test.data, test.data).split(' (')[0]} {test.split}"


def _metadata(training: TrainingRecord, evaluation: EvaluationRecord | None) -> ModelCardData:
    results = [
        EvalResult(task_type="translation", dataset_type=test.data, dataset_name=scored_set_name(test),
                   dataset_split=test.split, metric_type=key.split("_")[0], metric_name=name,
                   metric_value=round(getattr(test.greedy, key), 2))
        for test in (evaluation.test_sets if evaluation else ())
        for key, name in (("bleu", "BLEU"), ("bleu_lc", "BLEU (lowercased)"), ("chrf", "chrF"))
    ]
    return ModelCardData(
        language=list(training.languages), license="mit", library_name="attention-atlas",
        tags=["translation", "attention", *_family(training).tags],
        datasets=[d.name for d in training.data], metrics=["bleu", "chrf"],
        pipeline_tag="translation",
        model_name=f"attention-atlas {'-'.join(training.languages)} {_family(training).variant}",
        eval_results=results or None,
    )


def results_rows(evaluation: EvaluationRecord) -> list[dict]:
    """One row per test set and decoding of ``evaluation.json``: the card's table and the Models page's."""
    return [{"test set": scored_set_name(test), "decoding": decoding, "BLEU": scores.bleu,
             "BLEU (lowercased)": scores.bleu_lc, "chrF": scores.chrf}
            for test in evaluation.test_sets
            for decoding, scores in (("greedy", test.greedy), (f"beam {test.beam_size}", test.beam)) if scores]


def bucket_label(min_words: int, max_words: int) -> str:
    """'10–14', or '25+' for the open-ended last bucket of a test set's BLEU by length."""
    return f"{min_words}+" if max_words >= LENGTH_BUCKETS[-1][1] else f"{min_words}–{max_words}"


def _results_table(evaluation: EvaluationRecord) -> str:
    rows = ["| test set | decoding | BLEU | BLEU (lowercased) | chrF |", "|---|---|---|---|---|"]
    rows += [f"| {r['test set']} | {r['decoding']} | {r['BLEU']:.1f} | {r['BLEU (lowercased)']:.1f} | {r['chrF']:.1f} |"
             for r in results_rows(evaluation)]
    signatures = dict.fromkeys(s for t in evaluation.test_sets for s in t.signatures.values())  # ordered set
    sigs = "\n".join(f"- `{s}`" for s in signatures)
    commands = "\n".join(f"    {c}" for c in evaluation.commands)
    return "\n".join(rows) + f"\n\nsacreBLEU signatures:\n{sigs}\n\nMeasured with:\n\n{commands}\n"


def load_records(directory: str | Path) -> tuple[TrainingRecord, EvaluationRecord | None]:
    """``training.json`` and, if the checkpoint was evaluated, ``evaluation.json``; ValueError without a training
    record or for one that is not a record of this version."""
    d = Path(directory)
    training = read_training(d)
    if training is None:
        raise ValueError(f"no training.json in {d.name}")
    return training, read_evaluation(d)


def training_data(training: TrainingRecord) -> str:
    """The corpora of ``training.json``, credited."""
    return "; ".join(f"{CORPORA.get(d.name, d.name)}, {d.train_split} split, {d.train_pairs:,} pairs"
                     + (f", sampling weight {d.weight:g}" if d.weight != 1 else "") for d in training.data)


def _vocabularies(directory: str | Path) -> str:
    d = Path(directory)
    if (d / "tokenizer.json").exists():
        return "one byte-level vocabulary shared by both languages, with a chat template of its own"
    if (d / "source_tokenizer.json").read_bytes() == (d / "target_tokenizer.json").read_bytes():
        return "one vocabulary shared by both languages"
    return "separate source and target vocabularies"


def _files(directory: str | Path) -> str:
    """The optional files beside the weights, said plainly (the app's learning page and neighbours read them)."""
    d, notes = Path(directory), []
    if timeline := timeline_file(d):
        notes.append(f"`{timeline.name}`: each curated example's greedy translation and attention at "
                     "every validation point")
    if (d / "neighbours.safetensors").exists():
        notes.append("`neighbours.safetensors`: decoder states of sampled training sentences, for nearest-neighbour "
                     "search (`python -m models.neighbours`)")
    return "".join(f"\n- {n}" for n in notes)


def _family(training: TrainingRecord) -> Family:
    """The family of the model ``training`` trained."""
    return family(variant_of(training.architecture, training.score))


def model_description(training: TrainingRecord) -> str:
    """The sentence that says what the model is."""
    return _family(training).description


def _sizes(directory: str | Path) -> str:
    """The sizes line, from the checkpoint's ``config.json`` (the model's own config, or its family's)."""
    c = json.loads((Path(directory) / "config.json").read_text(encoding="utf-8"))
    if "model_type" in c:
        return (f"; {c['num_hidden_layers']} layers, d_model {c['hidden_size']}, {c['num_attention_heads']} query "
                f"heads over {c['num_key_value_heads']} key–value heads, feed-forward {c['intermediate_size']}, "
                f"attention dropout {c['attention_dropout']}")
    if c.get("architecture") == "transformer":
        return (f"; {c['enc_layers']} encoder and {c['dec_layers']} decoder layers, d_model {c['d_model']}, "
                f"{c['heads']} heads, feed-forward {c['ffn_dim']}, dropout {c['dropout']}")
    attention = "no attention" if c["score"] == "none" else f"attention {c['attn_dim']}"  # none never uses A
    return (f"; embeddings {c['emb_dim']}, encoder {c['enc_hidden']} each way, decoder {c['dec_hidden']}, "
            f"{attention}, dropout {c['dropout']}")


def aligning_matrix(training: TrainingRecord) -> Matrix:
    """The matrix the model aligns with by default, from its training record: as its card will say
    (:attr:`.model_card.CardFacts.aligning_matrix`)."""
    return FULL_CONTEXT if training.guided_alignment and training.guided_alignment.full_context else ATTENTION


def _guided(training: TrainingRecord) -> str:
    """The line that marks the head guided alignment trained (read back by :mod:`.model_card`), if one was."""
    g = training.guided_alignment
    if not g:
        return ""
    reading = Reading.from_key(g.reading)
    step = "that reads each piece as its input" if reading.shifted else "that writes each piece"
    whole = ", with the whole translation in view" if g.full_context else ""
    where = " in a pass with the decoder's future mask lifted" if whole else ""
    return (f"\n- Trained to align: cross-attention {reading.label}{whole} (guided alignment, Garg et al. 2019: its "
            f"attention at the step {step}{where} pulled toward word links, loss weight {g.weight:g}; links from "
            f"{g.links}, made in {g.links_seconds / 60:.0f} min)")


def render_card(directory: str | Path) -> str:
    """The model card of the checkpoint in ``directory``, from its records: Hub metadata, then its sections."""
    training, evaluation = load_records(directory)
    body = "\n".join((_about(training, directory), _measured(training, evaluation, directory),
                      _heads_section(training, directory), _use(training)))
    return f"---\n{_metadata(training, evaluation).to_yaml()}\n---\n{body}"


def _about(training: TrainingRecord, directory: str | Path) -> str:
    """What the model is, what it was trained on and how, with the commands that trained it."""
    commands = "\n".join("    " + c for c in training.commands)
    return f"""
# Attention Atlas — {pair_name(training.languages)}, {_family(training).variant}

{model_description(training)}
Made for looking at attention in the Attention Atlas app, not for production translation.

- Parameters: {training.parameters:,}{_sizes(directory)}
- Training data: {training_data(training)}
- Training: {training_summary(training)};
  {training.kept or "best"} validation BLEU {best_validation(training)}, greedy, cased, one reference
- Optimiser: {learning_rate(training)}
- Weights: {kept_weights(training)}
- Tokenisation: BPE (Hugging Face `tokenizers`), {_vocabularies(directory)}{_guided(training)}{_files(directory)}

Trained with (one line per invocation; a resumed run continues the one before it exactly):

{commands}
"""


def _measured(training: TrainingRecord, evaluation: EvaluationRecord | None, directory: str | Path) -> str:
    """Its validation curve, test scores, alignment against people and the table of readings."""
    target = language_name(training.languages[1], "target")
    return f"""## Validation during training

Greedy, cased BLEU on each corpus's validation split at every validation point, by training time (what the
compute bought); the checkpoint is the point with the {"last" if training.kept == "last" else "best mean"}.

{validation_table(training)}

## Test results

{_results_table(evaluation) if evaluation else 'Not evaluated yet: run `python -m models.evaluate`.'}

## Against human word alignments

Word links read from this model with the {target} side forced, scored on the English–French Hansards gold set
(Och & Ney 2000; Mihalcea & Pedersen 2003) by alignment error rate (lower is better):

{alignment_table(directory, aligning_matrix(training))}

## Which matrix to believe

Each matrix a step can be read as — the attention, what it adds (its norm, ALTI, value zeroing), a rollout through
the layers, a gradient attribution — scored against people (AER, as above: reading and rule chosen on the trial set)
and against the model itself (does the written word need the source words the matrix points at?):

{matrix_table(directory)}"""


def _use(training: TrainingRecord) -> str:
    """How to load it, and what not to expect of it."""
    example = first_example(load_examples(examples_file(language_key(training.languages[0]))) or
                            load_examples()).text
    return f"""## Use

```python
from models.storage.hub import load_model
from models.decoding.greedy import greedy
loaded = load_model("path/or/owner/repo")
print(greedy(loaded.model, loaded.tokenizers, {json.dumps(example, ensure_ascii=False)}).translation)
```

## Limitations

Trained on {', '.join(d.name for d in training.data)} only: expect poor output outside that domain.
Attention weights show where the model looked, not a guaranteed explanation of why: the table "Which matrix to
believe" measures how far each reading is one.
"""


def _heads_section(training: TrainingRecord, directory: str | Path) -> str:
    """A Transformer's heads: which matter (``heads.json``, written by ``python -m models.heads``)."""
    return f"\n## Which heads matter\n\n{heads_table(directory)}\n" if _family(training).several_heads else ""


def write_card(directory: str | Path) -> None:
    (Path(directory) / "README.md").write_text(render_card(directory), encoding="utf-8")
