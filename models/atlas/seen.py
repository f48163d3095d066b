"""One translation as the atlas saw it (:class:`Seen`): its trace and attention, read as any registered matrix
(:class:`Read`: the app's matrix view and its word links) and drawn with the app's own charts."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .. import charts
from ..analysis.heatmaps import hard_alignments, pharaoh
from ..analysis.contributions import Layered
from ..analysis.recipes import why_not
from ..decoding.trace import Trace
from ..nouns.attention_map import AttentionMap, Kind, NamedKind, Reading
from ..network.tokenization import is_marker
from ..nouns.link_rule import LinkRule
from ..nouns.matrix import Matrix, matrix_named
from ..storage.loaded import LoadedModel
from ..views import inside, kinds as kind_views, naming, translation as translate_view
from ..views.naming import matrix_choice
from ..views.prose import NOT_COMPARABLE
from ..views.matrix_views import MatrixView, compared, link_rule, matrix_view

if TYPE_CHECKING:  # a chart is drawn by Altair, imported with the first chart (models.charts)
    import altair as alt

#: A matrix as asked for: its record, or its name (``"attention"``, ``"fit to human links"``, …).
MatrixLike = Matrix | str
#: A reading as asked for: the record, its key as the app's links write it (``"1.4"``, ``"2.mean"``,
#: ``"1.4.shifted"``), or None for the one the Translate page opens on: the head the model aligns with, at the
#: writing step (its card may say it aligns best one step later: ask for ``"….shifted"``).
ReadingLike = Reading | str | None


def as_reading(loaded: LoadedModel, reading: ReadingLike) -> Reading | None:
    """``reading`` as ``loaded``'s model has it: the page's first for None (None without attention); ValueError for
    one it lacks."""
    if reading is None:
        return loaded.reading and loaded.reading.plain
    return reading if isinstance(reading, Reading) else Reading.parse(reading, loaded.model.attention_shapes)


def as_matrix(loaded: LoadedModel, matrix: MatrixLike | None) -> Matrix:
    """``matrix`` as registered: the one the Translate page opens on for None (the attention, where the model has
    it); ValueError for an unknown name."""
    if matrix is None:
        return matrix_choice(loaded, None)[1]
    return matrix_named(matrix) if isinstance(matrix, str) else matrix


@dataclass(frozen=True, eq=False)
class Read:
    """One matrix of a translation at one reading, as the Translate page draws it, with its word links."""

    loaded: LoadedModel
    view: MatrixView  # the app's: the matrix drawn, its reading, its heatmap as read and as drawn, its title
    rule: LinkRule  # how its links are read: chosen with it on people's trial pairs where recorded, else its default

    @property
    def weights(self) -> np.ndarray:
        """[T, S] the matrix between the heatmap's rows (target) and columns (source), words or pieces as read."""
        return self.view.heatmap.weights

    def links(self) -> frozenset[tuple[int, int]]:
        """Its word links under :attr:`rule`, ``(source word, target word)``, each counted among the sentence's words
        (markers — the end of sentence, a language tag, the rest of a prompt — left out)."""
        heatmap = self.view.heatmap
        rows = [t for t, label in enumerate(heatmap.rows) if not is_marker(label)]
        columns = [s for s, label in enumerate(heatmap.columns) if not is_marker(label)]
        return frozenset(self.rule.read(heatmap.weights[np.ix_(rows, columns)]))

    def pharaoh(self) -> str:
        """Each target word's most weighed source word as the app's Pharaoh download writes it (``"0-0 1-2 …"``)."""
        return pharaoh(hard_alignments(self.view.heatmap))

    def heatmap(self) -> alt.Chart:
        """The Translate page's main heatmap of this reading: the same chart, title and click selection."""
        model = self.loaded.model
        shown = translate_view.heatmap(model, self.view, model.steps_kind, self.view.reading, None)
        return charts.heatmap(shown.heatmap, shown.title, clickable=shown.stepwise, measure=self.view.matrix.unit)


