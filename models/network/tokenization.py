"""Subword tokenisation with Hugging Face ``tokenizers`` (BPE, SentencePiece-style).

Text is NFKC-normalised, split on spaces with a ``▁`` word marker and on
punctuation, then cut into BPE pieces. Characters never seen in training
(emoji, CJK, …) become ``<unk>``; the original text of each piece is kept
from the encoding's offsets so the app can show and flag it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

from tokenizers import Tokenizer, decoders, normalizers, pre_tokenizers, trainers
from tokenizers.models import BPE

PAD, UNK, BOS, EOS = "<pad>", "<unk>", "<s>", "</s>"
SPECIALS = (PAD, UNK, BOS, EOS)
PAD_ID, UNK_ID, BOS_ID, EOS_ID = range(4)
WORD_MARK = "▁"
#: How a many-to-many model's language tag (``__fr__``, ``fra_Latn``, ``fr_XX``) is shown: its code in these
#: brackets, never a word — neither a source word a heatmap column stands for nor a target word the model chose.
TAG_OPEN, TAG_CLOSE = "⟨", "⟩"
#: The piece that stands for each piece of a prompt around the sentence (T5's "translate English to French: ", a
#: chat template and its instruction): every such piece is one column, "the rest of the prompt", never a word.
PROMPT = f"{TAG_OPEN}rest of the prompt{TAG_CLOSE}"
SOURCE_FILE, TARGET_FILE = "source_tokenizer.json", "target_tokenizer.json"


class InputError(ValueError):
    """Text that cannot be translated (e.g. empty); the message is for users."""


@dataclass(frozen=True)
class Encoded:
    """A source sentence ready for the encoder (EOS included)."""

    ids: tuple[int, ...]
    pieces: tuple[str, ...]  # BPE pieces with the ▁ word marker
    surfaces: tuple[str, ...]  # the original text each piece covers
    unknown: tuple[bool, ...]  # True where the piece is <unk>
    truncated: bool  # True when the text was cut to the length cap
    prompt: str = ""  # the whole text the model reads, where it is more than the sentence (a T5 task prefix, a chat
    # prompt); its pieces that are not the sentence are PROMPT, so no word, link or statistic counts them


def train_tokenizer(lines: Iterable[str], vocab_size: int) -> Tokenizer:
    """Train a BPE tokenizer whose first ids are :data:`SPECIALS`."""
    tok = Tokenizer(BPE(unk_token=UNK))
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Metaspace(replacement=WORD_MARK), pre_tokenizers.Punctuation()]
    )
    tok.decoder = decoders.Metaspace(replacement=WORD_MARK)
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size, special_tokens=list(SPECIALS), min_frequency=2, show_progress=False
    )
    tok.train_from_iterator(lines, trainer=trainer)
    return tok


class SubwordTokenizer:
    """A trained ``tokenizers.Tokenizer`` with this project's conventions."""

    def __init__(self, tokenizer: Tokenizer):
        for i, special in enumerate(SPECIALS):
            if tokenizer.token_to_id(special) != i:
                raise ValueError(f"tokenizer must map {special} to id {i}")
        self.tokenizer = tokenizer

    @classmethod
    def load(cls, path: str | Path) -> SubwordTokenizer:
        return cls(Tokenizer.from_file(str(path)))

    def save(self, path: str | Path) -> None:
        self.tokenizer.save(str(path))

    #: The ids a source sentence's own sit between as the model reads them: nothing before, EOS after.
    frame: tuple[tuple[int, ...], tuple[int, ...]] = ((), (EOS_ID,))

    @property
    def backend(self) -> Tokenizer:
        """The ``tokenizers.Tokenizer`` that cuts the pieces (the piece cache batches it and keys on it)."""
        return self.tokenizer

    @property
    def vocab_size(self) -> int:
        return self.tokenizer.get_vocab_size()

    def encode(self, text: str, max_tokens: int) -> Encoded:
        """Pieces of ``text`` plus EOS, at most ``max_tokens`` in all."""
        if not text.strip():
            raise InputError("Type a sentence to translate.")
        enc = self.tokenizer.encode(text, add_special_tokens=False)
        keep = max_tokens - 1
        ids, pieces, offsets = enc.ids[:keep], enc.tokens[:keep], enc.offsets[:keep]
        surfaces = [text[a:b].strip() or p for p, (a, b) in zip(pieces, offsets)]
        return Encoded(
            ids=(*ids, EOS_ID),
            pieces=(*pieces, EOS),
            surfaces=(*surfaces, EOS),
            unknown=(*(i == UNK_ID for i in ids), False),
            truncated=len(enc.ids) > keep,
        )

    def ids(self, text: str) -> list[int]:
        """Piece ids without specials (for training targets)."""
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return [self.tokenizer.id_to_token(i) for i in ids]

    def decode(self, ids: Iterable[int]) -> str:
        """Normal text for piece ids; specials are dropped."""
        return self.tokenizer.decode([i for i in ids if i >= len(SPECIALS)])


