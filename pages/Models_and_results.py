"""Models & results: the model in use when it is not bundled (a Hub translator, a folder), the bundled translators,
their measured scores, BLEU against sentence length."""
import pandas as pd
import streamlit as st

from models.analysis.faithfulness import DELETIONS
from models.analysis.lengths import ends, figure_2_finding
from models.storage.card import (
    bucket_label,
    load_records,
    model_description,
    results_rows,
    scored_set_name,
    scored_sets,
    training_data,
)
from models.storage.alignment_record import (
    BUNDLED_BASELINE,
    aer_by_head,
    alignment_commands,
    alignment_table,
    read_alignment,
    recorded,
)
from models.storage.head_record import importance_grid, read_heads
from models.storage.hub import bundled_models, resolve
from models.storage.languages import language_name
from models.storage.model_card import SUPERVISION
from models.storage.model_facts import model_facts
from models.storage.reading_scores import read_faithfulness, reading_scores
from models.storage.training_record import best_validation, quality_per_minute, training_summary
from pages._shared import charts, ui
from pages._shared.labels import for_markdown

st.title("Models & results")
st.caption("Every score below is read from the evaluation files written by `python -m models.evaluate`.")

settings, loaded = ui.model_or_fallback(ui.settings())
facts = model_facts(loaded, settings.model)
if not facts.bundled:  # a Hub translator or a folder: what it is, from the model and its card
    st.subheader(f"The model in use: {for_markdown(settings.model)}")
    (source, target), head = facts.languages, facts.supervised
    said = {"From": facts.origin, "What": facts.description,
            "Languages": f"{language_name(source, 'not said')} → {language_name(target, 'not said')}",
            "Parameters": f"{facts.parameters:,}", "Licence": facts.licence or "its card names none",
            "Trained to align": f"{head.label.capitalize()}. {SUPERVISION}" if head else
            "no head, as far as its card says"}
    st.markdown("\n".join(f"- **{name}:** {for_markdown(value)}" for name, value in said.items()))

rows, lengths, curves, alignment, heads, buckets, records = [], [], [], {}, {}, {}, []
for name in bundled_models():
    results = alignment[ui.model_name(name)] = recorded(resolve(name))
    for shifted in (False, True):  # each head read at the step writing each word, and one step later
        if (grid := aer_by_head(results, "test", shifted)) is not None:
            heads[name, shifted] = grid
    try:
        training, evaluation = load_records(resolve(name))
    except (OSError, ValueError) as e:
        st.warning(f"{name}: no training record ({e}).")
        continue
    records.append((name, training, evaluation))
    curves += [{"model": ui.model_name(name), **point} for point in quality_per_minute(training)]
    if evaluation is None:
        continue
    rows += [{"model": ui.model_name(name), **row} for row in results_rows(evaluation)]
    lengths += [{"model": ui.model_name(name), "test set": scored_set_name(test), "source words": bucket_label(b),
                 "first": b["min_words"], "BLEU": b["greedy_bleu"], "sentences": b["sentences"]}
                for test in scored_sets(evaluation) for b in test["by_length"]]
    for test in scored_sets(evaluation):
        buckets.setdefault(scored_set_name(test), {})[name] = test["by_length"]

if rows:
    st.subheader("Test results, English→French")
    st.dataframe(pd.DataFrame(rows).style.format(precision=1), hide_index=True)
for name, training, evaluation in records:  # below the table, folded: how each was made, with its commands
    with st.expander(f"How it was trained: {ui.model_name(name)} — {training['parameters']:,} parameters"):
        st.markdown(f"{model_description(training)}  \n"
                    f"Trained on {training_data(training)}, for {training_summary(training)}; "
                    f"best validation BLEU {best_validation(training)}.")
        st.code("\n".join(training["commands"]), language="bash")
        if evaluation is None:
            st.info("Not evaluated yet.")
        else:
            st.code(evaluation["command"], language="bash")
