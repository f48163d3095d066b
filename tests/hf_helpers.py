"""A tiny randomly initialised Marian translator built offline: SentencePiece models trained here on a few
sentences, a shared vocabulary, and a ``MarianConfig`` of opus-mt's shape in miniature (eos 0, <pad> last and the
decoder's start, tied embeddings)."""
import copy
import json
from pathlib import Path

ENGLISH = ["a dog runs on the beach", "the black cat sleeps", "a man reads a book", "two girls play in the park",
           "the little black dog jumps over the white fence", "a woman walks down the street"]
#: A card in OPUS-MT's words (Helsinki-NLP/opus-mt-en-fr's README, its lines that matter here).
OPUS_CARD = """---
tags:
- translation
license: apache-2.0
---

### opus-mt-en-fr

* source languages: en
* target languages: fr
* dataset: opus
* model: transformer-align
* pre-processing: normalization + SentencePiece
"""
FRENCH = ["un chien court sur la plage", "le chat noir dort", "un homme lit un livre", "deux filles jouent dans le parc",
          "le petit chien noir saute par-dessus la clôture blanche", "une femme marche dans la rue"]


def _train_spm(lines: list[str], prefix: Path, vocab_size: int = 40) -> Path:
    import sentencepiece as spm

    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines * 10), model_prefix=str(prefix), vocab_size=vocab_size,
                                   model_type="unigram", character_coverage=1.0, bos_id=-1, eos_id=-1, unk_id=0,
                                   pad_id=-1, minloglevel=2)
    return prefix.with_suffix(".model").rename(prefix.with_suffix(".spm"))


def fitted(model, steps: int, **batch):
    """``model`` after ``steps`` Adam steps on one ``batch`` (its labels -100 where there is padding), in eval mode."""
    import torch

    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(steps):
        model(**batch).loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    return model.eval()


def tiny_marian(folder: Path, seed: int = 0, layers: int = 2, heads: int = 2, steps: int = 0,
                source_text: list[str] = ENGLISH, source_vocab: int = 40, languages: tuple[str, str] = ("en", "fr"),
                card: str | None = None, positions: int = 512) -> Path:
    """Save a tiny Marian model and its tokenizer under ``folder`` (``save_pretrained``), trained ``steps`` Adam
    steps on the pairs above (an untrained one ends every sentence at once or never); its source SentencePiece
    model is trained on ``source_text``; ``card``: the README.md written beside it; ``positions``: its position
    table's length (opus-mt's: 512); returns the folder."""
    import sentencepiece as spm
    import torch
    from transformers import GenerationConfig, MarianConfig, MarianMTModel, MarianTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    spms = {"source": _train_spm(source_text, folder / "source", source_vocab),
            "target": _train_spm(FRENCH, folder / "target")}
    pieces = ["</s>", "<unk>"]
    for path in spms.values():
        model = spm.SentencePieceProcessor(model_file=str(path))
        pieces += [p for p in (model.id_to_piece(i) for i in range(model.get_piece_size()))
                   if p not in pieces and p != "<unk>"]
    pieces.append("<pad>")
    (folder / "vocab.json").write_text(json.dumps({p: i for i, p in enumerate(pieces)}), encoding="utf-8")
    tokenizer = MarianTokenizer(source_spm=str(spms["source"]), target_spm=str(spms["target"]),
                                vocab=str(folder / "vocab.json"), source_lang=languages[0], target_lang=languages[1])
    pad = len(pieces) - 1
    config = MarianConfig(vocab_size=len(pieces), decoder_vocab_size=len(pieces), d_model=16, encoder_layers=layers,
                          decoder_layers=layers, encoder_attention_heads=heads, decoder_attention_heads=heads,
                          encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=positions, pad_token_id=pad,
                          eos_token_id=0, decoder_start_token_id=pad, forced_eos_token_id=0)
    torch.manual_seed(seed)
    model = MarianMTModel(config)
    batch = tokenizer(ENGLISH, text_target=FRENCH, padding=True, return_tensors="pt")
    batch["labels"][batch["labels"] == pad] = -100  # padding is not learned
    model = fitted(model, steps, **batch)
    model.generation_config = GenerationConfig(bad_words_ids=[[pad]], decoder_start_token_id=pad, eos_token_id=0,
                                               forced_eos_token_id=0, pad_token_id=pad, max_length=512,
                                               num_beams=4)  # opus-mt's generation_config.json, in miniature
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if card is not None:
        (folder / "README.md").write_text(card, encoding="utf-8")
    return folder


GERMAN = ["ein hund läuft am strand", "die schwarze katze schläft", "ein mann liest ein buch",
          "zwei mädchen spielen im park", "der kleine schwarze hund springt über den weißen zaun",
          "eine frau geht die straße entlang"]
