"""bfloat16 against float32 on a trained many-to-many translator: how many greedy translations differ.

    python -m bench dtype --data ../shared/data/multi30k
    python -m bench dtype --data ../shared/data/multi30k --model facebook/nllb-200-distilled-600M  # a real one

No trained Hub weights can be fetched here, so the model is trained here first (once, under
``.bench/m2m-multi30k/``): an M2M100 of d_model 256, 3 + 3 layers, 4 heads, with an M2M100 tokenizer whose
SentencePiece model (8,000 pieces) is trained on the corpus, taught English→French, English→German and French→English
on Multi30k's training captions for ``--train-steps`` batches of 64 (steps, not minutes, so that other work on
the machine slows it without changing it). Then it is loaded through the app's loader twice — float32 and
bfloat16 (``ATLAS_DTYPE``) — and each greedy-translates test_2016_flickr (English→French, English→German): the share
of sentences whose translations differ, and each one's BLEU (sacreBLEU) against the references. ``--model`` compares
a model of one's own instead (a Hub id or a folder, set to English→French and English→German by its own codes).
"""
from __future__ import annotations

import gzip
import random
import time
from pathlib import Path

from models import ROOT

FOLDER = ROOT / ".bench" / "m2m-multi30k"
DIRECTIONS = (("en", "fr"), ("en", "de"), ("fr", "en"))


def _lines(data: Path, split: str, language: str) -> list[str]:
    return gzip.open(data / f"{split}.{language}.gz", "rt", encoding="utf-8").read().splitlines()


def train(data: Path, steps: int, folder: Path = FOLDER, vocab_size: int = 8000) -> Path:
    """The stand-in, trained ``steps`` batches on the training captions, the directions in turn (once)."""
    if (folder / "model.safetensors").exists():
        return folder
    import torch
    from transformers import GenerationConfig, M2M100Config, M2M100ForConditionalGeneration

    from tests.hf_helpers import many_to_many_tokenizer

    texts = {lang: _lines(data, "train", lang) for lang in ("en", "fr", "de")}
    folder.mkdir(parents=True, exist_ok=True)
    sample = random.Random(0).sample(range(len(texts["en"])), min(20_000, len(texts["en"])))
    lines = [texts[x][i] for i in sample for x in texts]
    tokenizer, vocab = many_to_many_tokenizer(folder, "m2m100", lines, vocab_size)
    config = M2M100Config(vocab_size=vocab, d_model=256, encoder_layers=3, decoder_layers=3, encoder_ffn_dim=1024,
                          decoder_ffn_dim=1024, encoder_attention_heads=4, decoder_attention_heads=4, dropout=0.1,
                          pad_token_id=1, eos_token_id=2, bos_token_id=0, decoder_start_token_id=2)
    torch.manual_seed(0)
    model = M2M100ForConditionalGeneration(config).train()
    optimiser = torch.optim.AdamW(model.parameters(), lr=1e-3)
    rows, started = random.Random(1), time.perf_counter()
    for step in range(steps):
        source, target = DIRECTIONS[step % len(DIRECTIONS)]
        tokenizer.src_lang, tokenizer.tgt_lang = source, target
        picked = rows.sample(range(len(texts["en"])), 64)
        batch = tokenizer([texts[source][i] for i in picked], text_target=[texts[target][i] for i in picked],
                          padding=True, truncation=True, max_length=64, return_tensors="pt")
        batch["labels"][batch["labels"] == 1] = -100
        model(**batch).loss.backward()
        optimiser.step()
        optimiser.zero_grad()
    model.eval().generation_config = GenerationConfig(bos_token_id=0, decoder_start_token_id=2, eos_token_id=2,
                                                      pad_token_id=1, max_length=200)
    tokenizer.src_lang, tokenizer.tgt_lang = "en", "fr"
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    print(f"trained {steps} steps of 64 pairs in {(time.perf_counter() - started) / 60:.0f} min")
    return folder


def _code(ref: str, language: str) -> str:
    """The model's own code for ``language`` (``fr`` → ``fra_Latn`` for NLLB)."""
    from models.storage.hub import load_model
    from models.storage.languages import language_key

    return next(c for c in load_model(ref, device="cpu").codes if language_key(c) == language)


def bench_dtype(data: str, steps: int = 3000, folder: Path = FOLDER, vocab_size: int = 8000,
                model: str | None = None) -> None:
    import os

    import sacrebleu

    from models.decoding.greedy import translate_batch
    from models.storage.hub import LoadPolicy, load_model

    data = Path(data)
    ref = model or str(train(data, steps, folder, vocab_size))
    source = _lines(data, "test_2016_flickr", "en")
    for target in ("fr", "de"):
        references, found = _lines(data, "test_2016_flickr", target), {}
        pair = (_code(ref, "en"), _code(ref, target))
        for dtype in ("float32", "bfloat16"):
            loaded = load_model(ref, device="cpu", policy=LoadPolicy(dtype=dtype), languages=pair)
            started = time.perf_counter()
            found[dtype] = [t for i in range(0, len(source), 100)
                            for t in translate_batch(loaded.model, loaded.tokenizers, source[i:i + 100])]
            bleu = sacrebleu.corpus_bleu(found[dtype], [references]).score
            print(f"en→{target} {dtype}: BLEU {bleu:.1f}, {time.perf_counter() - started:.1f} s "
                  f"({os.cpu_count()} cores)")
        differ = sum(a != b for a, b in zip(found["float32"], found["bfloat16"]))
        print(f"en→{target}: {differ} of {len(source)} greedy translations differ ({100 * differ / len(source):.1f} %)")
