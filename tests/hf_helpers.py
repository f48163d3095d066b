"""A tiny randomly initialised Marian translator built offline: SentencePiece models trained here on a few
sentences, a shared vocabulary, and a ``MarianConfig`` of opus-mt's shape in miniature (eos 0, <pad> last and the
decoder's start, tied embeddings)."""
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


def tiny_marian(folder: Path, seed: int = 0, layers: int = 2, heads: int = 2, steps: int = 0,
                source_text: list[str] = ENGLISH, source_vocab: int = 40, languages: tuple[str, str] = ("en", "fr"),
                card: str | None = None) -> Path:
    """Save a tiny Marian model and its tokenizer under ``folder`` (``save_pretrained``), trained ``steps`` Adam
    steps on the pairs above (an untrained one ends every sentence at once or never); its source SentencePiece
    model is trained on ``source_text``; ``card``: the README.md written beside it; returns the folder."""
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
                          encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=512, pad_token_id=pad,
                          eos_token_id=0, decoder_start_token_id=pad, forced_eos_token_id=0)
    torch.manual_seed(seed)
    model = MarianMTModel(config)
    batch = tokenizer(ENGLISH, text_target=FRENCH, padding=True, return_tensors="pt")
    batch["labels"][batch["labels"] == pad] = -100  # padding is not learned
    optimiser = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(steps):
        model(**batch).loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    model.eval()
    model.generation_config = GenerationConfig(bad_words_ids=[[pad]], decoder_start_token_id=pad, eos_token_id=0,
                                               forced_eos_token_id=0, pad_token_id=pad, max_length=512,
                                               num_beams=4)  # opus-mt's generation_config.json, in miniature
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    if card is not None:
        (folder / "README.md").write_text(card, encoding="utf-8")
    return folder
