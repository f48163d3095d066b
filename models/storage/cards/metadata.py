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

from ...nouns.attention_map import Reading
from ...nouns.matrix import ATTENTION, FULL_CONTEXT, Matrix

CARD_FILE = "README.md"
MAX_CARD_BYTES = 1_000_000  # a card is text; a larger README is not read

_GUIDED = re.compile(r"^\W*model:\s*transformer-align\b", re.IGNORECASE | re.MULTILINE)
#: This project's cards name the head they trained: "Trained to align: cross-attention layer 3, head 1 …".
_OURS = re.compile(r"^\W*trained to align:\W*cross-attention layer (\d+), head (\d+)(, read one step later)?"
                   r"(, with the whole translation in view)?", re.IGNORECASE | re.MULTILINE)

#: What the supervised head is, in one sentence for the pages.
SUPERVISION = ("Its card says one head was trained to align (guided alignment, Garg et al. 2019; OPUS-MT's "
               "transformer-align): a loss pulled it toward word links from a statistical aligner (eflomal, "
               "grow-diag-final), so that head is an aligner by design; the other heads attend as they learned to.")


@dataclass(frozen=True)
class Guided:
    """The cross-attention head guided alignment trained (0-based; layer −1: the last), and where it was trained."""

    layer: int
    head: int
    shifted: bool = False  # at the step that reads each piece as its input, one step later
    full_context: bool = False  # in a pass with the decoder's future mask lifted (Garg et al. 2019's full context)


MARIAN_HEAD = Guided(-1, 0)  # Marian's guided head: the first of the last decoder layer, at the writing step


@dataclass(frozen=True)
class CardFacts:
    """What the card of one model says (each None where it says nothing)."""

    licence: str | None
    guided: Guided | None  # the head trained to align

    @property
    def aligning_matrix(self) -> Matrix:
        """The matrix the model aligns with by default: the full-context attention where its head trained to align
        was trained with the whole translation in view, else the attention."""
        return FULL_CONTEXT if self.guided and self.guided.full_context else ATTENTION

    def supervised_head(self, shape: tuple[int, int]) -> Reading | None:
        """The cross-attention head guided alignment trained, read where it was trained, in a model shaped
        ``(L, heads)``; None if none was (or the card names one the model does not have)."""
        if self.guided is None:
            return None
        g = self.guided
        fits = -shape[0] <= g.layer < shape[0] and 0 <= g.head < shape[1]
        return Reading(g.layer % shape[0], g.head, g.shifted) if fits else None


def guided_head(text: str) -> Guided | None:
    """The head a card's text says was trained to align: this project's line, or OPUS-MT's ``transformer-align``."""
    ours = _OURS.search(text)
    if ours:
        return Guided(int(ours[1]) - 1, int(ours[2]) - 1, bool(ours[3]), bool(ours[4]))
    return MARIAN_HEAD if _GUIDED.search(text) else None


def read_card(directory: str | Path) -> CardFacts:
    """The facts of the card in ``directory``: nothing when it has none, or one that cannot be read."""
    path = Path(directory) / CARD_FILE
    if not path.is_file() or path.stat().st_size > MAX_CARD_BYTES:
        return CardFacts(None, None)
    try:
        card = ModelCard.load(path, ignore_metadata_errors=True)
    except (OSError, ValueError, yaml.YAMLError):  # a stranger's card never fails a load (UnicodeError: ValueError)
        return CardFacts(None, None)
    licence = card.data.license
    return CardFacts(str(licence) if licence else None, guided_head(card.text))
