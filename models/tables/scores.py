"""Corpus scores with sacreBLEU: BLEU (cased and lowercased) and chrF against every reference, and cased BLEU within
each source-length bucket (Bahdanau et al. 2015, Figure 2). ``models.evaluate`` reports them, and a corpus table's
summary is computed by the same functions, so the two agree."""
from __future__ import annotations

from sacrebleu.metrics import BLEU, CHRF

from ..storage.cards.render import LENGTH_BUCKETS
from ..storage.data import reference_streams


def scores(hyps: list[str], refs: list[list[str]]) -> tuple[dict, dict]:
    """BLEU, lowercased BLEU and chrF of ``hyps`` against every reference, and the metrics' signatures."""
    metrics = {"bleu": BLEU(), "bleu_lc": BLEU(lowercase=True), "chrf": CHRF()}
    values = {k: m.corpus_score(hyps, reference_streams(refs)).score for k, m in metrics.items()}
    return values, {k: str(m.get_signature()) for k, m in metrics.items()}


def by_length(sources: list[str], hyps: dict[str, list[str]], refs: list[list[str]]) -> list[dict]:
    """Cased BLEU of each decoding within each source-length bucket."""
    rows = []
    for lo, hi in LENGTH_BUCKETS:
        idx = [i for i, s in enumerate(sources) if lo <= len(s.split()) <= hi]
        if not idx:
            continue
        row = {"min_words": lo, "max_words": hi, "sentences": len(idx)}
        for mode, h in hyps.items():
            streams = reference_streams([refs[i] for i in idx])
            row[f"{mode}_bleu"] = BLEU().corpus_score([h[i] for i in idx], streams).score
        rows.append(row)
    return rows
