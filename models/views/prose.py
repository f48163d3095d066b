"""The words a visitor reads: each page's fixed prose (captions, help, "how to read this"), in plain words, and
typed text made safe for each renderer, escaped exactly once.

Prose a view composes from a model's facts stays with that view; what is fixed lives here, one owner for the app's
wording. Every renderer has its own markup, so each gets its own function:

* :func:`plain` — widgets that show text literally (select boxes, ``st.code``, ``st.text``):
  only control characters are made visible.
* charts (Vega-Lite) draw labels as SVG text and tooltips as text: they take text as it is.
* :func:`for_markdown` — ``st.markdown``/``st.caption``: every ASCII punctuation
  character is backslash-escaped (CommonMark shows it literally), so ``*``, ``<``,
  ``$`` or ``:red[`` typed by a user stay text.
"""
from __future__ import annotations

import re
import unicodedata

from ..analysis.aer import CONFIDENCE, RESAMPLES
from ..analysis.deletion import DELETIONS

_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def plain(text: str) -> str:
    """``text`` with control and format characters written as ``\\xNN`` (a right-to-left override included)."""
    return "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def for_markdown(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", plain(text))


# Translate & align
BEAM_TREE = ("Each column is a decoding step; higher is better. Blue: kept in the beam; grey: the best pruned; "
             "orange: the hypothesis shown; squares end with </s>.")
TRANSLATION = "The model's translation: greedy, or with a beam wider than 1 (the sidebar) the hypothesis picked below."
#: Which step a reading of the attention uses, and why (shown wherever a shifted reading can be picked).
STEP_NOTE = ("A row is the step that *writes* its word, from the words before it; read one step later (SHIFT-ATT, "
             "Chen et al. 2020), a word's row is the step where it is the decoder's *input*, the first step that has "
             "seen it — which of the two lines up with human links is measured per model on the Models page.")
NO_FOIL = ("Pick a piece the model nearly wrote: the source tokens that made it write its own instead (contrastive "
           "attribution, Yin & Neubig 2022).")
CONTRAST = ("Each source token's share in the difference between the two log-probabilities: what made the model write "
            "its piece rather than the other.")
HEADS_OFF = ("A head switched off has its output zeroed before the layer's output projection (Michel et al. 2019); "
             "the sentence is decoded again, greedily.")
BERTVIZ = ("Every layer × head of the three attentions, drawn by bertviz (Vig 2019) in your browser; the page fetches "
           "require.js and d3 from their CDNs.")
INSTRUCTION = ("What the chat model is asked: {sentence} is where the sentence goes, {source} and {target} the "
               "languages' names.")

# Compare scoring
COMPARE = ("The bundled models share data and tokens. The RNNs differ only in the score — additive "
           "e = vᵀ tanh(W_q q + W_k k), dot-product e = (W_q q)·(W_k k)/√A — and the Transformer scores by scaled dot "
           "products too, in several heads per layer: pick one head, or a layer's mean, to set beside an RNN (the "
           "sidebar).")
NOT_COMPARABLE = ("The two models split these sentences into different words, so their attention cannot be compared "
                  "cell by cell.")

# Context vectors
HULL = ("Each context c_t is a weighted average of the encoder annotations h_s. A 2-D PCA of this sentence's "
        "annotations shows where each c_t sits: always inside the grey hull, because a weighted average with weights "
        "≥ 0 summing to 1 cannot leave it, and PCA is linear. A Transformer has such a path per cross-attention head: "
        "head h's output at step t is Σ_s α_ts (W_v h_s)_h, a weighted average of that head's own value vectors, so "
        "it stays inside their hull in the same way.")

# Score anatomy
ANATOMY = ("The additive score is a one-hidden-layer network: u = W_q s_{t−1} + W_k h_s, then e = Σ_k v_k·tanh(u_k). "
           "The dot-product score is a sum of per-dimension products (W_q s)_k (W_k h)_k / √A. The bars add up to the "
           "energy the model used. A Transformer head scores like the dot-product model — a scaled dot product of two "
           "learned projections, q·k/√d_k — without the additive MLP's terms.")
SCALING = ("Random queries and keys with N(0, 1) entries, 10 keys, 200 trials per width d. Unscaled dot products have "
           "variance d, so as d grows the softmax puts almost all weight on one key and its gradient vanishes. "
           "Dividing by √d, or scoring additively through a tanh, keeps it in a useful range.")

# Alignment as it is learned
LEARNING = ("At every validation point the training command decodes the curated examples and keeps their attention. In "
            "“a red car” → “une voiture rouge”, *voiture* looks at *car* before *rouge* looks at *red*.")
NO_REPLAY = ("This model kept no replay of its training: it was trained elsewhere, or its run did not decode example "
             "sentences of its source language as it learned. The project's training command keeps one for every "
             "language it has example sentences in.")
LEARNING_CURVE = ("Validation BLEU (greedy, mean over the validation corpora) and loss at each validation point; the "
                  "orange line is the moment shown.")
ENTROPY = ("How spread the attention is: the examples' mean entropy per written piece, in bits (0: all weight on one "
           "source piece). A score that keeps growing drives it towards 0 — the bundled dot-product model's does, the "
           "additive one's settles.")

