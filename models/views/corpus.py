"""What the Corpus page draws: where a table's sentences come from (a data folder's test splits, the pair's public
test sets by name, the app's examples, pasted or uploaded lines), the models as the table's sides, its rows a batch
at a time, and its figures in rows and words — :mod:`models.tables` beneath it, sentences by name from
:mod:`models.datasets`.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..datasets.sentences import (
    MAX_BYTES,
    Sentences,
    SentencesError,
    as_text,
    found_test_sets,
    parse_lines,
    read_named,
    with_links,
)
from ..datasets.test_sets import TestSet, TestSetError, is_cached, sets_for_pair
from ..decoding.lines import BATCH
from ..nouns.attention_map import Reading
from ..storage.cards.render import bucket_label
from ..storage.examples import examples_file, load_examples
from ..storage.languages import Languages, assumed, language_key
from ..storage.loaded import LoadedModel
from ..tables.columns import AGREEMENT, JSD, PAIR_STATS, SENTENCE, STATS, column, order, parse
from ..tables.files import table_csv, table_json
from ..tables.rows import Side, batch_rows, different_pairs, language_refusal, sides, summary

EXAMPLES = "the app's example sentences"
#: The most characters a pasted text holds (a tenth of the largest file read).
MAX_PASTED = MAX_BYTES // 10


@dataclass(frozen=True)
class Sources:
    """Where a table's sentences may come from for a model of one pair."""

    pair: Languages  # the model's pair, as it says or as assumed (English→French where it says nothing)
    folders: dict[str, tuple[Path, str]]  # a data folder's test splits, by label: (folder, split)
    public: tuple[TestSet, ...]  # sacreBLEU's sets of the pair, those already cached first
    cached: frozenset[TestSet]


def sources(data_folder: str | Path, languages: Languages) -> Sources:
    """The sentence sets a model of ``languages`` can be given beside examples and the visitor's own lines."""
    pair = assumed(languages)
    public = sets_for_pair(pair)
    cached = frozenset(t for t in public if is_cached(t))
    return Sources(pair, found_test_sets(data_folder), tuple(sorted(public, key=lambda t: t not in cached)), cached)


def examples(source: str | None) -> Sentences:
    """The app's curated sentences in ``source`` (a model's source language), or the English ones where there are
    none in it (the table then says why it cannot be made) or the model does not say."""
    language = "en" if source is None else language_key(source)
    language = language if examples_file(language).is_file() else "en"
    return Sentences(EXAMPLES, tuple(e.text for e in load_examples(examples_file(language))), None,
                     languages=(language, None))


def from_public(test_set: TestSet, languages: Languages, max_mb: float | None) -> Sentences:
    """A public test set read in the direction of ``languages`` (:attr:`Sources.pair`), fetched once (at most
    ``max_mb``)."""
    return read_named(test_set.spec, languages, "test", max_mb)


def pasted(text: str) -> Sentences:
    return parse_lines(text, "pasted lines")


def uploaded(data: bytes, name: str, links: bytes | None = None) -> Sentences:
    """An uploaded file's lines, with an optional file of human links (a line per pair)."""
    found = parse_lines(as_text(data, name), name)
    return with_links(found, links) if links is not None else found


def problem(error: Exception) -> str:
    """What a visitor is told when sentences cannot be read (raw text: escape it for its renderer)."""
    if isinstance(error, (SentencesError, TestSetError)):
        return str(error)
    return f"These sentences cannot be read: {error}"  # a test set whose files disagree


@dataclass(frozen=True, eq=False)
class Table:
    """The models of one table, each a side with its column name and the reading of its attention."""

    sides: tuple[Side, ...]

    @classmethod
    def of(cls, loaded: Sequence[LoadedModel], names: Sequence[str], readings: Sequence[str | None]) -> Table:
        """``loaded`` models under ``names``, each read at the reading key given (None: its own)."""
        parsed = [key and Reading.parse(key, m.model.attention_shape) for m, key in zip(loaded, readings)]
        return cls(tuple(sides(loaded, names, parsed)))

    def other_pair(self) -> str | None:
        """Why the second model cannot share the first one's table (another language pair), or None."""
        return different_pairs(self.sides)

    def refusal(self, sentences: Sentences) -> str | None:
        """Why these models cannot make a table of these sentences (their languages), or None."""
        return language_refusal(self.sides, sentences)

    def rows(self, sentences: Sentences, start: int, stop: int) -> list[dict]:
        """Rows ``start`` to ``stop`` of the table, by column name."""
        return batch_rows(self.sides, sentences, start, stop)

    def figures(self, sentences: Sentences, rows: list[dict]) -> Figures:
        """The corpus-level figures of ``rows``, the rows done so far."""
        return Figures(summary(self.sides, sentences, rows), rows)


def within_limit(sentences: Sentences, most: int | None, seconds: float | None) -> tuple[Sentences, str | None]:
    """The first ``most`` of ``sentences`` (None: no limit), and what a public server says of its limits before it
    computes anything (None when the sentences are within them); ``seconds``: its limit on one request's work."""
    if most is None or len(sentences) <= most:
        return sentences, None
    spent = f" and spends at most {seconds:g} s on one request" if seconds is not None else ""
    return sentences.first(most), (f"This server translates at most {most} sentences a table{spent}: the first "
                                   f"{most} of {len(sentences):,} are used. Run the app on your own "
                                   "computer for the whole set.")