@dataclass(frozen=True, eq=False)
class Seen:
    """A sentence, the model's translation of it and everything read of it (each matrix computed once)."""

    loaded: LoadedModel
    name: str  # the model's, for people: "Transformer (multi-head)"
    text: str
    trace: Trace  # the app's: pieces, cross-attention [L, heads, T, S], energies, states, top-k
    found: dict[str, Layered] = field(default_factory=dict, repr=False)  # each matrix of the sentence, once

    @property
    def translation(self) -> str:
        return self.trace.translation

    @property
    def attention(self) -> AttentionMap | None:
        """The cross-attention, every layer and head, labelled; None for a model without attention."""
        return self.trace.attention

    @cached_property
    def kinds(self) -> dict[Kind, AttentionMap] | None:
        """Every attention of the sentence (a Transformer's encoder and decoder self-attention beside the
        cross-attention); None where the cross-attention is all the model has."""
        if len(self.loaded.model.named_kinds) < 2:
            return None
        return kind_views.sentence_kinds(self.loaded.model, self.trace, len(self.trace.target_ids))

    def read(self, matrix: MatrixLike | None = None, reading: ReadingLike = None, words: bool = True) -> Read:
        """The translation read as ``matrix`` (any of :data:`models.nouns.matrix.MATRICES` the model has) at
        ``reading``, between words or pieces (each None: as the Translate page opens); ValueError, in a sentence, for
        a matrix or reading it has not."""
        matrix = as_matrix(self.loaded, matrix)
        if why := why_not(matrix, self.loaded.model, self.loaded.fitted):
            raise ValueError(f"{matrix.named} cannot be read on {self.name}: {why}.")
        chosen = as_reading(self.loaded, reading)
        view = matrix_view(self.loaded, self.trace, matrix, chosen, words, found=self.found)
        return Read(self.loaded, view, link_rule(self.loaded, view.matrix))

    def heatmap(self, matrix: MatrixLike | None = None, reading: ReadingLike = None, words: bool = True
                ) -> alt.Chart:
        """The Translate page's heatmap: ``matrix`` at ``reading`` (as the page opens), hover for each cell's
        weight."""
        return self.read(matrix, reading, words).heatmap()

    def heads(self, layer: int | None = None, kind: str = Kind.CROSS, words: bool = True) -> alt.FacetChart:
        """The heads of ``layer`` (counted from 1, as the app's labels count) side by side, or every layer × head
        for None (bertviz's model view), of the attention ``kind`` (``cross``, ``encoder``, ``decoder``); the
        model's own head marked ▶. ValueError for a model with one head a layer, or a layer or kind it lacks."""
        model = self.loaded.model
        named = self._kind(kind)
        layers, heads = model.attention_shapes[named.key]
        if heads < 2:
            raise ValueError(f"{self.name} has one attention head a layer: the heatmap is the whole of it.")
        if layer is not None and not 1 <= layer <= layers:
            raise ValueError(f"{self.name} has layers 1 to {layers}; there is no layer {layer}.")
        shown = range(layers) if layer is None else range(layer - 1, layer)
        grid = kind_views.head_grid(self.trace, self.kinds, named, self.loaded.reading, words, shown)
        return charts.head_grid(list(grid.views), list(grid.titles), grid.selected, columns=grid.columns)

    def _kind(self, key: str) -> NamedKind:
        found = {k.key: k for k in self.loaded.model.named_kinds}
        if key not in found:
            raise ValueError(f"{self.name} has no {key!r} attention; it has {', '.join(map(str, found))}.")
        return found[key]

    def context_path(self, reading: ReadingLike = None) -> alt.LayerChart:
        """The Context vectors page's path: an RNN's contexts c_t among its annotations h_s, or one Transformer
        head's outputs among its value vectors (``reading``: one head, the model's own by default), in their PCA
        plane. ValueError where the model keeps neither."""
        if self.trace.rnn is not None:
            path = inside.rnn_path(self.trace)
        else:
            chosen = as_reading(self.loaded, reading)
            cross = (self.kinds or {}).get(Kind.CROSS)
            if chosen is None or cross is None or cross.values is None:
                raise ValueError(f"{self.name} keeps no contexts or value vectors to draw a path among.")
            if chosen.head is None:
                raise ValueError(inside.ONE_HEAD)
            path = inside.head_path(self.trace, self.kinds, chosen)
        return charts.context_path(path.geometry, charts.source_text(self.trace),
                                   charts.piece_text(self.trace.target_pieces), self.name, path.points)

    def compare(self, other: Seen, words: bool = True) -> alt.Chart:
        """The Compare page's difference: this model's reading minus ``other``'s (each its model's own, at the
        writing step), both forced to this translation so that the rows are the same; ValueError where either has
        no attention or the two cut the sentence into different words."""
        if not (self.loaded.reading and other.loaded.reading):
            raise ValueError("Two models with attention are compared: a model without it has no weights.")
        forced = translate_view.translation(other.loaded, self.text, self.translation)
        if isinstance(forced, translate_view.Refused):
            raise ValueError(forced.reason)
        readings = tuple(loaded.reading.plain for loaded in (self.loaded, other.loaded))  # both at the writing step
        names = naming.two_sides(self.name, other.name)
        found = compared((self.trace, forced), readings, words, names)
        if found.comparison is None:
            raise ValueError(NOT_COMPARABLE)
        return charts.difference_heatmap(found.comparison.difference, found.views[0], names)
