"""Every matrix a step can be read as, one record each (:class:`Matrix`) in one registry (:data:`MATRICES`): the
app's "Show", its charts' titles, ``models.align --matrix``, ``models.faithfulness``, the Which reading? page and
the bench all read it, so a matrix registered here is offered everywhere with no other edit.

A matrix says, for each written piece, how much each source piece counted: the attention weights, what the
attention adds (:mod:`.contributions`: its norm, ALTI, value zeroing), what every layer so far adds up to
(:mod:`.rollout`), or how the output's log-probability depends on the source (:mod:`.attribution`). Most are read
layer by layer (:class:`~.contributions.Layered`; the attention and its norm head by head too); an attribution is
one matrix. A layer's whole is named as a layer's mean is (``2.mean``): for the attention it is the mean of its
heads, for the norm the norm of their sum, for the others the layer itself.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..nouns.attention_map import Kind, Reading, readings
from ..decoding.greedy import forced
from ..nouns.link_rule import LinkRule
from ..nouns.probe import FLOOR, Tried
from ..decoding.trace import ATTENTION, FULL_CONTEXT, Trace
from ..network.translator import Translator
from . import attribution
from .attribution import IG_STEPS, attribution_matrix
from .contributions import Layered, Sentence, alti, attention, attention_norm, full_context_attention, value_zeroing
from .fitted import Pass, fitted_matrix, sentence_words
from .rollout import alti_rollout, attention_rollout

Progress = Callable[[float], None] | None
#: How a matrix is read: each head and each layer's whole; each layer; or one matrix for the sentence.
Per = Literal["head", "layer", "sentence"]

#: Value zeroing's work a second on one CPU thread, in cells (layers × source pieces zeroed, each a pass over source
#: × target pieces): the bundled Transformer (d 256, 3 + 3 layers) did 107,000–139,000 (one thread, 15- and
#: 25-piece sentences, other runs on the other core); an opus-mt model (d 512, 6 + 6 layers) does about 8× the work
#: a cell, hence this.
ZEROING_CELLS_PER_SECOND = 12_000


@dataclass(frozen=True)
class Need:
    """What a model must have for a matrix to be read on it, and why one without it cannot be, in a sentence."""

    has: Callable[[Translator], bool]
    why_not: str


WEIGHTS = Need(lambda model: model.has_attention, "this model has no attention: its decoder reads one fixed summary "
               "of the sentence, so there are no weights, values or layers to read; an attribution asks the model "
               "itself")
STACK = Need(lambda model: bool(model.sublayer_sites()) or model.continues_prompt, "the attentional RNN has one "
             "attention and no residual stream: nothing for ALTI to weigh a source piece against, no stack of layers "
             "to roll out, and no layer output a zeroed value alone changes (its context enters a recurrence that "
             "carries it into every later step)")
ONE_STACK = Need(lambda model: not model.continues_prompt, "a decoder-only model's one stack mixes prompt and "
                 "translation in every layer: its ALTI terms are read at the written tokens' rows only, so not rolled "
                 "out through the prompt's, and zeroing a prompt token's values in it is not read here")
PARTS = Need(lambda model: model.parts_readable, "this model normalises what its attention adds before adding it "
             "(Gemma2's post-attention norm), which is not taken apart term by term here")

PROBED = Need(lambda model: model.probe is not None, "no reading of this model's heads has been fit to "
              "human links yet (its maker can fit one in seconds: the README's command-line tools say how)")
PARTNERED = Need(lambda model: model.probe is None or not model.probe.reads_partner
                 or model.reverse_partner is not None, "its reading fit to people reads a model translating the "
                 "other way too, which was not loaded beside it")

FLOORED = Need(lambda model: model.position_floor is not None, "no position floor is bundled with this app (its "
               "maker can fit one in seconds: the README says how)")

WHOLE_TRANSLATION = Need(lambda model: model.reads_full_context, "this model's decoder reads its translation only up "
                         "to each step here; only our Transformer's runs with the future mask lifted")


def one_pass(model: Translator, trace: Trace) -> float:
    """The cost of a matrix read from one teacher-forced pass (the hooked one every page makes anyway, or one of
    its own): nothing to speak of."""
    return 0.0


@dataclass(frozen=True, eq=False)  # one object a matrix: the registry's, compared and keyed as itself
class Matrix:
    """One way to read a step: its names, how it is computed, what it needs and costs, how its links are read."""

    name: str  # as --matrix, the app's Show and every table name it
    title: str  # a chart's title
    unit: str  # its colour bar's name
    about: str  # one sentence: what it is, after whom
    per: Per
    compute: Callable[[Sentence, Progress], Layered]  # every layer of one sentence (an attribution: one "layer")
    needs: tuple[Need, ...] = ()
    seconds: Callable[[Translator, Trace], float] = one_pass  # about how long on one CPU thread
    cheaper: str = ""  # what to read instead where a server cannot afford it, in a sentence
    rule: LinkRule = LinkRule("union")  # how its links are read by default: chosen on the gold's trial set
    least_weight: float = 0.2  # the threshold its links are read at by default: chosen there too
    whole: str = ""  # what a layer's whole is, where it is more than the layer itself ("all heads together")
    # the rule chosen with the matrix itself on a model's trial pairs, with that choice's cross-validated AER (a
    # probe fit there: a row of the trial set would score it on the pairs it was fit on); None: chosen like any other
    own_choice: Callable[[Translator], Tried | None] = lambda model: None
    # What a page may offer of it, said here rather than guessed from its name:
    weights: bool = False  # its rows are attention weights as the model spent them (a chat model's row leaves the
    # rest to the translation so far), not shares of something else
    later: bool = False  # it can be read one step later, at the step where each piece is the decoder's input
    every_kind: bool = False  # it is read of every attention the model has (its encoder's, the translation's own,
    # its heads switched off), not of the cross-attention alone
    own: bool = False  # the trace's own attention: the step's energies are its scores, a one-head model's one head
    # is the whole of it (its title names no head), and its trial-best head is recorded beside the model

    def own_rule(self, model: Translator) -> LinkRule | None:
        choice = self.own_choice(model)
        return choice.rule if choice else None

    @property
    def slug(self) -> str:
        """Its name in URLs and file names: ``integrated gradients`` → ``integrated-gradients``."""
        return self.name.replace("×", "-x-").replace(" ", "-")

    @property
    def named(self) -> str:
        """Its name to begin a sentence with (ALTI stays ALTI)."""
        return self.name[:1].upper() + self.name[1:]

    def label(self, reading: Reading) -> str:
        """A reading's name under this matrix: a head, or a layer's whole as this matrix takes it."""
        if reading.head is not None or reading.kind != Kind.CROSS:
            return reading.label
        return (f"layer {reading.layer + 1}" + (f", {self.whole}" if self.whole else "")
                + (", read one step later" if reading.shifted else ""))

    def why_not(self, model: Translator) -> str | None:
        """Why it cannot be read on ``model``, in a sentence; None when it can."""
        return next((need.why_not for need in self.needs if not need.has(model)), None)

    def row_name(self, reading: Reading | None) -> str:
        """It at one reading, as a table row and a file stem name it: ``attention-norm.2.mean.shifted`` (a
        one-matrix reading by its slug alone)."""
        return self.slug + (f".{reading.key}" if reading else "")

    def readings(self, model: Translator, shifted: bool = False) -> list[Reading | None]:
        """Its readings on ``model``: its heads and layers (every layer only, where no head has its own), with
        ``shifted`` each read one step later too; ``[None]`` for a one-matrix reading (an attribution)."""
        if self.per == "sentence":
            return [None]
        layers, heads = model.attention_shape
        if self.per == "head":
            return readings((layers, heads), shifted)
        plain = [Reading(n, None) for n in range(layers)]
        return plain + [Reading(n, None, True) for n in range(layers)] if shifted else plain

    def at(self, reading: Reading) -> Reading | None:
        """``reading`` as it has it: the same head of a head-wise matrix, else the layer's whole (None for a
        one-matrix reading)."""
        if self.per == "sentence":
            return None
        return reading if self.per == "head" else Reading(reading.layer, None, reading.shifted)

    def of(self, sentence: Sentence, progress: Progress = None) -> Layered:
        """It of one sentence, every layer, computed once a sentence (kept in :attr:`Sentence.found`); ValueError
        when the model has no such matrix. ``progress`` hears the share done of one that takes a while."""
        if reason := self.why_not(sentence.model):
            raise ValueError(f"{self.name}: {reason}")
        if self.name not in sentence.found:
            sentence.found[self.name] = self.compute(sentence, progress)
        return sentence.found[self.name]

    def read(self, sentence: Sentence, chosen: list[Reading | None], progress: Progress = None) -> list[np.ndarray]:
        """It of one sentence at each of the ``chosen`` readings (:meth:`at` each), [T, S] each ([T − 1, S]
        shifted); ValueError when the model has no such matrix."""
        found = self.of(sentence, progress)
        return [read_layered(found, r if r is None else self.at(r)) for r in chosen]


def _attributed(method: str) -> Callable[[Sentence, Progress], Layered]:
    return lambda sentence, progress: Layered(attribution_matrix(sentence.model, sentence.trace, method,
                                                                 progress)[None])  # [1, T, S]


def _zeroing_seconds(model: Translator, trace: Trace) -> float:
    S, T = len(trace.source.ids), len(trace.target_ids)
    return model.attention_shape[0] * S * S * T / ZEROING_CELLS_PER_SECOND


def _fitted(sentence: Sentence, progress: Progress) -> Layered:
    probe = sentence.model.probe
    return fitted_matrix(sentence, probe, lambda name: record(name).of(sentence),
                         _reverse_pass(sentence) if probe.reads_partner else None)


def _reverse_pass(sentence: Sentence) -> Pass:
    """The reverse partner's pass over ``sentence``'s two sides swapped: its target words given as the source, its
    source words forced as the translation (the words as the grid reads them, so each side's words are the other's)."""
    partner = sentence.model.reverse_partner
    target, source = sentence_words(sentence.trace)
    turned = Sentence(partner.model, forced(partner.model, partner.tokenizers, " ".join(target), " ".join(source)))
    return turned, lambda name: record(name).of(turned)


def _floor(sentence: Sentence, progress: Progress) -> Layered:
    return fitted_matrix(sentence, sentence.model.position_floor, lambda name: record(name).of(sentence))


#: The reading fit to people's links (:mod:`.fitted`), read from the other matrices of the same pass.
FITTED = "fit to human links"
# FLOOR (nouns/probe.py), the floor every reading is read beside: p(link) from where the words sit alone (how far
# from the diagonal, the same word or punctuation), fit on the same human links as the probe; no weight of the model.
#: Readings that are fit to people's links rather than read off the model: never a feature of a probe.
PROBES = (FITTED, FLOOR)

# ATTENTION (decoding/trace.py), the weights themselves, is the one matrix every page can draw, and the one a server
# falls back to; FULL_CONTEXT is where a head trained to align with the whole translation in view aligns.

_SHARE = "each source token's share in each output token"

#: Every matrix, in the order they are offered, by name (``register`` adds one).
MATRICES: dict[str, Matrix] = {m.name: m for m in (
    Matrix(ATTENTION, "Attention α", "α", "where the decoder read (the weights α)", "head",
           lambda s, _: attention(s), (WEIGHTS,), whole="mean of its heads", weights=True, later=True,
           every_kind=True, own=True),
    Matrix(FULL_CONTEXT, "Attention α with the whole translation in view (the future mask lifted)",
           "α", "the weights of one pass over the finished translation in which every position sees all of it "
           "(Garg et al. 2019's full context: where a head trained to align with it is read)", "head",
           lambda s, _: full_context_attention(s), (WEIGHTS, WHOLE_TRANSLATION), whole="mean of its heads",
           weights=True, later=True),
    Matrix("attention norm", "Attention norm ‖α f(x)‖: the size of what each source token adds through the "
           "attention", "share", "α times the size of what each source token's value adds (Kobayashi et al. 2020)",
           "head", lambda s, _: attention_norm(s), (WEIGHTS, PARTS), whole="all heads together"),
    Matrix("ALTI", "ALTI: each source token's contribution to the layer's output (the prefix's share set aside)",
           "share", "each token's share of the layer's output, residual and layer norm included (Ferrando et al. "
           "2022)", "layer", lambda s, _: alti(s), (WEIGHTS, STACK, PARTS)),
    Matrix("ALTI+ rollout", "ALTI+ rollout: what each output token is made of, through every layer up to this one",
           "share", "ALTI multiplied through every layer: the source's and the prefix's share of each word", "layer",
           lambda s, _: alti_rollout(s), (WEIGHTS, ONE_STACK, STACK)),
    Matrix("attention rollout", "Attention rollout: ½ attention + ½ residual, multiplied through the layers",
           "share", "the weights, half residual, multiplied through the layers (Abnar & Zuidema 2020)", "layer",
           lambda s, _: attention_rollout(s), (WEIGHTS, STACK)),
    Matrix("value zeroing", "Value zeroing: how far the layer's output moves without each source token's values",
           "share", "the change in the layer's output when a token's values are zeroed (Mohebbi et al. 2023)",
           "layer", value_zeroing, (WEIGHTS, ONE_STACK, STACK), _zeroing_seconds,
           "ALTI and the attention norm cost one pass"),
    Matrix("gradient×input", f"Gradient×input attribution: {_SHARE}", "share", "how the written token's "
           "log-probability depends on each source embedding (one pass back)", "sentence",
           _attributed("gradient×input"), seconds=lambda model, trace: attribution.estimated_seconds(
               trace, "gradient×input", model), least_weight=0.15),
    Matrix("integrated gradients", f"Integrated-gradients attribution: {_SHARE}", "share",
           f"the same, averaged over {IG_STEPS} points from an all-padding sentence", "sentence",
           _attributed("integrated gradients"), seconds=lambda model, trace: attribution.estimated_seconds(
               trace, "integrated gradients", model), cheaper="Gradient×input is far cheaper",
           rule=LinkRule("intersection")),
    Matrix(FITTED, "Fit to human links: p(link) of every word pair, from every head weighed as people's links "
           "taught", "p(link)", "every head and layer read at once, weighed by a sparse logistic regression fit on "
           "a few human-aligned pairs (a probe)", "sentence", _fitted, (WEIGHTS, PROBED, PARTNERED),
           own_choice=lambda model: model.probe.final if model.probe else None),
    Matrix(FLOOR, "Position floor: p(link) from where the words sit alone, no model read", "p(link)",
           "the floor: how far a cell lies from the diagonal and whether both words are the same, weighed by a "
           "logistic regression fit on the same human-aligned pairs; what any reading must beat", "sentence",
           _floor, (FLOORED,), own_choice=lambda model: model.position_floor.final if model.position_floor else None),
)}


def register(matrix: Matrix) -> None:
    """Offer ``matrix`` everywhere: the pages, the commands, the bench."""
    MATRICES[matrix.name] = matrix


def record(matrix: str) -> Matrix:
    """The record of the matrix named ``matrix``; ValueError for an unknown name."""
    try:
        return MATRICES[matrix]
    except KeyError:
        raise ValueError(f"unknown matrix {matrix!r}; expected one of {tuple(MATRICES)}") from None


def applicable(model: Translator) -> tuple[Matrix, ...]:
    """The matrices ``model`` has, in :data:`MATRICES` order."""
    return tuple(m for m in MATRICES.values() if m.why_not(model) is None)


def read_layered(found: Layered, reading: Reading | None) -> np.ndarray:
    """One reading [T, S] ([T − 1, S] shifted) of a matrix's layers; None reads a one-matrix reading."""
    return found.layers[0] if reading is None else found.read(reading)

