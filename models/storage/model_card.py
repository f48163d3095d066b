"""What a model's card (its ``README.md``: YAML metadata, then text) says that the app shows: the licence, and
whether one head was trained to align.

OPUS-MT's cards name the recipe a model was trained with ("model: transformer-align"). That recipe is Marian's
guided alignment: during training a loss pulled the weights of **head 0 of the last decoder layer** (Marian's
default ``--transformer-guided-alignment-layer last``; it supervises that layer's first head) toward word links
from a statistical aligner (OPUS-MT-train: eflomal, symmetrised grow-diag-final). So that one head of the model's
cross-attention is a distilled aligner, and every other head attends as it learned to. Where a card says nothing,
nothing is claimed.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from huggingface_hub import ModelCard

from ..decoding.trace import Reading

CARD_FILE = "README.md"
MAX_CARD_BYTES = 1_000_000  # a card is text; a larger README is not read

_GUIDED = re.compile(r"^\W*model:\s*transformer-align\b", re.IGNORECASE | re.MULTILINE)

#: What the supervised head is, in one sentence for the pages.
SUPERVISION = ("Its card says it was trained transformer-align: Marian's guided alignment pulled the first head of the "
               "last decoder layer toward word links from a statistical aligner (OPUS-MT: eflomal, grow-diag-final), "
               "so that head is an aligner by design; the other heads attend as they learned to.")


@dataclass(frozen=True)
class CardFacts:
    """What the card of one model says (each None or False where it says nothing)."""

    licence: str | None
    guided_alignment: bool  # trained "transformer-align"

    def supervised_head(self, shape: tuple[int, int]) -> Reading | None:
        """The cross-attention head guided alignment trained, in a model shaped ``(L, heads)``; None if none was."""
        return Reading(shape[0] - 1, 0) if self.guided_alignment and shape[1] > 0 else None


def read_card(directory: str | Path) -> CardFacts:
    """The facts of the card in ``directory``: nothing when it has none, or one that cannot be read."""
    path = Path(directory) / CARD_FILE
    if not path.is_file() or path.stat().st_size > MAX_CARD_BYTES:
        return CardFacts(None, False)
    try:
        card = ModelCard.load(path, ignore_metadata_errors=True)
    except (OSError, ValueError, yaml.YAMLError):  # a stranger's card never fails a load (UnicodeError: ValueError)
        return CardFacts(None, False)
    licence = card.data.license
    return CardFacts(str(licence) if licence else None, bool(_GUIDED.search(card.text)))
