"""Models & results: the model in use when it is not bundled (a Hub translator, a folder), the bundled translators,
their measured scores, BLEU against sentence length."""
import pandas as pd
import streamlit as st

from models.views import naming
from models.views import results as measured
from pages._shared import charts, ui
from pages._shared.labels import for_markdown

st.title("Models & results")
st.caption("Every score below is read from the evaluation files written by `python -m models.evaluate`.")

settings, loaded = ui.model_or_fallback(ui.settings())
said = measured.in_use(loaded)
if said is not None:  # a Hub translator or a folder: what it is, from the model and its card
    st.subheader(f"The model in use: {for_markdown(settings.model)}")
    st.markdown("\n".join(f"- **{name}:** {for_markdown(value)}" for name, value in said.items()))

results = measured.bundled_results()
rows = [{"model": naming.model_name(r.name), **row} for r in results for row in r.tests]
for r in results:
    if r.problem:
        st.warning(f"{r.name}: {r.problem}.")
if rows:
    st.subheader("Test results, English→French")
    st.dataframe(pd.DataFrame(rows).style.format(precision=1), hide_index=True)
for r in results:  # below the table, folded: how each was made, with its commands
    if (made := r.training) is None:
        continue
    with st.expander(f"How it was trained: {naming.model_name(r.name)} — {made.parameters:,} parameters"):
        st.markdown(f"{made.description}  \nTrained on {made.data}, for {made.summary}; best validation BLEU "
                    f"{made.best}.")
        st.code("\n".join(made.commands), language="bash")
        if made.evaluation is None:
            st.info("Not evaluated yet.")
        else:
            st.code(made.evaluation, language="bash")
if rows:
    st.subheader("BLEU against sentence length")
    st.caption("After Bahdanau et al. (2015), Figure 2: without attention, quality falls as sentences get longer.")
    lengths = pd.DataFrame([{"model": naming.model_name(r.name), **point} for r in results for point in r.lengths])
    for test, points in lengths.groupby("test set", sort=False):
        st.altair_chart(charts.bleu_by_length(points, test), width="stretch", key=f"lengths_{test}")
        if finding := measured.figure_2(results, test, naming.model_name):
            st.caption(finding)

curves = [{"model": naming.model_name(r.name), **point} for r in results for point in r.curve]
if curves:
    st.subheader("What the training minutes bought")
    st.caption("Validation BLEU (greedy, cased) at every validation point of each model's training run, against "
               "the minutes it had trained; the checkpoint is the point with the best mean.")
    st.altair_chart(charts.quality_per_minute(pd.DataFrame(curves)), width="stretch", key="quality_per_minute")

table, commands = measured.alignment(results, naming.model_name)
if table:
    st.subheader("Is attention an alignment?")
    st.caption("Word links read from each model on the English–French Hansards gold set (447 sentence pairs aligned "
               "by people, Och & Ney 2000; Mihalcea & Pedersen 2003), the French side forced; the statistical "
               "aligner eflomal on the same sentences, and published single-direction figures. AER: lower is better.")
    st.dataframe(pd.DataFrame(table).style.format(precision=1, na_rep=""), hide_index=True, key="alignment")
    st.code("\n".join(commands), language="bash")
believed = [{"model": naming.model_name(r.name), **score.table_row()} for r in results for score in r.scores]
if believed:
    st.subheader("Which matrix to believe?")
    st.caption(measured.BELIEVE)
    st.dataframe(pd.DataFrame(believed).style.format(precision=2, na_rep="—"), hide_index=True, key="believed")
    st.code("\n".join(dict.fromkeys(r.faithfulness_command for r in results if r.faithfulness_command)),
            language="bash")
for r in results:
    for shifted, (layer_names, head_names, values) in r.aer_grids.items():
        when = ", read one step later" if shifted else ""
        st.altair_chart(charts.aer_grid(layer_names, head_names, values, f"{naming.model_name(r.name)}: which head "
                                        f"aligns{when}? AER on the test set, each layer's heads and their mean"),
                        width="stretch", key=f"aer_heads_{r.name}{'_shifted' * shifted}")
        st.caption("Each cell: links read from one head's attention (or a layer's mean of heads), the lowest AER of "
                   "the rules scored. The reading a model aligns with was chosen on the trial set only.")
for r in results:
    if (heads := r.importance) is not None:
        title = f"{naming.model_name(r.name)}: which heads matter? Validation BLEU lost when a head alone is switched off"
        st.altair_chart(charts.aer_grid(*heads.grid, title, "BLEU drop", lower_is_better=False), width="stretch",
                        key=f"head_importance_{r.name}")
        st.caption(f"Each cell: greedy BLEU on {heads.sentences} validation sentences with the whole model minus "
                   f"with that head's output zeroed (Michel et al. 2019). {heads.can_go} of {heads.of} heads can "
                   f"go, most unimportant first, before BLEU falls by {heads.budget:g}. Beside the AER grid above: "
                   "do the heads that align matter?")

st.subheader("Load your own model")
st.markdown("""
Train one with `python -m models.train --data DIR --score additive --out my-model --push-to-hub you/my-model`
(or upload a folder written by it), then choose **Hugging Face Hub repo…** in the sidebar and type `you/my-model`.
A checkpoint holds `config.json`, `model.safetensors`, `source_tokenizer.json`, `target_tokenizer.json` and a
model card; weights are read with safetensors only, never unpickled. Set `HF_TOKEN` for private repos.
""")
