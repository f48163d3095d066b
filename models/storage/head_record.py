"""``heads.json`` beside a Transformer checkpoint (written by ``python -m models.heads``): each head's BLEU drop
when removed alone and its confidence, and how many heads can go before BLEU falls by the budget."""
from __future__ import annotations

import json
from pathlib import Path

HEADS_FILE = "heads.json"


def read_heads(directory: str | Path) -> dict | None:
    """The head-importance record beside a checkpoint, or None without one."""
    path = Path(directory) / HEADS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def importance_grid(record: dict, measure: str = "drop") -> tuple[list[str], list[str], list[list[float]]]:
    """``measure`` of every head as a grid: rows ``cross 1``, ``encoder 2`` … (kind and layer), columns its heads."""
    rows = sorted({(r["kind"], r["layer"]) for r in record["heads"]}, key=lambda k: (("cross", "encoder",
                                                                                       "decoder").index(k[0]), k[1]))
    heads = sorted({r["head"] for r in record["heads"]})
    value = {(r["kind"], r["layer"], r["head"]): r[measure] for r in record["heads"]}
    return ([f"{kind} {layer}" for kind, layer in rows], [f"head {h}" for h in heads],
            [[value.get((kind, layer, h)) for h in heads] for kind, layer in rows])


def heads_table(directory: str | Path) -> str:
    """The card's section: the five heads whose removal costs most, and the pruning's count."""
    record = read_heads(directory)
    if record is None:
        return "Not measured yet: run `python -m models.heads --data …`."
    top = sorted(record["heads"], key=lambda r: -r["drop"])[:5]
    rows = "\n".join(f"| {r['kind']} | {r['layer']} | {r['head']} | {r['drop']:.2f} | {r['confidence']:.2f} |"
                     for r in top)
    prune = record["pruning"]
    return (f"On {record['sentences']} validation sentences (greedy cased BLEU {prune['base_bleu']:.1f}); the five "
            "heads whose removal alone costs most:\n\n| attention | layer | head | BLEU drop | confidence |\n"
            f"|---|---|---|---|---|\n{rows}\n\n{prune['can_go']} of {prune['of']} heads can be switched off, most "
            f"unimportant first, before BLEU falls by more than {prune['budget']:g}.\n\n    {record['command']}")
