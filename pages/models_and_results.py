"""Models & results: the bundled translators, their measured scores, BLEU against sentence length."""
import altair as alt
import pandas as pd
import streamlit as st

from models.network.attention import SCORES
from models.storage.card import (
    best_validation,
    bucket_label,
    load_records,
    quality_per_minute,
    results_rows,
    scored_set_name,
    scored_sets,
    training_data,
    training_summary,
)
from models.storage.hub import bundled_models, resolve
from pages._shared import ui

st.title("Models & results")
st.caption("Every number below is read from the evaluation files written by `python -m models.evaluate`.")

rows, lengths, curves = [], [], []
for name in bundled_models():
    try:
        training, evaluation = load_records(resolve(name))
    except (OSError, ValueError) as e:
        st.warning(f"{name}: no training record ({e}).")
        continue
    with st.expander(f"{ui.model_name(name)} — {training['parameters']:,} parameters", expanded=True):
        st.markdown(f"Score: {SCORES[training['score']].description}.  \n"
                    f"Trained on {training_data(training)}, for {training_summary(training)}; "
                    f"best validation BLEU {best_validation(training)}.")
        st.code("\n".join(training["commands"]), language="bash")
        curves += [{"model": ui.model_name(name), **point} for point in quality_per_minute(training)]
        if evaluation is None:
            st.info("Not evaluated yet.")
            continue
        st.code(evaluation["command"], language="bash")
    rows += [{"model": ui.model_name(name), **row} for row in results_rows(evaluation)]
    lengths += [{"model": ui.model_name(name), "test set": scored_set_name(test), "source words": bucket_label(b),
                 "first": b["min_words"], "BLEU": b["greedy_bleu"], "sentences": b["sentences"]}
                for test in scored_sets(evaluation) for b in test["by_length"]]

if rows:
    st.subheader("Test results, English→French")
    st.dataframe(pd.DataFrame(rows).style.format(precision=1), hide_index=True)
    st.subheader("BLEU against sentence length")
    st.caption("After Bahdanau et al. (2015), Figure 2: without attention, quality falls as sentences get longer.")
    for test, points in pd.DataFrame(lengths).groupby("test set", sort=False):
        st.altair_chart(
            alt.Chart(points, title=test).mark_line(point=True).encode(
                x=alt.X("source words:N", sort=alt.EncodingSortField("first"), title="source sentence length (words)"),
                y=alt.Y("BLEU:Q", title="BLEU (greedy)"), color="model:N",
                tooltip=["model", "source words", "sentences", alt.Tooltip("BLEU:Q", format=".1f")],
            ).properties(height=340), width="stretch", key=f"lengths_{test}",
        )

if curves:
    st.subheader("What the training minutes bought")
    st.caption("Validation BLEU (greedy, cased) at every validation point of each model's training run, against "
               "the minutes it had trained; the checkpoint is the point with the best mean.")
    st.altair_chart(
        alt.Chart(pd.DataFrame(curves)).mark_line(point=True).encode(
            x=alt.X("minutes:Q", title="training minutes"), y=alt.Y("BLEU:Q", title="validation BLEU"),
            color="model:N", strokeDash=alt.StrokeDash("validation set:N", title="validation set"),
            tooltip=["model", "validation set", "step", alt.Tooltip("minutes:Q", format=".0f"),
                     alt.Tooltip("BLEU:Q", format=".1f")],
        ).properties(height=340), width="stretch", key="quality_per_minute",
    )

st.subheader("Load your own model")
st.markdown("""
Train one with `python -m models.train --data DIR --score additive --out my-model --push-to-hub you/my-model`
(or upload a folder written by it), then choose **Hugging Face Hub repo…** in the sidebar and type `you/my-model`.
A checkpoint holds `config.json`, `model.safetensors`, `source_tokenizer.json`, `target_tokenizer.json` and a
model card; weights are read with safetensors only, never unpickled. Set `HF_TOKEN` for private repos.
""")
