"""How each matrix (:class:`~models.nouns.matrix.Matrix`, what it *is*) is computed on a model, what the model must have
for it and about what it costs — one :class:`Recipe` a matrix in one table (:data:`RECIPES`): the app's "Show", its
charts, ``models.align --matrix``, ``models.faithfulness``, the “Which matrix to believe?” page and the bench all read
the registry through it, so a matrix registered here (:func:`register`) is offered everywhere with no other edit.

Most are read layer by layer (:class:`~.contributions.Layered`; the attention and its norm head by head too); an
attribution, a probe and the floor are one matrix a sentence.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..decoding.greedy import forced
from ..decoding.trace import Trace
from ..network.translator import Fitted, Translator
from ..nouns.attention_map import Reading
from ..nouns.link_rule import LinkRule
from ..nouns.matrix import (
    ATTENTION,
    FITTED,
    FLOOR,
    FULL_CONTEXT,
    GRADIENT_X_INPUT,
    INTEGRATED_GRADIENTS,
    MATRICES,
    Matrix,
    matrix_named,
)
from ..nouns.probe import Tried
from . import attribution
from .attribution import attribution_matrix
from .contributions import Layered, Sentence, alti, attention, attention_norm, full_context_attention, value_zeroing
from .fitted import Pass, fitted_matrix, sentence_words
from .rollout import alti_rollout, attention_rollout

Progress = Callable[[float], None] | None

#: Value zeroing's work a second on one CPU thread, in cells (layers × source pieces zeroed, each a pass over source
#: × target pieces): the bundled Transformer (d 256, 3 + 3 layers) did 107,000–139,000 (one thread, 15- and
#: 25-piece sentences, other runs on the other core); an opus-mt model (d 512, 6 + 6 layers) does about 8× the work
#: a cell, hence this.
ZEROING_CELLS_PER_SECOND = 12_000


@dataclass(frozen=True)
class Need:
    """What a model (and what was fit beside it) must have for a matrix to be read on it, and why one without it
    cannot be, in a sentence."""

    has: Callable[[Translator, Fitted], bool]
    why_not: str


WEIGHTS = Need(lambda model, _: model.has_attention, "this model has no attention: its decoder reads one fixed summary "
               "of the sentence, so there are no weights, values or layers to read; an attribution asks the model "
               "itself")
STACK = Need(lambda model, _: bool(model.sublayer_sites()) or model.continues_prompt, "the attentional RNN has one "
             "attention and no residual stream: nothing for ALTI to weigh a source piece against, no stack of layers "
             "to roll out, and no layer output a zeroed value alone changes (its context enters a recurrence that "
             "carries it into every later step)")
ONE_STACK = Need(lambda model, _: not model.continues_prompt, "a decoder-only model's one stack mixes prompt and "
                 "translation in every layer: its ALTI terms are read at the written tokens' rows only, so not rolled "
                 "out through the prompt's, and zeroing a prompt token's values in it is not read here")
PARTS = Need(lambda model, _: model.parts_readable, "this model normalises what its attention adds before adding it "
             "(Gemma2's post-attention norm), which is not taken apart term by term here")

PROBED = Need(lambda _, fitted: fitted.probe is not None, "no reading of this model's heads has been fit to "
              "human links yet (its maker can fit one in seconds: the README's command-line tools say how)")
PARTNERED = Need(lambda _, fitted: fitted.probe is None or not fitted.probe.reads_partner
                 or fitted.partner is not None, "its reading fit to people reads a model translating the "
                 "other way too, which was not loaded beside it")

FLOORED = Need(lambda _, fitted: fitted.floor is not None, "no position floor is bundled with this app (its "
               "maker can fit one in seconds: the README says how)")

WHOLE_TRANSLATION = Need(lambda model, _: model.reads_full_context, "this model's decoder reads its translation only "
                         "up to each step here; only our Transformer's runs with the future mask lifted")


def one_pass(model: Translator, trace: Trace) -> float:
    """The cost of a matrix read from one teacher-forced pass (the hooked one every page makes anyway, or one of
    its own): nothing to speak of."""
    return 0.0


@dataclass(frozen=True)
class Recipe:
    """How one matrix is computed on a model, what the model needs for it and about what it costs."""

    compute: Callable[[Sentence, Progress], Layered]  # every layer of one sentence (an attribution: one "layer")
    needs: tuple[Need, ...] = ()
    seconds: Callable[[Translator, Trace], float] = one_pass  # about how long on one CPU thread
    cheaper: str = ""  # what to read instead where a server cannot afford it, in a sentence
    # the rule chosen with the matrix itself on a model's trial pairs, with that choice's cross-validated AER (a
    # probe fit there: a row of the trial set would score it on the pairs it was fit on); None: chosen like any other
    own_choice: Callable[[Fitted], Tried | None] = lambda fitted: None


def why_not(matrix: Matrix, model: Translator, fitted: Fitted) -> str | None:
    """Why ``matrix`` cannot be read on ``model`` with what was ``fitted`` beside it, in a sentence; None when it
    can."""
    return next((need.why_not for need in RECIPES[matrix].needs if not need.has(model, fitted)), None)


def own_choice(matrix: Matrix, fitted: Fitted) -> Tried | None:
    """The link rule chosen with ``matrix`` itself on a model's trial pairs (what was ``fitted`` beside it), with
    its cross-validated AER (a probe's), or None: its rule is chosen like any other matrix's."""
    return RECIPES[matrix].own_choice(fitted)


def own_rule(matrix: Matrix, fitted: Fitted) -> LinkRule | None:
    """The link rule chosen with ``matrix`` itself on a model's trial pairs (a probe's), or None."""
    choice = own_choice(matrix, fitted)
    return choice.rule if choice else None


def seconds(matrix: Matrix, model: Translator, trace: Trace) -> float:
    """About how long ``matrix`` of ``trace`` takes on one CPU thread."""
    return RECIPES[matrix].seconds(model, trace)


def cheap(matrix: Matrix) -> bool:
    """Whether ``matrix`` costs no more than the teacher-forced pass it is read from."""
    return RECIPES[matrix].seconds is one_pass


def cheaper(matrix: Matrix) -> str:
    """What to read instead of ``matrix`` where a server cannot afford it, in a sentence ("" for a cheap one)."""
    return RECIPES[matrix].cheaper


def of(matrix: Matrix, sentence: Sentence, progress: Progress = None) -> Layered:
    """``matrix`` of one sentence, every layer, computed once a sentence (kept in :attr:`Sentence.found`);
    ValueError when the model has no such matrix. ``progress`` hears the share done of one that takes a while."""
    if reason := why_not(matrix, sentence.model, sentence.fitted):
        raise ValueError(f"{matrix.name}: {reason}")
    if matrix not in sentence.found:
        sentence.found[matrix] = RECIPES[matrix].compute(sentence, progress)
    return sentence.found[matrix]


def read(matrix: Matrix, sentence: Sentence, chosen: list[Reading | None], progress: Progress = None
         ) -> list[np.ndarray]:
    """``matrix`` of one sentence at each of the ``chosen`` readings (:meth:`Matrix.at` each), [T, S] each
    ([T − 1, S] shifted); ValueError when the model has no such matrix."""
    found = of(matrix, sentence, progress)
    return [read_layered(found, r if r is None else matrix.at(r)) for r in chosen]


def _attributed(matrix: Matrix) -> Recipe:
    return Recipe(lambda sentence, progress: Layered(attribution_matrix(sentence.model, sentence.trace, matrix,
                                                                        progress)[None]),  # [1, T, S]
                  seconds=lambda model, trace: attribution.estimated_seconds(trace, matrix, model))


def _zeroing_seconds(model: Translator, trace: Trace) -> float:
    S, T = len(trace.source.ids), len(trace.target_ids)
    return model.attention_shape[0] * S * S * T / ZEROING_CELLS_PER_SECOND


def _fitted(sentence: Sentence, progress: Progress) -> Layered:
    probe = sentence.fitted.probe
    return fitted_matrix(sentence, probe, lambda name: of(matrix_named(name), sentence),
                         _reverse_pass(sentence) if probe.reads_partner else None)


def _reverse_pass(sentence: Sentence) -> Pass:
    """The reverse partner's pass over ``sentence``'s two sides swapped: its target words given as the source, its
    source words forced as the translation (the words as the grid reads them, so each side's words are the other's)."""
    partner = sentence.fitted.partner
    target, source = sentence_words(sentence.trace)
    turned = Sentence(partner.model, forced(partner.model, partner.tokenizers, " ".join(target), " ".join(source)))
    return turned, lambda name: of(matrix_named(name), turned)


def _floor(sentence: Sentence, progress: Progress) -> Layered:
    return fitted_matrix(sentence, sentence.fitted.floor, lambda name: of(matrix_named(name), sentence))


#: How each matrix of the registry is computed, by the matrix (``register`` adds one).
RECIPES: dict[Matrix, Recipe] = {
    ATTENTION: Recipe(lambda s, _: attention(s), (WEIGHTS,)),
    FULL_CONTEXT: Recipe(lambda s, _: full_context_attention(s), (WEIGHTS, WHOLE_TRANSLATION)),
    MATRICES["attention norm"]: Recipe(lambda s, _: attention_norm(s), (WEIGHTS, PARTS)),
    MATRICES["ALTI"]: Recipe(lambda s, _: alti(s), (WEIGHTS, STACK, PARTS)),
    MATRICES["ALTI+ rollout"]: Recipe(lambda s, _: alti_rollout(s), (WEIGHTS, ONE_STACK, STACK)),
    MATRICES["attention rollout"]: Recipe(lambda s, _: attention_rollout(s), (WEIGHTS, STACK)),
    MATRICES["value zeroing"]: Recipe(value_zeroing, (WEIGHTS, ONE_STACK, STACK), _zeroing_seconds,
                                      "ALTI and the attention norm cost one pass"),
    GRADIENT_X_INPUT: _attributed(GRADIENT_X_INPUT),
    INTEGRATED_GRADIENTS: replace(_attributed(INTEGRATED_GRADIENTS), cheaper="Gradient×input is far cheaper"),
    FITTED: Recipe(_fitted, (WEIGHTS, PROBED, PARTNERED),
                   own_choice=lambda fitted: fitted.probe and fitted.probe.final),
    FLOOR: Recipe(_floor, (FLOORED,), own_choice=lambda fitted: fitted.floor and fitted.floor.final),
}


def register(matrix: Matrix, recipe: Recipe) -> None:
    """Offer ``matrix``, computed by ``recipe``, everywhere: the pages, the commands, the bench."""
    MATRICES[matrix.name] = matrix
    RECIPES[matrix] = recipe


def applicable(model: Translator, fitted: Fitted) -> tuple[Matrix, ...]:
    """The matrices ``model`` has with what was ``fitted`` beside it, in :data:`~models.nouns.matrix.MATRICES`
    order."""
    return tuple(m for m in MATRICES.values() if why_not(m, model, fitted) is None)


def read_layered(found: Layered, reading: Reading | None) -> np.ndarray:
    """One reading [T, S] ([T − 1, S] shifted) of a matrix's layers; None reads a one-matrix reading."""
    return found.layers[0] if reading is None else found.read(reading)