# Attention against human links
HUMAN_LINKS = ("Sentences aligned word by word by people (English–French: the Canadian Hansards, Och & Ney 2000). The "
               "target side is forced through the translator; the heatmap shows where it looked (or what each word "
               "depended on), the squares where people drew a link. Heatmaps are often read as alignments: here they "
               "are checked.")
PAIR_SCORES = ("AER (alignment error rate, Och & Ney 2003; lower is better), precision and recall of this one pair. "
               "The whole set's figures are on the Models & results page.")

# Which matrix to believe?
#: What the “Which matrix to believe?” page sets side by side, and how each is scored.
EVERY_WAY = ("The matrices: its attention weights, what the attention adds (its norm, ALTI, value zeroing), what every "
             "layer so far adds up to (rollouts) and gradient attributions. Is it an alignment? Its AER against "
             "people's links on the gold test set, measured once for the model. Is it an explanation? Mask the source "
             f"words it ranks highest (1 to {DELETIONS}) and see how far the written word's log-probability falls "
             "(comprehensiveness: higher is better), or keep only them (sufficiency: lower is better). A random "
             "ranking is the floor.")
PANELS = ("Each panel: rows are the words written, columns the source words, darker is more. Click one to open it on "
          "the Translate page.")
NO_AER = "No AER recorded for this model yet: it has not been measured against people's links."
PANEL_SCORES = ("Comprehensiveness and sufficiency are this sentence's, in nats, averaged over its steps; a one-word "
                "sentence has none. Each matrix is drawn at the layer (and head) it aligns best with, read at the step "
                "that writes each word. The Models page has both scores over whole test sets.")

# A corpus at a time
CORPUS = ("Each model's translation and scores, how its attention behaves, and — on the first model's translation "
          "forced through both, as Compare scoring does for one sentence — where the two attentions disagree. Pick a "
          "row to open its sentence on another page.")
PUBLIC_SETS = ("Fetched from their publishers by sacreBLEU's downloader and kept in its cache; its name for a set is on "
               "the table.")
SENTENCES = ("Public test sets come by name through sacreBLEU, in the model's language pair; test sets of the data "
             "folder beside the app are listed too. None is bundled, as their licences or their providers ask. Pasted "
             "and uploaded text: one source sentence a line, or source TAB reference for BLEU and chrF.")

# Models & results
MEASURED = "Every score below is read from the measurement records kept beside each model."
CURVES = ("Validation BLEU (greedy, cased) at every validation point of each model's training run, against the "
          "minutes it had trained; the checkpoint is the point with the best mean.")
ALIGNMENT = ("Word links read from each model on the English–French Hansards gold set (447 sentence pairs aligned by "
             "people, Och & Ney 2000; Mihalcea & Pedersen 2003), the French side forced; the statistical aligner "
             "eflomal on the same sentences, and published single-direction figures. AER: lower is better.")
#: What the "which matrix to believe" table scores, in words.
BELIEVE = ("Each matrix a step can be read as, scored two ways. Against people: AER on the Hansards gold test set, its "
           "reading and rule chosen on the trial set. Against the model: mask the "
           f"1–{DELETIONS} source words it ranks highest and see how far the written word's log-probability falls "
           "(comprehensiveness, nats: higher is better), or keep only them (sufficiency: lower is better), at its best "
           "layer; random is the floor. The “Which matrix to believe?” page does both for one sentence.")
AER_GRID = ("Each cell: links read from one head's attention (or a layer's mean of heads), the lowest AER of the rules "
            "scored. The reading a model aligns with was chosen on the trial set only.")
OWN_MODEL = ("Train one with the project's training command, which can put it on the Hub, or upload a folder "
             "written by it, then choose **Hugging Face Hub repo…** in the sidebar and type its repo id. A "
             "checkpoint holds its configuration, weights, two tokenizers and a model card; weights are read with "
             "safetensors only, never unpickled. A private repo needs a Hugging Face token on the server.")

# Is attention an alignment?
#: The app's question, as the home page asks it (a link to its answer).
QUESTION = "Is attention an alignment? The answer"
ANSWER_READING = ("Each model read three ways: its raw attention (dark blue), its best other matrix (light blue), "
                  "every head fit to people's links (orange). First against people (AER, lower is better), then on "
                  "the same rows against the model (deletion, higher is better; black: a random ranking). Click a bar "
                  "to open it.")
#: What the answer measures, in words (the page's help).
ANSWER = ("Each bar is one model's test AER against the 447 Hansards sentence pairs people aligned word by word (Och & "
          "Ney 2000): its raw attention, its best other matrix (what the attention adds, a rollout, an attribution) "
          "and every head read at once, fit to the people's links of 37 trial pairs; each matrix, layer, head and "
          "link rule chosen on those trial pairs, never on the test pairs. The floor reads nothing of a model: only "
          "where the words sit (how far from the diagonal, whether they are the same). eflomal is a statistical "
          "aligner trained on the same text; GIZA++'s figure is published. On the right, how far the written word's "
          "log-probability falls when the source words a matrix ranks highest are masked, beside a random ranking. "
          "Below the charts, one answer a generation: better or worse is said only where a paired bootstrap over "
          f"the 447 pairs (both matrices scored on the same resampled pairs, {RESAMPLES:,} times) puts the whole "
          f"{CONFIDENCE:.0%} interval of the AER difference on one side of zero; otherwise no better than.")
