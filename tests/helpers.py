"""Helpers the tests share: a tiny synthetic "English→French" corpus and a small model on it.

Nothing here reads ../shared: the corpus is made on the spot.
"""
from __future__ import annotations

import hashlib
import random
import shutil

import torch

from models.network.seq2seq import RNNConfig, Seq2Seq
from models.network.tokenization import TokenizerPair
from models.network.transformer import TransformerConfig, TransformerTranslator

LEXICON = {
    "a": "un", "dog": "chien", "cat": "chat", "red": "rouge", "big": "grand", "man": "homme",
    "runs": "court", "sleeps": "dort", "on": "sur", "the": "le", "grass": "herbe", "beach": "plage",
}


def synthetic_pairs(n: int, seed: int = 0) -> list[tuple[str, str]]:
    """Word-for-word 'translations' whose target order is the source reversed."""
    rng = random.Random(seed)
    words = list(LEXICON)
    pairs = []
    for _ in range(n):
        src = [rng.choice(words) for _ in range(rng.randint(3, 6))]
        pairs.append((" ".join(src), " ".join(LEXICON[w] for w in reversed(src))))
    return pairs


def id_pairs(pairs: list[tuple[list[int], list[int]]]):
    """Pairs of id lists as the training command holds them (:class:`TokenizedPairs`), for tests of batching."""
    import numpy as np

    from models.storage.pieces import TokenizedPairs

    def ragged(rows) -> tuple[np.ndarray, np.ndarray]:
        lengths = np.array([len(r) for r in rows], dtype=np.int64)
        return np.array([i for r in rows for i in r], dtype=np.int32), np.concatenate([[0], np.cumsum(lengths)])

    return TokenizedPairs(*ragged([s for s, _ in pairs]), *ragged([t for _, t in pairs]))


def make_model(tokenizers: TokenizerPair, score: str = "additive", seed: int = 0) -> Seq2Seq:
    torch.manual_seed(seed)
    return Seq2Seq(RNNConfig(
        tokenizers.source.vocab_size, tokenizers.target.vocab_size, score=score,
        emb_dim=32, enc_hidden=32, dec_hidden=48, attn_dim=24, dropout=0.0,
    )).eval()


def make_transformer(tokenizers: TokenizerPair, seed: int = 0, layers: int = 2, heads: int = 2,
                     dropout: float = 0.0) -> TransformerTranslator:
    torch.manual_seed(seed)
    return TransformerTranslator(TransformerConfig(
        tokenizers.source.vocab_size, tokenizers.target.vocab_size, d_model=32, heads=heads, enc_layers=layers,
        dec_layers=layers, ffn_dim=64, dropout=dropout,
    )).eval()


def tiny_transformer_checkpoint(path) -> str:
    """A checkpoint of an untrained 2-layer × 2-head Transformer on the bundled tokenizers, with a training record of
    two points (the pages read it as they would a trained one's); the tests need neither ../shared nor training."""
    from models.decoding.greedy import greedy
    from models.storage.examples import load_examples
    from models.storage.hub import BUNDLED_DIR, save_checkpoint
    from models.storage.records.timeline import append_point, timeline_entry

    tokenizers = TokenizerPair.load(BUNDLED_DIR / "en-fr-additive")
    torch.manual_seed(0)
    model = TransformerTranslator(TransformerConfig(tokenizers.source.vocab_size, tokenizers.target.vocab_size,
                                                    d_model=32, heads=2, enc_layers=2, dec_layers=2, ffn_dim=64))
    save_checkpoint(path, model.eval(), tokenizers)
    examples = [e.text for e in load_examples()][:2]
    traces = [greedy(model, tokenizers, e) for e in examples]
    for epoch in (0.5, 1):
        append_point(path, examples, traces, timeline_entry(training_point(epoch, 1.0, 5.0), traces))
    return str(path)


def training_point(epoch: float, val_bleu: float, val_loss: float, steps_per_epoch: int = 100) -> dict:
    """What the training CLI records at a validation point (the fields the alignment timeline keeps)."""
    return {"step": round(epoch * steps_per_epoch), "epoch": epoch, "minutes": 2.0 * epoch, "val_bleu": val_bleu,
            "val_loss": val_loss}


def populate_hf_cache(cache, repo_id, files_dir, revision="main"):
    """Lay files out exactly as huggingface_hub's cache does: blobs, snapshots, refs."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    commit = hashlib.sha1(repo_id.encode()).hexdigest()
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir()
    for f in files_dir.iterdir():
        blob = repo / "blobs" / hashlib.sha256(f.read_bytes()).hexdigest()
        shutil.copy(f, blob)
        (snapshot / f.name).symlink_to(f"../../blobs/{blob.name}")
    (repo / "refs").mkdir()
    (repo / "refs" / revision).write_text(commit)
    return commit


def write_gold(folder, splits=("test",)):
    """Three pairs of the synthetic corpus (French = the English reversed, word for word) with their true links,
    as each of ``splits``: the folder."""
    pairs = synthetic_pairs(3, seed=7)
    folder.mkdir(parents=True, exist_ok=True)
    for ext, lines in (("en", [e for e, _ in pairs]), ("fr", [f for _, f in pairs]),
                       ("gold", [" ".join(f"{i + 1}-{len(e.split()) - i}" for i in range(len(e.split())))
                                 for e, _ in pairs])):
        for split in splits:
            (folder / f"{split}.{ext}").write_text("\n".join(lines) + "\n")
    return folder


class Interrupted(Exception):
    pass


def assert_resumed_as_left_alone(run, straight, resumed, step: int, monkeypatch) -> None:
    """That a run (``run(out, *extra)``) stopped after its validation point at ``step`` and resumed ends with the
    weights, average and optimizer state of the same run left alone (``straight``, ``resumed``: two folders)."""
    import pytest
    import torch
    from safetensors.torch import load_file

    from models import train
    from models.train import loop

    run(straight)
    original = loop.checkpoint

    def stop(run_, state, *rest):
        original(run_, state, *rest)
        if state["step"] == step:
            raise Interrupted

    monkeypatch.setattr(loop, "checkpoint", stop)
    with pytest.raises(Interrupted):
        run(resumed)
    monkeypatch.setattr(loop, "checkpoint", original)
    run(resumed, "--resume")
    for name in ("model", "average", "optimizer"):
        a = load_file(straight / train.STATE_DIR / f"{name}.safetensors")
        b = load_file(resumed / train.STATE_DIR / f"{name}.safetensors")
        assert a.keys() == b.keys()
        for key in a:
            torch.testing.assert_close(a[key], b[key], rtol=0, atol=0)



def two_examples(monkeypatch) -> None:
    """Training runs record the curated examples' greedy traces at every validation point (the alignment timeline);
    an untrained tiny model writes each to its length limit, so 40 of them made most of a training test's time. Two
    keep the timeline whole in form; tests/test_train.py checks that a run records every one."""
    from models.storage.examples import load_examples
    from models.train import loop

    monkeypatch.setattr(loop, "load_examples", lambda path: load_examples(path)[:2])