#: Each many-to-many family's codes for English, French and German, as its tokenizer writes them.
CODES = {"m2m100": ("en", "fr", "de"), "nllb": ("eng_Latn", "fra_Latn", "deu_Latn"),
         "mbart50": ("en_XX", "fr_XX", "de_DE")}


def many_to_many_tokenizer(folder: Path, family: str, lines: list[str] = ENGLISH + FRENCH + GERMAN,
                           vocab_size: int = 90):
    """The family's tokenizer, built from a SentencePiece model trained here on ``lines`` as its Hub repo lays it out
    (``sentencepiece.bpe.model``): M2M100's with its fairseq ``vocab.json``, NLLB's with its language tags added as
    special tokens (as its tokenizer.json holds them), mBART-50's with its own."""
    import sentencepiece as spm
    from tokenizers import AddedToken
    from transformers import M2M100Tokenizer, MBart50Tokenizer, NllbTokenizer
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines * 10), minloglevel=2,
                                   model_prefix=str(folder / "sentencepiece.bpe"), vocab_size=vocab_size,
                                   model_type="unigram" if family == "mbart50" else "bpe", character_coverage=1.0)
    if family == "m2m100":
        model = spm.SentencePieceProcessor(model_file=str(folder / "sentencepiece.bpe.model"))
        pieces = ["<s>", "<pad>", "</s>", "<unk>"] + [model.id_to_piece(i) for i in range(model.get_piece_size())
                                                      if not (model.is_control(i) or model.is_unknown(i))]
        (folder / "vocab.json").write_text(json.dumps({p: i for i, p in enumerate(pieces)}), encoding="utf-8")
        tokenizer = M2M100Tokenizer(str(folder / "vocab.json"), str(folder / "sentencepiece.bpe.model"))
        return tokenizer, tokenizer.encoder_size + len(tokenizer.lang_code_to_id) + tokenizer.num_madeup_words
    tokenizer = (NllbTokenizer if family == "nllb" else MBart50Tokenizer).from_pretrained(folder)
    if family == "nllb":
        tokenizer.add_tokens([AddedToken(code, special=True, normalized=False) for code in FAIRSEQ_LANGUAGE_CODES],
                             special_tokens=True)
    return tokenizer, len(tokenizer)


def tiny_many_to_many(folder: Path, family: str, seed: int = 0, steps: int = 0, layers: int = 2,
                      heads: int = 2) -> Path:
    """Save a tiny many-to-many model of ``family`` (``m2m100``, ``nllb`` or ``mbart50``) and its tokenizer under
    ``folder``, trained ``steps`` Adam steps on English→French, English→German and French→English with the target
    language's tag first, as those models are; returns the folder."""
    import torch
    from transformers import (
        GenerationConfig,
        M2M100Config,
        M2M100ForConditionalGeneration,
        MBartConfig,
        MBartForConditionalGeneration,
    )

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer, vocab = many_to_many_tokenizer(folder, family)
    sizes = dict(vocab_size=vocab, d_model=16, encoder_layers=layers, decoder_layers=layers,
                 encoder_attention_heads=heads, decoder_attention_heads=heads, encoder_ffn_dim=32, decoder_ffn_dim=32,
                 max_position_embeddings=1024, pad_token_id=1, eos_token_id=2, bos_token_id=0,
                 decoder_start_token_id=2)
    torch.manual_seed(seed)
    model = (MBartForConditionalGeneration(MBartConfig(**sizes)) if family == "mbart50"
             else M2M100ForConditionalGeneration(M2M100Config(**sizes)))
    en, fr, de = CODES[family]
    rows = [(s, t, a, b) for texts, targets, a, b in [(ENGLISH, FRENCH, en, fr), (ENGLISH, GERMAN, en, de),
                                                        (FRENCH, ENGLISH, fr, en)] for s, t in zip(texts, targets)]
    inputs, labels = [], []
    for source, target, a, b in rows:
        tokenizer.src_lang, tokenizer.tgt_lang = a, b
        found = tokenizer(source, text_target=target)
        inputs.append(found["input_ids"])
        labels.append(found["labels"])
    width = max(map(len, inputs + labels))
    src = torch.tensor([r + [1] * (width - len(r)) for r in inputs])
    tgt = torch.tensor([r + [-100] * (width - len(r)) for r in labels])  # padding is not learned
    model = fitted(model, steps, input_ids=src, attention_mask=src != 1, labels=tgt)
    model.generation_config = GenerationConfig(bos_token_id=0, decoder_start_token_id=2, eos_token_id=2,
                                               pad_token_id=1, max_length=200)  # NLLB's, in miniature
    tokenizer.src_lang, tokenizer.tgt_lang = en, fr
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def assert_same_beams(ours, out, pad: int, eos: int | None = None) -> None:
    """That a beam search's hypotheses (``ours``, a BeamResult) are ``generate``'s (``out``, with
    ``return_dict_in_generate``): the same pieces in the same order, the same scores (log-probability per piece).
    ``eos``: where generate pads a finished row with EOS (T5's), each row is read to its first, and a <pad> the
    model wrote (T5 may: its <pad> only starts the decoder) is kept."""
    import numpy as np

    rows = [row[1:] for row in out.sequences.tolist()]
    if eos is None:
        theirs = [[i for i in row if i != pad] for row in rows]
    else:
        theirs = [row[: row.index(eos) + 1] if eos in row else row for row in rows]
    assert [list(h.target_ids) for h in ours.hypotheses] == theirs
    per_piece = [float(h.token_logprobs.sum()) / len(h.target_ids) for h in ours.hypotheses]
    np.testing.assert_allclose(per_piece, out.sequences_scores.numpy(), atol=1e-4)


