"""A many-to-many translator of NLLB-200-distilled-600M's size, measured without its weights: none can be fetched
here.

    python -m bench hub-model --size nllb-600m

Builds once, under ``.bench/nllb-600m-sized/``, a randomly initialised ``M2M100ForConditionalGeneration`` with
facebook/nllb-200-distilled-600M's configuration (d_model 1024, 12 + 12 layers, 16 heads, feed-forward 4096,
sinusoidal positions, a shared vocabulary of 256,206 pieces, 615 M parameters) and an ``NllbTokenizer`` built from a
SentencePiece model trained on a few sentences, its vocabulary padded to NLLB's 256,001 pieces and its 202 language
tags added as NLLB's tokenizer.json holds them. Then, as ``bench hub-model`` does for opus-mt (:mod:`.hub_model`'s
probe, a fresh process each), set to English→French: the load, the first heatmap, greedy and beam 5, and the memory
with the bundled default beside it — in float32 and again in bfloat16 (``ATLAS_DTYPE``).
"""
from __future__ import annotations

import json
from pathlib import Path

from models import ROOT

from .hub_model import SENTENCE, measure, report

FOLDER = ROOT / ".bench" / "nllb-600m-sized"
NLLB_600M = dict(vocab_size=256206, d_model=1024, encoder_layers=12, decoder_layers=12, encoder_attention_heads=16,
                 decoder_attention_heads=16, encoder_ffn_dim=4096, decoder_ffn_dim=4096, max_position_embeddings=1024,
                 scale_embedding=True, activation_function="relu", pad_token_id=1, eos_token_id=2, bos_token_id=0,
                 decoder_start_token_id=2)
PIECES = 256001  # NLLB's SentencePiece pieces and its four specials, before the language tags and <mask>
PAIR = ("eng_Latn", "fra_Latn")


def _tokenizer(folder: Path, pieces: int):
    """An NllbTokenizer of the small model's merges, its vocabulary padded to ``pieces``, with NLLB's language tags."""
    from tokenizers import AddedToken
    from transformers import NllbTokenizer
    from transformers.models.nllb.tokenization_nllb import FAIRSEQ_LANGUAGE_CODES

    from models.storage.examples import load_examples
    from tests.hf_helpers import many_to_many_tokenizer

    english = [e.text for e in load_examples()] + [SENTENCE] * 20  # more pieces than NLLB cuts, as for opus-mt
    (folder / "small").mkdir(parents=True, exist_ok=True)
    small, _ = many_to_many_tokenizer(folder / "small", "nllb", english, 400)
    model = json.loads(small._tokenizer.to_str())["model"]
    vocab = {p: i for p, i in model["vocab"].items() if i < len(model["vocab"])}
    vocab.update({f"▁filler{i}": i for i in range(len(vocab), pieces)})
    merges = [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in model["merges"]]
    tokenizer = NllbTokenizer(vocab=vocab, merges=merges)
    if tokenizer.convert_tokens_to_ids(PAIR[1]) == tokenizer.unk_token_id:
        tokenizer.add_tokens([AddedToken(c, special=True, normalized=False) for c in FAIRSEQ_LANGUAGE_CODES],
                             special_tokens=True)
    return tokenizer


def build(folder: Path = FOLDER, sizes: dict | None = None, pieces: int = PIECES) -> Path:
    """The NLLB-600M-sized model (or one of other ``sizes``) and its tokenizer under ``folder`` (once)."""
    if (folder / "model.safetensors").exists():
        return folder
    import torch
    from transformers import GenerationConfig, M2M100Config, M2M100ForConditionalGeneration

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer(folder, pieces)
    config = M2M100Config(**{**NLLB_600M, **(sizes or {})})
    torch.manual_seed(0)
    model = M2M100ForConditionalGeneration(config).eval()
    model.generation_config = GenerationConfig(bos_token_id=0, decoder_start_token_id=2, eos_token_id=2,
                                               pad_token_id=1, max_length=200)  # NLLB's generation_config.json
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def bench_nllb_model() -> None:
    folder = build()
    for dtype in ("float32", "bfloat16"):
        report(f"nllb-200-distilled-600M-sized M2M100, {PAIR[0]}→{PAIR[1]}, {dtype}", folder,
               measure(folder, PAIR, dtype))
