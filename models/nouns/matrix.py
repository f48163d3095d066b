"""What a matrix *is*: one object each (:class:`Matrix`), its names for people and for records, and what it can do
said in flags, never guessed from its name — in one registry (:data:`MATRICES`) that every room may read, records
included. How each is computed on a model, what it needs and costs, is :mod:`models.analysis.recipes`'s.

A matrix says, for each written piece, how much each source piece counted: the attention weights, what the
attention adds (its norm, ALTI, value zeroing), what every layer so far adds up to (rollout), or how the output's
log-probability depends on the source (an attribution); or, beside them, a reading fit to people's links, the floor
of word positions alone, a random ranking and a statistical aligner's links, which records and tables hold in the
same columns. A layer's whole is named as a layer's mean is (``2.mean``): for the attention it is the mean of its
heads, for the norm the norm of their sum, for the others the layer itself.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .attention_map import Kind, Reading, readings
from .link_rule import LinkRule

#: How a matrix is read: each head and each layer's whole; each layer; or one matrix for the sentence.
Per = Literal["head", "layer", "sentence"]


@dataclass(frozen=True, eq=False, repr=False)  # one object a matrix: the registry's, compared and keyed as itself
class Matrix:
    """One way to read a step: its names, how its links are read by default, and what a page may offer of it."""

    name: str  # as --matrix, the app's Show, every table and record name it
    title: str  # a chart's title
    unit: str  # its colour bar's name
    about: str  # one sentence: what it is, after whom
    per: Per
    rule: LinkRule = LinkRule.parse("union")  # how its links are read by default: chosen on the gold's trial set
    least_weight: float = 0.2  # the threshold its links are read at by default: chosen there too
    whole: str = ""  # what a layer's whole is, where it is more than the layer itself ("all heads together")
    weights: bool = False  # its rows are attention weights as the model spent them (a chat model's row leaves the
    # rest to the translation so far), not shares of something else
    later: bool = False  # it can be read one step later, at the step where each piece is the decoder's input
    every_kind: bool = False  # it is read of every attention the model has (its encoder's, the translation's own,
    # its heads switched off), not of the cross-attention alone
    own: bool = False  # the trace's own attention: the step's energies are its scores, a one-head model's one head
    # is the whole of it (its title names no head), and its trial-best head is recorded beside the model
    full_context: bool = False  # read with the whole translation in view: where a head trained so aligns
    attribution: bool = False  # asks the model by gradients (the contrast "why this and not that" too)
    fit: bool = False  # fit to people's links, not read off the model alone: never a feature of a probe
    floor: bool = False  # what any reading must beat: where the words sit alone, no weight of the model
    random: bool = False  # a random ranking: deletion's floor, no model read
    aligner: bool = False  # a statistical aligner's links, beside the model's: its rows' rule is its direction

    def __reduce__(self):  # a copy (a cache's, a worker's) is the registry's own object again
        return matrix_named, (self.name,)

    def __repr__(self) -> str:
        return f"Matrix({self.name!r})"

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
        if reading.head is not None or reading.kind != Kind.CROSS or reading.whole != "mean":
            return reading.label
        return (f"layer {reading.layer + 1}" + (f", {self.whole}" if self.whole else "")
                + (", read one step later" if reading.shifted else ""))

    def row_name(self, reading: Reading | None) -> str:
        """It at one reading, as a table row and a file stem name it: ``attention-norm.2.mean.shifted`` (a
        one-matrix reading by its slug alone)."""
        return self.slug + (f".{reading.key}" if reading else "")

    def readings(self, shape: tuple[int, int], shifted: bool = False) -> list[Reading | None]:
        """Its readings of attention shaped ``(L, heads)``: its heads and layers (every layer only, where no head
        has its own), with ``shifted`` each read one step later too; ``[None]`` for a one-matrix reading."""
        if self.per == "sentence":
            return [None]
        layers, heads = shape
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


_SHARE = "each source token's share in each output token"
IG_STEPS = 64  # path points: gaps ≤ 5.4 % of the change on the bundled models, 16: ≤ 54 % (bench completeness)

#: The weights themselves: the one matrix every page can draw, and the one a server falls back to.
ATTENTION = Matrix("attention", "Attention α", "α", "where the decoder read (the weights α)", "head",
                   whole="mean of its heads", weights=True, later=True, every_kind=True, own=True)
#: Where a head trained to align with the whole translation in view aligns (Garg et al. 2019).
FULL_CONTEXT = Matrix(
    "full-context attention", "Attention α with the whole translation in view (the future mask lifted)", "α",
    "the weights of one pass over the finished translation in which every position sees all of it (Garg et al. "
    "2019's full context: where a head trained to align with it is read)", "head", whole="mean of its heads",
    weights=True, later=True, full_context=True)
GRADIENT_X_INPUT = Matrix("gradient×input", f"Gradient×input attribution: {_SHARE}", "share", "how the written "
                          "token's log-probability depends on each source embedding (one pass back)", "sentence",
                          least_weight=0.15, attribution=True)
INTEGRATED_GRADIENTS = Matrix("integrated gradients", f"Integrated-gradients attribution: {_SHARE}", "share",
                              f"the same, averaged over {IG_STEPS} points from an all-padding sentence", "sentence",
                              rule=LinkRule.parse("intersection"), attribution=True)
#: Every head and layer read at once, weighed as people's links taught (a probe: models.analysis.fitted).
FITTED = Matrix("fit to human links", "Fit to human links: p(link) of every word pair, from every head weighed as "
                "people's links taught", "p(link)", "every head and layer read at once, weighed by a sparse logistic "
                "regression fit on a few human-aligned pairs (a probe)", "sentence", fit=True)
#: The floor every reading is read beside: p(link) from where the words sit alone (how far from the diagonal, the
#: same word or punctuation), fit on the same human links as the probe; no weight of the model.
FLOOR = Matrix("position floor", "Position floor: p(link) from where the words sit alone, no model read", "p(link)",
               "the floor: how far a cell lies from the diagonal and whether both words are the same, weighed by a "
               "logistic regression fit on the same human-aligned pairs; what any reading must beat", "sentence",
               fit=True, floor=True)

#: Every matrix, in the order they are offered, by name (``models.analysis.recipes.register`` adds one).
MATRICES: dict[str, Matrix] = {m.name: m for m in (
    ATTENTION, FULL_CONTEXT,
    Matrix("attention norm", "Attention norm ‖α f(x)‖: the size of what each source token adds through the "
           "attention", "share", "α times the size of what each source token's value adds (Kobayashi et al. 2020)",
           "head", whole="all heads together"),
    Matrix("ALTI", "ALTI: each source token's contribution to the layer's output (the prefix's share set aside)",
           "share", "each token's share of the layer's output, residual and layer norm included (Ferrando et al. "
           "2022)", "layer"),
    Matrix("ALTI+ rollout", "ALTI+ rollout: what each output token is made of, through every layer up to this one",
           "share", "ALTI multiplied through every layer: the source's and the prefix's share of each word", "layer"),
    Matrix("attention rollout", "Attention rollout: ½ attention + ½ residual, multiplied through the layers",
           "share", "the weights, half residual, multiplied through the layers (Abnar & Zuidema 2020)", "layer"),
    Matrix("value zeroing", "Value zeroing: how far the layer's output moves without each source token's values",
           "share", "the change in the layer's output when a token's values are zeroed (Mohebbi et al. 2023)",
           "layer"),
    GRADIENT_X_INPUT, INTEGRATED_GRADIENTS, FITTED, FLOOR,
)}

#: Deletion's floor: source words ranked at random (``models.faithfulness``), in the same table as the matrices.
RANDOM = Matrix("random", "A random ranking", "share", "source words ranked at random: what a ranking that knows "
                "nothing does", "sentence", random=True)
#: The statistical aligner's links (eflomal, ``models.align.statistical``), beside the model's in the same table.
ALIGNER = Matrix("eflomal", "eflomal's links", "link", "a statistical aligner's links (Östling & Tiedemann 2016), "
                 "trained on the sentences alone", "sentence", aligner=True)


def matrix_named(name: str) -> Matrix:
    """The matrix a record, a URL or a command names (the registry's, the random ranking, the aligner's links);
    ValueError for an unknown name."""
    for matrix in (*MATRICES.values(), RANDOM, ALIGNER):
        if name == matrix.name:
            return matrix
    raise ValueError(f"unknown matrix {name!r}; expected one of {tuple(MATRICES)}")
