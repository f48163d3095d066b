"""A T5 translator of t5-small's size, measured without its weights: none can be fetched here.

    python -m bench hub-model --size t5-small

Builds once, under ``.bench/t5-small-sized/``, a randomly initialised ``T5ForConditionalGeneration`` with
google-t5/t5-small's configuration (d_model 512, d_kv 64, 6 + 6 layers, 8 heads, feed-forward 2048, 32 relative
position buckets, a shared vocabulary of 32,128 pieces, 60.5 M parameters, its English→French task prefix) and a
``T5Tokenizer`` of a SentencePiece model trained on a few sentences, its vocabulary padded to t5-small's. Then, as
``bench hub-model`` does for opus-mt (:mod:`.hub_model`'s probe, a fresh process each): the load, the first heatmap
(the prefix's pieces among the columns), greedy and beam 5, and the memory with the bundled default beside it.
"""
from __future__ import annotations

from pathlib import Path

from models import ROOT

from .hub_model import SENTENCE, measure, report

FOLDER = ROOT / ".bench" / "t5-small-sized"
T5_SMALL = dict(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=6, num_heads=8,
                relative_attention_num_buckets=32, relative_attention_max_distance=128, feed_forward_proj="relu",
                dropout_rate=0.1, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0,
                task_specific_params={"translation_en_to_fr": {"prefix": "translate English to French: "}})


def build(folder: Path = FOLDER, sizes: dict | None = None) -> Path:
    """The t5-small-sized model (or one of other ``sizes``) and its tokenizer, padded to the config's vocabulary,
    under ``folder`` (once)."""
    if (folder / "model.safetensors").exists():
        return folder
    import sentencepiece as spm
    import torch
    from transformers import GenerationConfig, T5Config, T5ForConditionalGeneration, T5Tokenizer

    from models.storage.examples import load_examples
    from tests.hf_helpers import tiny_t5

    english = [e.text for e in load_examples()] + [SENTENCE] * 20  # more pieces than t5-small cuts, as for opus-mt
    tiny_t5(folder, text=english, vocab_size=400)  # its SentencePiece model; the tokenizer and the model are replaced
    config = T5Config(**{**T5_SMALL, **(sizes or {})})
    pieces = spm.SentencePieceProcessor(model_file=str(folder / "spiece.model"))
    vocab = [(pieces.id_to_piece(i), pieces.get_score(i)) for i in range(len(pieces))]
    vocab += [(f"▁filler{i}", -1e4) for i in range(len(vocab), config.vocab_size)]  # never cut: scored lowest
    T5Tokenizer(vocab=vocab, extra_ids=0).save_pretrained(folder)
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(config).eval()
    model.generation_config = GenerationConfig(decoder_start_token_id=0, eos_token_id=1, pad_token_id=0)
    model.save_pretrained(folder)
    return folder


def bench_t5_model() -> None:
    folder = build()
    report("t5-small-sized T5", folder, measure(folder))
