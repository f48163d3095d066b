"""The Translate page, decided here and laid out there: the translation and what to doubt in it, which reading its
main heatmap draws (of which attention, titled, captioned, clickable or not), what the page offers beside it and why
not, one decoding step of its step explorer and a step's contrast with another candidate. Each is a frozen record;
the page only draws it."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..analysis.heatmaps import Heatmap, piece_columns, piece_label, source_word_weights
from ..decoding.beam import BeamNode, beam_search
from ..decoding.greedy import forced, greedy
from ..decoding.trace import Trace
from ..decoding.what_if import what_if
from ..nouns.attention_map import AttentionMap, Kind, NamedKind, Reading
from ..network.tokenization import InputError, is_language_tag, word_index
from ..network.translator import Translator
from ..nouns.matrix import Matrix
from ..storage.loaded import LoadedModel
from ..tables.doubts import Notices, notices
from .kinds import kind_heatmap
from .matrix_views import MatrixView

FORCED = ("Forced, not chosen: a many-to-many model is made to write the target language's tag first (as "
          "generate's forced_bos_token_id does). The attention is the step's own; its choices are not.")
NO_ATTENTION = ("This model has no attention: the decoder sees one fixed summary of the sentence at every step. "
                "Attribution still shows which source words each output word depended on.")
UNFORCEABLE = ("This model's attention cannot be forced to look elsewhere: the library it comes from offers no "
               "place to set a layer's weights, so there is no what-if here.")


@dataclass(frozen=True)
class Refused:
    """Why a model translates nothing of a text (empty, or nothing it can read): a sentence for the visitor."""

    reason: str


def doubts(loaded: LoadedModel, trace: Trace, text: str) -> Notices:
    """What to say of ``trace``, ``loaded``'s translation of ``text`` (its ends, its languages)."""
    return notices(trace, loaded.model.specials.ends, loaded.languages, text)


def translation(loaded: LoadedModel, text: str, target: str | tuple[int, ...] | None = None) -> Trace | Refused:
    """``text`` translated greedily, or, given ``target`` (its text or ids), made to write it; or why not."""
    try:
        if target is None:
            return greedy(loaded.model, loaded.tokenizers, text)
        return forced(loaded.model, loaded.tokenizers, text, target)
    except InputError as e:
        return Refused(str(e))


@dataclass(frozen=True, eq=False)
class BeamView:
    """A beam search's final hypotheses, best first, as the n-best list shows them, and its tree."""

    hypotheses: tuple[Trace, ...]
    rows: tuple[dict, ...]  # the n-best list: rank, translation, log p, log p per piece, pieces
    nodes: tuple[BeamNode, ...]  # the search tree
    ends: tuple[int, ...]  # the node each hypothesis ends with

    def tree(self, chosen: int) -> tuple[list[dict], list[dict]]:
        """The search tree laid out for the ``chosen`` hypothesis: a point per piece (its ``step``, ``y``: minus
        its rank among its step's pieces, so higher is better, ``piece``, ``log p``, ``group``: chosen, kept or
        pruned, ``end``) and an edge per piece from the one before it (``step``, ``step2``, ``y``, ``y2``,
        ``group``)."""
        nodes, rank = self.nodes, {}
        for step in sorted({n.step for n in nodes}):
            here = sorted((i for i, n in enumerate(nodes) if n.step == step), key=lambda i: -nodes[i].score)
            rank |= {i: r for r, i in enumerate(here)}
        path, node = set(), self.ends[chosen]
        while node is not None:
            path.add(node)
            node = nodes[node].parent
        group = ["chosen" if i in path else "kept" if n.kept else "pruned" for i, n in enumerate(nodes)]
        points = [{"step": n.step, "y": -rank[i], "piece": piece_label(n.piece), "log p": n.score, "group": group[i],
                   "end": "</s>" if n.finished else "piece"} for i, n in enumerate(nodes)]
        edges = [{"step": n.step - 1, "step2": n.step, "y": -rank[n.parent], "y2": -rank[i], "group": group[i]}
                 for i, n in enumerate(nodes) if n.parent is not None]
        return points, edges


