"""How a decoder-only translator is asked, and how its prompt becomes the heatmap's columns.

A decoder-only model (Llama, Qwen2, Gemma2: EuroLLM-Instruct, Qwen2.5-Instruct, Tower+) has no source side: the
sentence sits inside a prompt, one user turn rendered by the tokenizer's own chat template (by ``transformers``,
in its sandbox; no code from the repo runs) around one instruction::

    <|im_start|>user
    Translate the following English text into French.

    The cat sleeps.<|im_end|>
    <|im_start|>assistant
    ↑ the sentence's character span, mapped to its tokens by the tokenizer's offsets: the heatmap's columns

The prompt is cut as a whole, as ``generate``'s callers cut it, so its tokens are the model's. Every token outside
the sentence's span (template, instruction, the first token every row leans on) is a :data:`.tokenization.PROMPT`
piece: one column, "the rest of the prompt", never a word. The prompt's last token (the end of the generation
prompt, "\\n" after ``assistant``) is held back as the decoder's start, as ``<s>`` is an encoder–decoder's: the
step that writes the first word reads from it, so the prompt's other tokens are the source the steps read.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from ..tokenization import EOS, PROMPT, WORD_MARK, Encoded, InputError

#: The instruction a model is asked with when its card gives none of its own; ``{source}`` and ``{target}`` are the
#: languages' English names, ``{sentence}`` the text.
INSTRUCTION = "Translate the following {source} text into {target}.\n\n{sentence}"
#: The instructions families' cards give, by a word of their names: EuroLLM-Instruct's and Tower's.
CARD_INSTRUCTIONS = {
    "eurollm": "Translate the following {source} source text to {target}:\n{source}: {sentence} \n{target}: ",
    "tower": "Translate the following text from {source} into {target}.\n{source}: {sentence}\n{target}:",
}
#: The languages the pickers offer a decoder-only model: it is asked by the languages' names, so any it was trained
#: on may be picked; these are the ones this project's test sets and gold links cover, and EuroLLM's and Qwen2.5's
#: widely spoken others.
LANGUAGES = ("en", "fr", "de", "es", "it", "pt", "nl", "pl", "cs", "ro", "ru", "uk", "tr", "ar", "zh", "ja", "ko")

#: Sentences a prompt's frame is read from (:attr:`PromptTokenizer.frame`): a plain one, and one that opens and ends on
#: punctuation, digits and spaces inside.
FRAME_PROBES = ("The cat sleeps.", "« Yes », he said: 42 % of 3,5 kg!")


@dataclass(frozen=True)
class Prompt:
    """One user turn asking for a translation: the instruction with the languages' names filled in."""

    instruction: str  # with {source}, {target} and {sentence}
    source: str  # the languages' English names
    target: str

    def content(self, sentence: str) -> tuple[str, int]:
        """The user turn's text and where the sentence starts in it (the sentence is put in last, so braces in it
        are never read as a field)."""
        head, _, tail = self.instruction.replace("{source}", self.source).replace("{target}", self.target) \
            .partition("{sentence}")
        return head + sentence + tail, len(head)

    def render(self, tokenizer, sentence: str) -> tuple[str, int]:
        """The rendered prompt, ready for the model's answer, and where the sentence starts in it; ValueError
        where the template does not carry the sentence through unchanged."""
        content, at = self.content(sentence)
        text = tokenizer.apply_chat_template([{"role": "user", "content": content}], tokenize=False,
                                             add_generation_prompt=True)
        for shown in (content, content.strip()):  # a template may trim the turn (Llama 3's does)
            if (found := text.find(shown)) >= 0:
                return text, found + at - (len(content) - len(content.lstrip()) if shown != content else 0)
        raise ValueError("this model's chat template changes the user's text, so its tokens cannot be found")


def _word_pieces(text: str, offsets: list[tuple[int, int]], start: int, stop: int) -> list[tuple[str, str]]:
    """Each sentence token's (piece, surface), its text clipped to the sentence's [``start``, ``stop``): a piece
    starts a word (``▁``) where its text begins with a space or follows one, or opens the sentence; a byte-level
    token inside a character (an emoji's bytes) continues the one before it."""
    found, previous = [], None
    for a, b in offsets:
        a, b = max(a, start), min(b, stop)
        surface = text[a:b]
        opens = (a == start or surface[:1].isspace() or text[a - 1 : a].isspace()) and a != previous
        word = surface.strip() or surface
        found.append(((WORD_MARK if opens else "") + word, word))
        previous = a
    return found