if rows:
    st.subheader("BLEU against sentence length")
    st.caption("After Bahdanau et al. (2015), Figure 2: without attention, quality falls as sentences get longer.")
    for test, points in pd.DataFrame(lengths).groupby("test set", sort=False):
        st.altair_chart(charts.bleu_by_length(points, test), width="stretch", key=f"lengths_{test}")
        found = buckets.get(test, {})
        attention = {ui.model_name(m): ends(found[m], bucket_label) for m in ("additive", "dot") if m in found}
        if "none" in found and attention:
            st.caption(figure_2_finding(ends(found["none"], bucket_label), attention))

if curves:
    st.subheader("What the training minutes bought")
    st.caption("Validation BLEU (greedy, cased) at every validation point of each model's training run, against "
               "the minutes it had trained; the checkpoint is the point with the best mean.")
    st.altair_chart(charts.quality_per_minute(pd.DataFrame(curves)), width="stretch", key="quality_per_minute")

baseline = read_alignment(BUNDLED_BASELINE)
if alignment or baseline:
    st.subheader("Is attention an alignment?")
    st.caption("Word links read from each model on the English–French Hansards gold set (447 sentence pairs aligned "
               "by people, Och & Ney 2000; Mihalcea & Pedersen 2003), the French side forced; the statistical "
               "aligner eflomal on the same sentences, and published single-direction figures. AER: lower is better.")
    st.dataframe(pd.DataFrame(alignment_table(alignment, baseline)).style.format(precision=1, na_rep=""),
                 hide_index=True, key="alignment")
    st.code("\n".join(alignment_commands(alignment, baseline)), language="bash")
believed = [{"model": ui.model_name(name), **score.table_row()} for name in bundled_models()
            for score in reading_scores(resolve(name))]
if believed:
    st.subheader("Which matrix to believe?")
    st.caption("Each matrix a step can be read as, scored two ways. Against people: AER on the Hansards gold test "
               "set, its reading and rule chosen on the trial set (`python -m models.align --matrix all`). Against "
               f"the model: mask the 1–{DELETIONS} source words it ranks highest and see how far the written word's "
               "log-probability falls (comprehensiveness, nats: higher is better), or keep only them (sufficiency: "
               "lower is better), at its best layer (`python -m models.faithfulness`); random is the floor. The "
               "Which reading? page does both for one sentence.")
    st.dataframe(pd.DataFrame(believed).style.format(precision=2, na_rep="—"), hide_index=True, key="believed")
    st.code("\n".join(dict.fromkeys(record.command for name in bundled_models()
                                    if (record := read_faithfulness(resolve(name))))), language="bash")
for (name, shifted), (layer_names, head_names, values) in heads.items():
    when = ", read one step later" if shifted else ""
    st.altair_chart(charts.aer_grid(layer_names, head_names, values, f"{ui.model_name(name)}: which head aligns"
                                    f"{when}? AER on the test set, each layer's heads and their mean"),
                    width="stretch", key=f"aer_heads_{name}{'_shifted' * shifted}")
    st.caption("Each cell: links read from one head's attention (or a layer's mean of heads), the lowest AER of the "
               "rules scored. The reading a model aligns with was chosen on the trial set only.")
for name in bundled_models():
    if (record := read_heads(resolve(name))) is not None:
        rows_, columns_, drops = importance_grid(record)
        st.altair_chart(charts.aer_grid(rows_, columns_, drops, f"{ui.model_name(name)}: which heads matter? "
                                        "Validation BLEU lost when a head alone is switched off", "BLEU drop",
                                        lower_is_better=False), width="stretch", key=f"head_importance_{name}")
        prune = record["pruning"]
        st.caption(f"Each cell: greedy BLEU on {record['sentences']} validation sentences with the whole model minus "
                   f"with that head's output zeroed (Michel et al. 2019). {prune['can_go']} of {prune['of']} heads "
                   f"can go, most unimportant first, before BLEU falls by {prune['budget']:g}. Beside the AER "
                   "grid above: do the heads that align matter?")

st.subheader("Load your own model")
st.markdown("""
Train one with `python -m models.train --data DIR --score additive --out my-model --push-to-hub you/my-model`
(or upload a folder written by it), then choose **Hugging Face Hub repo…** in the sidebar and type `you/my-model`.
A checkpoint holds `config.json`, `model.safetensors`, `source_tokenizer.json`, `target_tokenizer.json` and a
model card; weights are read with safetensors only, never unpickled. Set `HF_TOKEN` for private repos.
""")