def assert_one_pass_is_the_steps(model, tokenizers, texts) -> None:
    """That, for each of ``texts``, a forced trace from the model's one teacher-forced pass (:meth:`forced_steps`)
    is the trace of feeding the same translation a step at a time: the same pieces, log-probabilities, top pieces,
    attention and states. Forced: a French sentence, and the model's own greedy translation."""
    import numpy as np

    from models.decoding.greedy import forced, greedy
    from models.network.translator import Translator

    assert type(model).forced_steps is not Translator.forced_steps  # it has the pass
    stepped = copy.copy(model)
    stepped.forced_steps = lambda *args: None  # the model as one without the pass: decoding steps
    for text in texts:
        for target in ("le chat noir dort", greedy(model, tokenizers, text).target_ids):
            one, steps = forced(model, tokenizers, text, target), forced(stepped, tokenizers, text, target)
            assert one.target_ids == steps.target_ids and one.top_ids == steps.top_ids
            for got, want in ((one.attention.weights, steps.attention.weights), (one.states, steps.states)):
                np.testing.assert_allclose(got, want, atol=1e-5)
            np.testing.assert_allclose(one.token_logprobs, steps.token_logprobs, atol=1e-4)


#: t5-small's own task prefix for English→French (its config's task_specific_params).
T5_PREFIX = "translate English to French: "


def tiny_t5(folder: Path, seed: int = 0, steps: int = 0, layers: int = 2, heads: int = 2,
            tasks: dict | None = None, prefix: str = T5_PREFIX, tags: tuple[str, ...] = (),
            text: list[str] = ENGLISH + FRENCH, vocab_size: int = 80) -> Path:
    """Save a tiny T5 model and its tokenizer under ``folder``, laid out as t5-small (a SentencePiece unigram
    vocabulary with <pad> 0, </s> 1, <unk> 2; relative position buckets; the decoder started from <pad>; its
    translation tasks and their prefixes in ``task_specific_params``, by default English→French), trained ``steps``
    Adam steps on ``prefix`` + English → French; returns the folder. MADLAD-400's layout: ``tags`` (``<2fr>`` …) as
    pieces of their own, no task, and ``prefix`` a tag. Its SentencePiece model is trained on ``text``."""
    import sentencepiece as spm
    import torch
    from transformers import GenerationConfig, T5Config, T5ForConditionalGeneration, T5Tokenizer

    folder.mkdir(parents=True, exist_ok=True)
    tasks = {"translation_en_to_fr": {"prefix": T5_PREFIX}} if tasks is None else tasks
    spm.SentencePieceTrainer.train(sentence_iterator=iter((text + [prefix]) * 10),
                                   model_prefix=str(folder / "spiece"), vocab_size=vocab_size, model_type="unigram",
                                   character_coverage=1.0, bos_id=-1, pad_id=0, eos_id=1, unk_id=2, minloglevel=2,
                                   user_defined_symbols=list(tags), hard_vocab_limit=False)
    pieces = spm.SentencePieceProcessor(model_file=str(folder / "spiece.model"))
    tokenizer = T5Tokenizer(vocab=[(pieces.id_to_piece(i), pieces.get_score(i)) for i in range(len(pieces))],
                            extra_ids=0)
    config = T5Config(vocab_size=len(tokenizer), d_model=16, d_kv=8, d_ff=32, num_layers=layers,
                      num_decoder_layers=layers, num_heads=heads, relative_attention_num_buckets=8,
                      relative_attention_max_distance=16, dropout_rate=0.0, pad_token_id=0, eos_token_id=1,
                      decoder_start_token_id=0, task_specific_params=tasks)
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(config)
    batch = tokenizer([prefix + e for e in ENGLISH], text_target=FRENCH, padding=True, return_tensors="pt")
    batch["labels"][batch["labels"] == 0] = -100  # padding is not learned
    model = fitted(model, steps, **batch)
    model.generation_config = GenerationConfig(decoder_start_token_id=0, eos_token_id=1, pad_token_id=0)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