def beam(loaded: LoadedModel, text: str, width: int) -> BeamView | Refused:
    """``text`` translated by a beam ``width`` wide: every hypothesis it ended with and how it searched; or why
    not."""
    try:
        found = beam_search(loaded.model, loaded.tokenizers, text, width)
    except InputError as e:
        return Refused(str(e))
    rows = tuple({"#": i + 1, "translation": h.translation, "log p": h.logprob,
                  "per piece": h.logprob / len(h.target_ids), "pieces": len(h.target_ids)}
                 for i, h in enumerate(found.hypotheses))
    return BeamView(found.hypotheses, rows, found.nodes, found.ends)


@dataclass(frozen=True, eq=False)
class MainHeatmap:
    """What the page's main heatmap draws, and how it behaves."""

    heatmap: Heatmap
    title: str  # what is drawn: "Attention α (layer 1, head 4)", short enough for half a laptop's
    # width (the one-step-later heatmap stands beside it); its rows and columns are the caption's
    kind: NamedKind  # the attention shown (an attribution follows the decoding steps)
    kinds: dict[Kind, AttentionMap] | None  # the sentence's attentions when another than the steps' own is shown
    stem: str  # the downloads' file name
    later: bool  # whether the same reading one step later can be drawn beside it
    heads: bool  # whether every head of the layer (and every layer) can be drawn below it
    heads_off: bool  # whether heads can be switched off and the sentence decoded again

    @property
    def stepwise(self) -> bool:
        """Whether rows are decoding steps (cross-attention, attribution): a click opens a step; a shift exists."""
        return self.kind.stepwise

    @property
    def caption(self) -> str:
        if self.stepwise:
            return f"{self.kind.what} Click a cell to explore the step that wrote its row."
        return f"{self.kind.what} Shown piece by piece; the step explorer below follows the decoding steps."


def steps_reading(loaded: LoadedModel, kind: NamedKind, reading: Reading | None) -> Reading | None:
    """The reading the step explorer follows: the one shown where it reads the decoding steps, else the model's
    own (an attribution's what-if still forces the attention); None for a model without attention."""
    return reading if kind.stepwise and reading is not None else loaded.reading and loaded.reading.plain


def no_attention(model: Translator) -> str | None:
    """Why the page has no attention to draw for ``model``, in a sentence; None where it has some."""
    return None if model.has_attention else NO_ATTENTION


def heatmap(model: Translator, drawn: MatrixView, kind: NamedKind, reading: Reading | None,
            kinds: dict[Kind, AttentionMap] | None) -> MainHeatmap:
    """The main heatmap: ``drawn`` (the steps' own attention, what it adds or an attribution, step by step) or
    another attention, ``kind``, of the sentence's ``kinds``, with its title."""
    several = reading is not None and (model.several_heads or not drawn.matrix.every_kind)
    head = f" ({drawn.matrix.label(reading)})" if several else ""
    stem = drawn.matrix.slug + ("" if kind.stepwise else f"-{kind.key}") + (f"-head-{reading.key}" if head else "")
    heads = drawn.matrix.every_kind and model.several_heads, drawn.matrix.every_kind and bool(model.switchable_heads)
    if kind.stepwise:
        return MainHeatmap(drawn.heatmap, drawn.title, kind, None, stem, drawn.matrix.later, *heads)
    return MainHeatmap(kind_heatmap(kinds[kind.key], reading), f"{kind.named} α{head}", kind, kinds, stem, False,
                       *heads)


@dataclass(frozen=True, eq=False)
class StepView:
    """One decoding step of the step explorer: what it wrote, where the shown matrix puts its weight over the source
    (bars), how its attention is shared out, and what may be asked of it."""

    step: int  # 0-based
    written: str  # the piece it wrote, without its word marker
    forced: str | None  # why the step's choices are not the model's own (a forced language tag)
    bars: Heatmap  # [1, S'] the step's row of the shown matrix over the source's words or pieces
    over: str  # the bars' title
    shares: tuple[str, ...]  # where the step's attention went, a sentence each
    row: int  # the step's row in the word or piece heatmap
    source_words: tuple[str, ...]  # what the what-if may force the step onto
    what_if: bool  # whether the step's attention can be forced onto one of them
    no_what_if: str | None  # why it cannot, where the model has attention

    @property
    def best(self) -> int:
        """The bar the step weighs most."""
        return int(self.bars.weights.argmax())


