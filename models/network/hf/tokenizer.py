"""One side of a Hugging Face encoder–decoder translator's tokenizer (Marian, M2M100, NLLB-200, mBART-50, T5) as the
project's :class:`.tokenization.PieceTokenizer`: the sentence laid out as the model reads it, its pieces joined into
words as this project's are."""
from __future__ import annotations

from ..tokenization import EOS, PROMPT, WORD_MARK, Encoded, InputError, language_tag


class HFTokenizer:
    """One side (source or target) of a ``transformers`` translator's tokenizer as a
    :class:`.tokenization.PieceTokenizer`: pieces with SentencePiece's ``▁`` word marker, so words join as ours do,
    and the sentence laid out as the model reads it: a many-to-many model's ``language`` tag first (``tags``: its
    tag ids and codes), or a T5 model's task ``prefix`` ("translate English to French: ") on the source side, EOS
    last. A prefix's pieces are the rest of the prompt (:data:`.tokenization.PROMPT`), one column, so no word,
    link or statistic counts them. The tokenizer is only asked to cut pieces, never switched, so one serves every
    pair at once. A piece's surface is its own text (the library's SentencePiece tokenizers give no offsets)."""

    def __init__(self, tokenizer, side: str, tags: dict[int, str] | None = None, language: int | None = None,
                 prefix: str = ""):
        self.tokenizer, self.side, self.tags, self.language = tokenizer, side, tags or {}, language
        self.prefix = prefix if side == "source" else ""

    @property
    def vocab_size(self) -> int:
        """The pieces it names, language tags included (M2M100's tokenizer leaves its tags out of its length)."""
        return len(self.tokenizer) + sum(i >= len(self.tokenizer) for i in self.tags)

    def _encode(self, text: str) -> list[int]:
        """The ids of ``text`` as the model reads or writes them: [language tag] + pieces + [EOS]."""
        if self.side == "target" and self.language is None:  # Marian's target side has a SentencePiece of its own
            pieces = self.tokenizer(text_target=text, add_special_tokens=False)["input_ids"]
        else:  # a prefix is cut with the text, as generate's callers do ("…French: " + text), so the ids are theirs
            pieces = self.tokenizer(self.prefix + text, add_special_tokens=False)["input_ids"]
        return [*([] if self.language is None else [self.language]), *pieces, self.tokenizer.eos_token_id]

    def _prefix_pieces(self, text: str) -> int:
        """How many of ``text``'s first pieces are the prefix's: those starting inside it (a fast tokenizer's
        offsets; the prefix's closing space may join the sentence's first piece)."""
        if not self.prefix:
            return 0
        spans = self.tokenizer(self.prefix + text, add_special_tokens=False, return_offsets_mapping=True)
        return sum(start < len(self.prefix.rstrip()) for start, _ in spans["offset_mapping"])

    def encode(self, text: str, max_tokens: int) -> Encoded:
        """Pieces of ``text`` (after a language tag or a task prefix) plus EOS, at most ``max_tokens`` in all."""
        if not text.strip():
            raise InputError("Type a sentence to translate.")
        found = self._encode(text)[:-1]
        ids = found[: max_tokens - 1]
        n = min(self._prefix_pieces(text), len(ids))
        pieces = [*(PROMPT,) * n, *self.pieces(ids[n:])]
        unk = self.tokenizer.unk_token_id
        return Encoded(ids=(*ids, self.tokenizer.eos_token_id), pieces=(*pieces, EOS),
                       surfaces=(*(p.replace(WORD_MARK, "") or p for p in pieces), EOS),
                       unknown=(*(i == unk for i in ids), False), truncated=len(found) > len(ids),
                       prompt=self.prefix + text if self.prefix else "")

    def ids(self, text: str) -> list[int]:
        """The ids a decoder writes for ``text`` before EOS (a many-to-many target's language tag first)."""
        return self._encode(text)[:-1]

    def pieces(self, ids) -> list[str]:
        return [EOS if i == self.tokenizer.eos_token_id else language_tag(self.tags[i]) if i in self.tags else p
                for i, p in zip(ids, self.tokenizer.convert_ids_to_tokens(list(ids)))]

    def decode(self, ids) -> str:
        """Normal text for piece ids; specials and language tags are dropped."""
        return self.tokenizer.decode([i for i in ids if i not in self.tags], skip_special_tokens=True)