def compare_link(sides: Sequence[tuple[str, str | None, str | None]]) -> dict[str, str]:
    """The Compare scoring page's query string for two models, each a (reference, revision, reading key)."""
    params = {}
    for side, (ref, revision, reading) in zip(("left", "right"), sides):
        params |= {side: ref} | ({f"{side}_rev": revision} if revision else {}) | (
            {f"{side}_head": reading} if reading else {})
    return params


def numeric(frame: pd.DataFrame) -> list[str]:
    """The table's columns of numbers a chart can show (the sentence's number aside, and one without a value: BLEU
    of sentences without references would draw an empty chart)."""
    return [c for c in frame.columns if c != SENTENCE[0] and pd.api.types.is_numeric_dtype(frame[c])
            and frame[c].notna().any()]


def batches(done: int, n: int) -> Iterator[tuple[int, int]]:
    """The (start, stop) of each batch still to compute of ``n`` rows, ``done`` done: as ``models.evaluate`` batches."""
    return ((start, min(start + BATCH, n)) for start in range(done, n, BATCH))


@dataclass(frozen=True, eq=False)
class Figures:
    """The table's rows and its corpus-level figures (:func:`models.tables.rows.summary`), in rows and words."""

    summary: dict
    rows: list[dict]

    def by_model(self) -> pd.DataFrame:
        """A row a model: corpus BLEU and chrF (where there are references) and the mean of each statistic, to
        three decimals; a column no model has a figure in is left out."""
        rows = [{"model": name, "corpus BLEU": entry.get("scores", {}).get("bleu"),
                 "corpus chrF": entry.get("scores", {}).get("chrf"),
                 **{f"mean {k}": v for k, v in entry["means"].items() if k not in ("BLEU", "chrF")}}
                for name, entry in self.summary["models"].items()]
        return pd.DataFrame(rows).dropna(axis=1, how="all").round(3)

    def pair_line(self) -> str:
        """The two models' mean disagreement, in Markdown ("" with one model)."""
        pair = self.summary["pair"]
        if pair.get(JSD) is None:
            return ""
        return (f"On the first model's translations forced through both, the two attentions diverge by "
                f"**{pair[JSD]:.3f} bits** a word on average (Jensen–Shannon), and look hardest at the same source "
                f"word for **{100 * pair[AGREEMENT]:.1f} %** of the words.")

    def by_length(self) -> list[dict]:
        """Each model's BLEU by source length (the paper's Figure 2), where there are references."""
        return [{"model": name, "source words": bucket_label(b["min_words"], b["max_words"]), "first": b["min_words"],
                 "BLEU": b["greedy_bleu"], "sentences": b["sentences"]}
                for name, entry in self.summary["models"].items() for b in entry.get("by_length", [])]

    def columns(self, names: Sequence[str]) -> list[str]:
        """The table's columns as shown: the sentence's own, then each model's, then the pair's (:func:`order`);
        a column no sentence has a value in (BLEU without references) is left out, not drawn as empty cells."""
        frame = pd.DataFrame(self.rows)
        return order([c for c in frame.columns if frame[c].notna().any()], names)

    def csv(self) -> str:
        """The rows, a line each."""
        return table_csv(self.rows)

    def json(self) -> str:
        """The rows and these figures, as ``models.corpus --out`` writes them."""
        return table_json(self.rows, self.summary)


#: What a column of texts holds, of a model or of the sentence (the rest are numbers).
TEXTS = ("source", "reference", "translation")


def shown(frame: pd.DataFrame, names: Sequence[str], containing: str, by: str, highest: bool) -> pd.DataFrame:
    """The table's rows whose source, references or translations contain ``containing`` (any case; "" keeps every
    row), sorted by column ``by`` (rows without a value last; ties keep the sentences' order)."""
    wanted = containing.strip().lower()
    if wanted:
        texts = frame[[c for c in frame.columns if parse(c, names)[1] in TEXTS]]
        frame = frame[texts.apply(lambda c: c.str.lower().str.contains(wanted, regex=False, na=False)).any(axis=1)]
    return frame.sort_values(by, ascending=not highest, na_position="last", kind="stable")


def meanings(names: Sequence[str]) -> dict[str, str]:
    """What each statistic's column means, for every model named and for the pair."""
    return {**{column(name, stat): text for name in names for stat, text in STATS.items()}, **PAIR_STATS}


def statistics(columns: Sequence[str], names: Sequence[str]) -> list[str]:
    """The statistics among numeric ``columns``, each once though several models have it."""
    return list(dict.fromkeys(parse(c, names)[1] for c in columns if c != "words"))


def statistic_columns(stat: str, columns: Sequence[str], names: Sequence[str]) -> dict[str, str]:
    """The columns holding ``stat``: the pair's own, else each model's, by model name."""
    if stat in columns:
        return {stat: stat}
    return {name: column(name, stat) for name in names if column(name, stat) in columns}


def first_y(columns: Sequence[str], names: Sequence[str]) -> str:
    """The statistic a scatter shows first: the two models' divergence, else the first model's entropy."""
    return next((c for c in (JSD, column(names[0], "entropy")) if c in columns), columns[-1])


def first_sort(columns: Sequence[str]) -> tuple[str, bool]:
    """The column a table is sorted by first, and whether highest first: the two models' divergence, where there
    are two, else the sentences' order."""
    return (JSD, True) if JSD in columns else (SENTENCE[0], False)
