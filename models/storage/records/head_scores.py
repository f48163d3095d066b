"""``heads.json`` beside a Transformer checkpoint (written by ``python -m models.heads``): each head's BLEU drop
when removed alone and its confidence, and how many heads can go before BLEU falls by the budget — a typed record,
read strictly (:mod:`.strict`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...nouns.attention_map import KINDS, Kind
from .strict import read_record, read_record_file, write_record_file

HEADS_FILE = "heads.json"


@dataclass(frozen=True)
class HeadScore:
    """One head switched off alone."""

    kind: Kind
    layer: int  # 1-based
    head: int  # 1-based
    bleu_without: float
    drop: float  # the whole model's BLEU minus bleu_without
    confidence: float  # its largest weight, averaged (Voita et al. 2019)


@dataclass(frozen=True)
class PruningPoint:
    removed: int
    bleu: float


@dataclass(frozen=True)
class Pruning:
    """Heads switched off most unimportant first until BLEU fell by more than the budget."""

    base_bleu: float
    budget: float
    can_go: int
    of: int
    curve: tuple[PruningPoint, ...]
    removed: tuple[str, ...]  # "decoder 3.3", in the order they went


@dataclass(frozen=True)
class HeadsRecord:
    model: str
    data: tuple[str, ...]
    sentences: int
    heads: tuple[HeadScore, ...]
    pruning: Pruning
    command: str


def heads_record(found: dict) -> HeadsRecord:
    """The record ``python -m models.heads`` measured (as JSON); ValueError for anything else."""
    return read_record(HeadsRecord, found, HEADS_FILE)


def write_heads(record: HeadsRecord, path: Path) -> Path:
    return write_record_file(record, path)


def read_heads(directory: str | Path) -> HeadsRecord | None:
    """The head-importance record beside a checkpoint, or None without one."""
    return read_record_file(HeadsRecord, Path(directory) / HEADS_FILE)


def importance_grid(record: HeadsRecord, measure: str = "drop") -> tuple[list[str], list[str], list[list[float]]]:
    """``measure`` of every head as a grid: rows ``cross 1``, ``encoder 2`` … (kind and layer), columns its heads."""
    rows = sorted({(r.kind, r.layer) for r in record.heads}, key=lambda k: (KINDS.index(k[0]), k[1]))
    heads = sorted({r.head for r in record.heads})
    value = {(r.kind, r.layer, r.head): getattr(r, measure) for r in record.heads}
    return ([f"{kind} {layer}" for kind, layer in rows], [f"head {h}" for h in heads],
            [[value.get((kind, layer, h)) for h in heads] for kind, layer in rows])


def heads_table(directory: str | Path) -> str:
    """The card's section: the five heads whose removal costs most, and the pruning's count."""
    record = read_heads(directory)
    if record is None:
        return "Not measured yet: run `python -m models.heads --data …`."
    top = sorted(record.heads, key=lambda r: -r.drop)[:5]
    rows = "\n".join(f"| {r.kind} | {r.layer} | {r.head} | {r.drop:.2f} | {r.confidence:.2f} |" for r in top)
    prune = record.pruning
    return (f"On {record.sentences} validation sentences (greedy cased BLEU {prune.base_bleu:.1f}); the five "
            "heads whose removal alone costs most:\n\n| attention | layer | head | BLEU drop | confidence |\n"
            f"|---|---|---|---|---|\n{rows}\n\n{prune.can_go} of {prune.of} heads can be switched off, most "
            f"unimportant first, before BLEU falls by more than {prune.budget:g}.\n\n    {record.command}")
