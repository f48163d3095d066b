"""What opens a model up, decided here and drawn there: the path the context vector takes among what it mixes
(Context vectors: an RNN's annotations, or one Transformer head's value vectors), one energy taken apart term by
term beside the scaling playground (Score anatomy), and the training states nearest to a step's decoder state (the
Translate page's step explorer)."""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..analysis.anatomy import scaling_curves, score_anatomy
from ..analysis.heatmaps import source_word_weights
from ..analysis.geometry import ContextGeometry, context_geometry, head_geometry
from ..analysis.nearest_states import INDEX_FILE, IndexFileError, Neighbour, StateIndex, load_index, nearest
from ..decoding.trace import Trace
from ..network.family import family
from ..network.translator import Translator
from ..nouns.attention_map import RNN_READING, AttentionMap, Kind, Reading
from ..storage.loaded import LoadedModel

RNN_POINTS = ("annotations h_s", "contexts c_t")
HEAD_POINTS = ("value vectors W_v h_s", "head outputs")
ONE_HEAD = "A layer's mean averages heads whose value vectors live in different spaces: pick one head."
WIDTHS = tuple(2**k for k in range(1, 13))  # the scaling playground's widths d


@dataclass(frozen=True, eq=False)
class PathView:
    """A sentence's path of mixtures through the plane of what they mix, and who makes up each point."""

    geometry: ContextGeometry
    words: tuple[str, ...]  # the source words
    by_word: np.ndarray  # [T, Sw] each source word's share of every step's mixture
    points: tuple[str, str]  # what is mixed, and the mixtures, as the legend names them

    @property
    def left_hull(self) -> bool:
        """Whether a point left the hull: the weights would not have been a distribution."""
        return not self.geometry.inside_hull.all()


def rnn_path(trace: Trace) -> PathView:
    """An RNN's contexts c_t among its annotations h_s."""
    words, by_word = source_word_weights(trace, trace.read(RNN_READING))
    return PathView(context_geometry(trace), words, by_word, RNN_POINTS)


def head_path(trace: Trace, kinds: dict[Kind, AttentionMap], reading: Reading) -> PathView:
    """One cross-attention head's outputs among its own value vectors (``reading`` names one head; ``kinds``: the
    sentence's attentions, the cross-attention read with its values)."""
    words, by_word = source_word_weights(trace, trace.read(reading))
    return PathView(head_geometry(kinds[Kind.CROSS], reading.layer, reading.head), words, by_word, HEAD_POINTS)


@dataclass(frozen=True, eq=False)
class EnergyView:
    """One attention energy of an RNN taken apart: the terms that add up to it, largest first."""

    score: str  # the model's score: "additive" or "dot"
    label: str  # how people know it: "Additive (Bahdanau)"
    energy: float  # the sum of the terms
    own_energy: float  # the energy the model computed itself
    weight: float  # α of the cell
    units: tuple[str, ...]  # the hidden units, largest term first
    terms: np.ndarray  # [A] their terms in that order
    table: dict[str, np.ndarray]  # every part of the score by unit, in the model's order


def energy_view(model: Translator, trace: Trace, step: int, source: int) -> EnergyView:
    """The energy of step ``step`` for source piece ``source`` (0-based) taken apart."""
    parts = score_anatomy(model, trace, step, source)
    order = parts.contributions.argsort()[::-1]
    table = {"W_q s": parts.query_part, "W_k h": parts.key_part}
    if parts.hidden.size:  # the additive score's hidden layer; a dot product has none
        table |= {"sum u": parts.pre_activation, "tanh(u)": parts.hidden}
    return EnergyView(parts.score, family(parts.score).label, parts.energy,
                      float(trace.attention.read_energies(RNN_READING)[step, source]),
                      float(trace.read(RNN_READING)[step, source]), tuple(str(k) for k in order),
                      parts.contributions[order], table | {"term": parts.contributions})


def looked_at(trace: Trace, step: int) -> int:
    """The source piece the RNN's attention weighs most at ``step``: where the anatomy opens."""
    return int(trace.read(RNN_READING)[step].argmax())


def scaling(max_dim: int) -> list[dict]:
    """The scaling playground's points, every width up to ``max_dim``: the softmax of random energies scored three
    ways (``dim``, ``method``, ``max_weight``, ``entropy_bits``, ``gradient``)."""
    return [asdict(p) for p in scaling_curves([d for d in WIDTHS if d <= max_dim])]


NO_INDEX = ("Not available for this model: the nearest training states are looked up in an index of training "
            "sentences built beside a model, and none was built for this one.")


@dataclass(frozen=True)
class Unindexed:
    """Why a model's steps have no nearest training states, in a sentence: it has no index, or one that is
    ``broken``."""

    why: str
    broken: bool


Indexed = StateIndex | Unindexed


def index_stamp(loaded: LoadedModel) -> int | None:
    """When the model's neighbour index was written (None: it has none): an index built while the app runs is new."""
    file = loaded.path / INDEX_FILE
    return file.stat().st_mtime_ns if file.exists() else None


def neighbour_index(loaded: LoadedModel) -> Indexed:
    """The neighbour index beside the model, or why there is none to use."""
    try:
        index = load_index(loaded.path, loaded.model)
    except IndexFileError as e:
        return Unindexed(f"This model's neighbour index cannot be used: {e}", broken=True)
    return Unindexed(NO_INDEX, broken=False) if index is None else index


@dataclass(frozen=True, eq=False)
class NeighbourView:
    """The training states nearest to one step's decoder state, best first, and what they were searched among."""

    neighbours: tuple[Neighbour, ...]
    sources: tuple[str, ...]  # each neighbour's source sentence
    among: str  # "in N training sentences (M states, …)"


def neighbours(index: StateIndex, trace: Trace, step: int, k: int = 8) -> NeighbourView:
    """The ``k`` training states nearest to the decoder's at ``step`` (0-based)."""
    found = tuple(nearest(index, trace.states[step], k=k))
    among = (f"in {len(index.sources):,} training sentences ({len(index.vectors):,} states, cosine similarity over "
             f"{index.vectors.shape[1]} principal components keeping {index.explained:.0%} of their variance)")
    return NeighbourView(found, tuple(index.sources[n.sentence] for n in found), among)