def step_view(model: Translator, trace: Trace, shown: MatrixView, step: int, words: bool,
              reading: Reading | None) -> StepView:
    """Step ``step`` (0-based) of ``trace`` under ``shown``, by word or piece; ``reading``: the one its what-if
    would force (None: the model has no attention, nothing to ask)."""
    weights, matrix = shown.steps.weights, shown.matrix  # [T, S]
    source_words, by_word = source_word_weights(trace, weights)
    written = piece_label(trace.target_pieces[step])
    if words:
        columns, unknown, row = shown.heatmap.columns, shown.heatmap.unknown, by_word[step]
    else:
        columns, unknown, row = piece_columns(trace, weights[step])
    bars = Heatmap((written,), tuple(columns), tuple(unknown), row[None])  # [1, S']
    forced = FORCED if is_language_tag(trace.target_pieces[step]) else None
    forceable = reading is not None and model.attention_can_be_forced  # without attention nothing to force
    return StepView(step, written, forced, bars, f"{matrix.named} over the source",
                    _shares(model, shown, step, reading),
                    word_index(trace.target_pieces)[step] if words else step, source_words, forceable,
                    UNFORCEABLE if reading is not None and not forceable else None)


def _shares(model: Translator, shown: MatrixView, step: int, reading: Reading | None) -> tuple[str, ...]:
    """How the step's attention divides between the sentence and what was written before it, where it does."""
    found = []
    if shown.matrix.weights and model.continues_prompt:  # a chat model's row: the rest went to what it had written
        read = float(shown.steps.weights[step].sum())
        found.append(f"Of this step's attention, {read:.0%} went to the prompt (the sentence and the rest of it) and "
                     f"{1 - read:.0%} to the translation so far: a chat model reads both. The bars are not rescaled.")
    if shown.prefix is not None:
        share = shown.prefix[step]
        found.append(f"Of what this step's layer {reading.layer + 1} holds, {1 - share:.0%} comes from the source "
                     f"and {share:.0%} from what the decoder had already written (the target prefix), by "
                     f"{shown.matrix.name}. The bars share out the source's part.")
    return tuple(found)


def foils(trace: Trace, step: int) -> dict[str, int]:
    """The step's other candidates, piece to id: what its contrast may be asked against."""
    return {p: i for (p, _), i in zip(trace.top_k[step], trace.top_ids[step]) if i != trace.target_ids[step]}


def contrast_heatmap(trace: Trace, step: int, foil: str, matrix: Matrix, weights: np.ndarray
                  ) -> tuple[Heatmap, str]:
    """A step's contrast ``weights`` [S] (by the attribution ``matrix``) as one heatmap row over the source pieces,
    and its title."""
    written = piece_label(trace.target_pieces[step])
    columns, unknown, weights = piece_columns(trace, weights[None])
    heatmap = Heatmap(rows=(f"{written}, not {piece_label(foil)}",), columns=columns, unknown=unknown,
                      weights=weights)
    return heatmap, f"{matrix.named} of log p(“{written}”) − log p(“{piece_label(foil)}”)"


@dataclass(frozen=True)
class Outcome:
    """A translation and, at one step, the piece it wrote and its most likely pieces."""

    translation: str
    written: str  # the step's piece, as the model writes it
    choices: tuple[tuple[str, float], ...]  # the step's most likely pieces and their probabilities


@dataclass(frozen=True)
class WhatIfView:
    """The greedy translation as decoded and with one step's attention forced onto one source word."""

    step: int  # 0-based, within the translation as decoded
    before: Outcome
    after: Outcome


def forcing(layer: int, several: bool) -> str:
    """What the what-if forces, in a sentence: every head of ``layer``, or the one attention."""
    where = f"every head of layer {layer + 1}" if several else "the attention"
    return (f"Force {where} at the chosen step onto one source word and let the decoder carry on from there (greedy "
            "decoding, whatever the sidebar says).")


def what_if_view(loaded: LoadedModel, text: str, step: int, word: int, layer: int) -> WhatIfView:
    """``text`` decoded greedily, and again with ``layer``'s attention at ``step`` on source word ``word``."""
    found = what_if(loaded.model, loaded.tokenizers, text, step, word, layer)
    at = found.step
    return WhatIfView(at, *(Outcome(t.translation, t.target_pieces[at], tuple(t.top_k[at]))
                            for t in (found.base, found.changed)))
