"""Which matrix to believe, from what a checkpoint's folder records: each matrix scored against people
(``alignment.json``'s ``--matrix all`` rows, each reading and rule chosen on the trial set) and against the model
itself (``faithfulness.json``, written by ``python -m models.faithfulness --save``) — one row per matrix, for the
card and the app's Models page.

Against people, the row is the reading with the lowest AER on the *trial* set, its test AER shown: chosen without
the test set. Against the model, the row is the layer (or head) with the highest comprehensiveness on the
sentences scored; there is no held-out set for it, so each matrix shows its best, the random ranking its only one.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from .gold import ALIGNMENT_FILE, read_alignment

FAITHFULNESS_FILE = "faithfulness.json"


def read_faithfulness(directory: str | Path) -> dict | None:
    """The faithfulness record beside a checkpoint (``rows``, ``data``, ``sentences``, ``command``), or None."""
    path = Path(directory) / FAITHFULNESS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _best(rows: Iterable[dict], score: str, sign: int) -> dict[str, dict]:
    """Each matrix's row with the lowest ``sign · score`` (sign −1: the highest score), rows without it skipped;
    the first of equals kept."""
    best: dict[str, dict] = {}
    for r in rows:
        if score in r and (r["matrix"] not in best or sign * r[score] < sign * best[r["matrix"]][score]):
            best[r["matrix"]] = r
    return best


def aligned(directory: str | Path) -> dict[str, dict]:
    """Each matrix's ``--matrix all`` row with the lowest trial AER."""
    return _best(read_alignment(Path(directory) / ALIGNMENT_FILE), "trial aer", 1)


def reading_scores(directory: str | Path) -> list[dict]:
    """One row per matrix: its AER (reading and rule chosen on the trial set) and its deletion scores (best
    reading), either missing where not measured; [] when neither was."""
    record = read_faithfulness(directory)
    best, explained = aligned(directory), _best(record["rows"] if record else (), "comprehensiveness", -1)
    rows = []
    for matrix in dict.fromkeys([*best, *explained]):
        a, f = best.get(matrix), explained.get(matrix)
        rows.append({"matrix": matrix,
                     "aligned at": f"{a.get('reading', '—')}, {a['method']}" if a else "",
                     "AER %": a["aer"] if a else None, "trial AER %": a["trial aer"] if a else None,
                     "explained at": f.get("reading", "—") if f else "",
                     "comprehensiveness": f["comprehensiveness"] if f else None,
                     "sufficiency": f["sufficiency"] if f else None})
    return rows


def _cell(value) -> str:
    return "" if value is None else f"{value:.1f}" if isinstance(value, float) and abs(value) >= 10 else str(value)


def reading_table(directory: str | Path) -> str:
    """The card's table of :func:`reading_scores` with the commands that measured it."""
    rows = reading_scores(directory)
    if not rows:
        return ("Not measured yet: run `python -m models.align --matrix all --save` and "
                "`python -m models.faithfulness --save`.")
    names = list(rows[0])
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(_cell(r[n]) for n in names) + " |" for r in rows]
    record = read_faithfulness(directory)
    commands = [r["command"] for r in read_alignment(Path(directory) / ALIGNMENT_FILE) if "trial aer" in r][:1]
    commands += [record["command"]] if record else []
    said = (f" Deletion scores on the first {record['sentences']} sentences of {record['data']}, the model's own "
            "greedy translations, in nats, each matrix at its best layer there (random has one)." if record else "")
    return ("\n".join(lines) + f"\n\nAER: lower is better. Comprehensiveness: how far log p of the written piece "
            f"falls with the 1–{record['deletions'] if record else 5} source words a matrix ranks highest masked "
            f"(higher is better); sufficiency: with only them kept (lower is better).{said}\n\n"
            + "\n".join("    " + c for c in commands))