@runtime_checkable
class PieceTokenizer(Protocol):
    """What decoding, analysis and the app ask of one side's tokenizer, whatever its family: this project's
    :class:`SubwordTokenizer` and a Hugging Face model's (:class:`~.hf.tokenizer.HFTokenizer`) both are one.
    Pieces carry SentencePiece's ``▁`` word marker, so words join the same way for every family."""

    @property
    def vocab_size(self) -> int: ...

    def encode(self, text: str, max_tokens: int) -> Encoded:
        """The pieces of ``text`` and EOS, at most ``max_tokens`` in all (InputError for empty text)."""
        ...

    def ids(self, text: str) -> list[int]:
        """The ids a decoder writes for ``text`` before its EOS: its pieces, after a many-to-many target side's
        language tag."""
        ...

    def pieces(self, ids: Iterable[int]) -> list[str]:
        """Each id's piece (EOS as ``</s>``, a language tag as :func:`language_tag` writes it)."""
        ...

    def decode(self, ids: Iterable[int]) -> str:
        """Normal text for piece ids, specials and language tags dropped."""
        ...


@dataclass(frozen=True)
class TokenizerPair:
    """The source side's tokenizer and the target side's (one object for both, with a shared vocabulary)."""

    source: PieceTokenizer
    target: PieceTokenizer

    @classmethod
    def load(cls, directory: str | Path) -> TokenizerPair:
        d = Path(directory)
        return cls(SubwordTokenizer.load(d / SOURCE_FILE), SubwordTokenizer.load(d / TARGET_FILE))

    def save(self, directory: str | Path) -> None:
        """This project's tokenizers as a checkpoint holds them (a Hugging Face model's keep its own files)."""
        d = Path(directory)
        self.source.save(d / SOURCE_FILE)
        self.target.save(d / TARGET_FILE)


def language_tag(code: str) -> str:
    """The piece that stands for the language tag of ``code`` (the model's own code): ``⟨fra_Latn⟩``."""
    return f"{TAG_OPEN}{code}{TAG_CLOSE}"


def is_language_tag(piece: str) -> bool:
    """Whether a piece (or a label made of one) is a language tag as :func:`language_tag` writes it."""
    return len(piece) > 2 and piece[0] == TAG_OPEN and piece[-1] == TAG_CLOSE


def is_marker(piece: str) -> bool:
    """Whether a piece (or a label made of one) marks the sentence rather than being part of a word: BOS, EOS, PAD
    or a language tag."""
    return piece in (PAD, BOS, EOS) or is_language_tag(piece)


def word_groups(pieces: Iterable[str]) -> list[list[int]]:
    """Indices of pieces grouped into words: ``▁`` starts a word, markers (:func:`is_marker`) stand alone, and every
    :data:`PROMPT` piece, before the sentence or after it, is one group, where the first is."""
    groups: list[list[int]] = []
    previous, prompt = EOS, None
    for i, piece in enumerate(pieces):
        if piece == PROMPT and prompt is not None:
            prompt.append(i)
        elif piece.startswith(WORD_MARK) or is_marker(piece) or is_marker(previous):
            groups.append([i])
            prompt = groups[-1] if piece == PROMPT else prompt
        else:
            groups[-1].append(i)
        previous = piece
    return groups


def piece_groups(pieces: Iterable[str]) -> list[list[int]]:
    """Indices of pieces one by one, except every :data:`PROMPT` piece, which is one group where the first is (a
    heatmap's piece columns)."""
    groups: list[list[int]] = []
    prompt = None
    for i, piece in enumerate(pieces):
        if piece == PROMPT and prompt is not None:
            prompt.append(i)
        else:
            groups.append([i])
            prompt = groups[-1] if piece == PROMPT else prompt
    return groups


def word_index(pieces: Iterable[str]) -> list[int]:
    """For each piece, the index of the word (as in :func:`word_groups`) it belongs to."""
    return [w for w, group in enumerate(word_groups(pieces)) for _ in group]
