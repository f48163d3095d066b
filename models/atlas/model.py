"""A translator asked in a line (:func:`load` → :class:`Model`): it translates a sentence into a
:class:`~.seen.Seen`, fetches its pair's human-aligned sentences by name, and reads one of them as any matrix
against people's links (:class:`Aligned`)."""
from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .. import charts
from ..analysis.aer import AlignmentScore, alignment_score
from ..analysis.recipes import applicable, why_not
from ..nouns.link_rule import LinkRule
from ..nouns.matrix import Matrix
from ..storage.gold import GoldPair
from ..storage.hub import DEFAULT_MODEL, load_model
from ..storage.languages import Languages
from ..storage.loaded import LoadedModel
from ..views import naming, translation as translate_view
from ..views.matrix_views import GoldView, gold_pairs, gold_source, gold_view, link_rule
from .seen import MatrixLike, ReadingLike, Seen, as_matrix, as_reading

if TYPE_CHECKING:  # a chart is drawn by Altair, imported with the first chart (models.charts)
    import altair as alt


def load(ref: str = DEFAULT_MODEL, revision: str | None = None, languages: Languages | None = None,
         instruction: str | None = None, device: str | None = None) -> Model:
    """The model ``ref`` names — a bundled name (``"additive"``, ``"transformer"``, ``"decoder-only"``, …), a folder
    or a Hub repo id (its ``revision``) — set to ``languages`` (source, target: a many-to-many or chat model's own
    codes), a chat model asked with ``instruction`` (``{sentence}`` where the sentence goes), on ``device`` (auto).
    Raises :class:`~models.storage.loaded.CheckpointError` or ValueError with a sentence saying why not."""
    with quiet():
        loaded = load_model(ref, revision, device, languages=languages)
    return Model(loaded.instructed(instruction), naming.model_name(ref))


@contextmanager
def quiet() -> Iterator[None]:
    """The libraries' progress bars ("Loading weights"), logs below errors and warnings held back while a model
    loads, then set back as they were: what a notebook shows is its own."""
    from transformers.utils import logging

    bar, level = logging.is_progress_bar_enabled(), logging.get_verbosity()
    logging.disable_progress_bar()
    logging.set_verbosity_error()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        if bar:
            logging.enable_progress_bar()
        logging.set_verbosity(level)


@dataclass(frozen=True, eq=False)
class Aligned:
    """A human-aligned pair read as one matrix between its own words, beside people's links (Human links page)."""

    pair: GoldPair
    matrix: Matrix
    view: GoldView  # the app's: the word matrix [F, E] labelled with the pair's words, and a score row a rule
    rule: LinkRule  # how its links are read: chosen with the matrix on people's trial pairs where recorded

    def links(self) -> frozenset[tuple[int, int]]:
        """Its links under :attr:`rule`, ``(source word, target word)`` as the pair numbers its words."""
        return frozenset(self.rule.read(self.view.heatmap.weights))

    @property
    def score(self) -> AlignmentScore:
        """Its links against people's: AER, precision and recall (%)."""
        return alignment_score([self.links()], [self.pair.sure], [self.pair.possible])

    def heatmap(self) -> alt.LayerChart:
        """The word matrix with people's links over it: Sure as open squares, Possible as circles."""
        return charts.gold_links(self.view.heatmap, f"{self.matrix.title}, beside people's links", self.matrix.unit,
                                 self.pair.sure, self.pair.possible)


@dataclass(frozen=True, eq=False)
class Model:
    """A loaded translator (the app's :class:`~models.storage.loaded.LoadedModel`) and its name for people."""

    loaded: LoadedModel
    name: str

    @property
    def languages(self) -> Languages:
        return self.loaded.languages

    @property
    def matrices(self) -> tuple[Matrix, ...]:
        """Every matrix it can be read as (:data:`models.nouns.matrix.MATRICES` it has), in the app's order."""
        return applicable(self.loaded.model, self.loaded.fitted)

    def translate(self, text: str, beam: int = 1) -> Seen:
        """``text`` translated greedily, or the best of a beam ``beam`` wide (both as ``generate`` would for a Hub
        model); ValueError, in a sentence, for a text the model cannot read (empty, say)."""
        if beam < 1:
            raise ValueError("A beam is at least 1 wide.")
        found = translate_view.translation(self.loaded, text) if beam == 1 else translate_view.beam(
            self.loaded, text, beam)
        if isinstance(found, translate_view.Refused):
            raise ValueError(found.reason)
        return Seen(self.loaded, self.name, text, found if beam == 1 else found.hypotheses[0])

    def gold(self, split: str = "test", folder: str | Path | None = None) -> list[GoldPair]:
        """Sentence pairs people aligned by hand in its languages (``gold:en-fr``: the Hansards' 447 test and 37
        trial pairs; Romanian, Japanese and Chinese with English), fetched once from their public source and cached,
        or read from a ``folder`` of the Hansards gold; ValueError where no set links its languages."""
        found = gold_source(self.languages, Path(folder) if folder else None)
        if isinstance(found, str):
            raise ValueError(found)
        return gold_pairs(found[0], self.languages, split)

    def align(self, pair: GoldPair, matrix: MatrixLike | None = None, reading: ReadingLike = None) -> Aligned:
        """``pair``'s target forced through the model, read as ``matrix`` at ``reading`` (each None: as the
        Translate page opens) between the pair's words, and scored against people's links."""
        matrix = as_matrix(self.loaded, matrix)
        if why := why_not(matrix, self.loaded.model, self.loaded.fitted):
            raise ValueError(f"{matrix.named} cannot be read on {self.name}: {why}.")
        view = gold_view(self.loaded, pair, matrix, as_reading(self.loaded, reading))
        return Aligned(pair, matrix, view, link_rule(self.loaded, matrix))