class PromptTokenizer:
    """The source side of a decoder-only translator: a sentence laid out in its prompt (:class:`Prompt`), as a
    :class:`~.tokenization.PieceTokenizer`. ``room``: the most prompt tokens its positions leave (half of them, the
    other half the translation's)."""

    def __init__(self, tokenizer, prompt: Prompt, start: int, room: int):
        self.tokenizer, self.prompt, self.start, self.room = tokenizer, prompt, start, room

    @property
    def vocab_size(self) -> int:
        return len(self.tokenizer)

    @property
    def backend(self):
        """The ``tokenizers.Tokenizer`` that cuts the pieces (the piece cache batches it and keys on it)."""
        return self.tokenizer.backend_tokenizer

    @functools.cached_property
    def frame(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The prompt's ids before the sentence and after it (the start token held back), a sentence's own ids
        sitting between them unchanged: how the piece cache lays out a chat model's training pairs. ValueError
        where the template's tokens join a sentence's, so that a sentence is cut differently inside the prompt."""
        frames = set()
        for sentence in FRAME_PROBES:
            _, ids, _, first, stop, _ = self._cut(sentence)
            if ids[first:stop] != self.backend.encode(sentence, add_special_tokens=False).ids:
                raise ValueError("this tokenizer cuts a sentence differently inside its prompt than alone")
            frames.add((tuple(ids[:first]), tuple(ids[stop:-1])))
        if len(frames) > 1:
            raise ValueError("this model's chat template frames one sentence differently from another")
        return frames.pop()

    def _cut(self, sentence: str) -> tuple[str, list[int], list[tuple[int, int]], int, int, int]:
        """The rendered prompt of ``sentence``, its ids and offsets, the sentence's tokens' [first, stop), and
        where the sentence starts in the prompt."""
        text, a = self.prompt.render(self.tokenizer, sentence)
        found = self.tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
        ids, offsets, b = found["input_ids"], found["offset_mapping"], a + len(sentence)
        inside = [i for i, (x, y) in enumerate(offsets) if x < b and y > a]
        return text, ids, offsets, inside[0], inside[-1] + 1, a

    def encode(self, text: str, max_tokens: int) -> Encoded:
        """The prompt around ``text``, its sentence cut to ``max_tokens`` − 1 tokens (as every family's sentence and
        EOS fit ``max_tokens``) and to what the positions leave; the start token held back."""
        sentence = text.strip()
        if not sentence:
            raise InputError("Type a sentence to translate.")
        control = next((t for t in controls(self.tokenizer).values() if t in sentence), None)
        if control is not None:  # it would be read as the template's own, and could end the turn early
            raise InputError(f"The sentence holds {control}, one of this model's control tokens: take it out.")
        truncated = False
        while True:
            rendered, ids, offsets, first, stop, at = self._cut(sentence)
            keep = min(max_tokens - 1, stop - first - max(0, len(ids) - self.room))
            if keep >= stop - first:
                break
            if keep < 1:
                raise InputError(f"This model's positions hold no more than {2 * self.room} tokens: its prompt "
                                 "alone leaves no room for a sentence.")
            sentence, truncated = sentence[: offsets[first + keep][0] - at].rstrip(), True
        if ids[-1] != self.start:
            raise ValueError("this model's chat template ends its prompts differently from one sentence to another")
        words = _word_pieces(rendered, offsets[first:stop], at, at + len(sentence))
        unk = self.tokenizer.unk_token_id
        kept = ids[:-1]
        pieces = (*(PROMPT,) * first, *(p for p, _ in words), *(PROMPT,) * (len(kept) - stop))
        surfaces = (*(PROMPT,) * first, *(s for _, s in words), *(PROMPT,) * (len(kept) - stop))
        return Encoded(ids=tuple(kept), pieces=pieces, surfaces=surfaces,
                       unknown=tuple(unk is not None and i == unk for i in kept), truncated=truncated,
                       prompt=rendered)

    def ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return word_marked(self.tokenizer, ids, None)

    def decode(self, ids) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=True)


class ReplyTokenizer:
    """The target side of a decoder-only translator: the pieces of its answer, ``eos`` (its chat template's
    end of turn) written as EOS."""

    def __init__(self, tokenizer, eos: int):
        self.tokenizer, self.eos = tokenizer, eos

    @property
    def vocab_size(self) -> int:
        return len(self.tokenizer)

    @property
    def backend(self):
        return self.tokenizer.backend_tokenizer

    def encode(self, text: str, max_tokens: int) -> Encoded:
        """The answer's pieces and EOS, at most ``max_tokens`` in all."""
        if not text.strip():
            raise InputError("Type a sentence to translate.")
        found = self.ids(text)
        ids = (*found[: max_tokens - 1], self.eos)
        written = self.pieces(ids)
        return Encoded(ids=ids, pieces=tuple(written), surfaces=tuple(p.lstrip(WORD_MARK) or p for p in written),
                       unknown=(False,) * len(ids), truncated=len(found) > max_tokens - 1)

    def ids(self, text: str) -> list[int]:
        return self.tokenizer(text, add_special_tokens=False)["input_ids"]

    def pieces(self, ids: Iterable[int]) -> list[str]:
        return word_marked(self.tokenizer, ids, self.eos)

    def decode(self, ids) -> str:
        return self.tokenizer.decode([i for i in ids if i != self.eos], skip_special_tokens=True)


def controls(tokenizer) -> dict[int, str]:
    """The tokenizer's special tokens, ``{id: text}``: the template's and the model's own (``<|im_end|>``), never a
    piece of a sentence (not its added plain tokens, Gemma's runs of spaces and HTML tags)."""
    return {i: token.content for i, token in tokenizer.added_tokens_decoder.items() if token.special and token.content}


def word_marked(tokenizer, ids: Iterable[int], eos: int | None) -> list[str]:
    """Each id as a piece with SentencePiece's word marker, whatever the tokenizer's own marks: a SentencePiece
    piece as it is; another (byte-level BPE's ``Ġcat``) as its text, a leading space made ``▁``; ``eos`` as EOS; an
    id the tokenizer has no token for as ``<id>``."""
    ids = list(ids)
    found = []
    for i, token in zip(ids, tokenizer.convert_ids_to_tokens(ids)):
        text = tokenizer.decode([i])
        if i == eos:
            found.append(EOS)
        elif token is None:  # an id the model's embeddings have and its tokenizer names not (padding rows)
            found.append(f"<{i}>")
        elif token.startswith(WORD_MARK):
            found.append(token)
        else:
            found.append(WORD_MARK + text.lstrip() if text[:1].isspace() and text.strip() else text or WORD_MARK)
    return found
