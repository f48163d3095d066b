"""A Hub translator of opus-mt-en-fr's size (or an opus-mt-tc-big's), measured without its weights: none can be
fetched here.

    python -m bench hub-model
    python -m bench hub-model --size tc-big

Builds once, under ``.bench/opus-mt-sized/``, a randomly initialised Marian model with Helsinki-NLP/opus-mt-en-fr's
configuration (d_model 512, 6 + 6 layers, 8 heads, feed-forward 2048, a shared vocabulary of 59,514 pieces,
75.1 M parameters) and a SentencePiece tokenizer trained on a few sentences whose vocabulary file is padded to
those 59,514 pieces, saved with ``save_pretrained`` as a Hub snapshot is. Then, each in a fresh process on torch's
default threads, through the app's own loader and decoders: the load's seconds and resident memory; a 20-word
sentence with a 25-piece target forced and its word heatmap (what the Translate page draws first) — seconds from
the loaded model; greedy and beam 5 on the same sentence; and the resident memory with the bundled default model
loaded beside it. A random model's greedy decoding runs to the length cap, so the decoding times are upper bounds.

``--size tc-big``: the same under ``.bench/tc-big-sized/`` with the transformer-big shape of the opus-mt-tc-big
models (d_model 1024, 6 + 6 layers, 16 heads, feed-forward 4096) and a shared vocabulary of 56,500 pieces, which
makes the 235 M parameters of issue 57's example; it is loaded under one's own machine's caps (no public server's).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from models import ROOT

FOLDER = ROOT / ".bench" / "opus-mt-sized"
OPUS_MT_EN_FR = dict(d_model=512, encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
                     decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, vocab_size=59514,
                     decoder_vocab_size=59514, max_position_embeddings=512, scale_embedding=True,
                     share_encoder_decoder_embeddings=True, pad_token_id=59513, eos_token_id=0,
                     decoder_start_token_id=59513, forced_eos_token_id=0, activation_function="swish",
                     static_position_embeddings=True)
TC_BIG = dict(d_model=1024, encoder_attention_heads=16, decoder_attention_heads=16, encoder_ffn_dim=4096,
              decoder_ffn_dim=4096, vocab_size=56500, decoder_vocab_size=56500, pad_token_id=56499,
              decoder_start_token_id=56499)
SIZES = {"opus-mt": ("opus-mt-en-fr-sized", FOLDER, {}),  # what is measured: its name, folder and config
         "tc-big": ("opus-mt-tc-big-sized", FOLDER.with_name("tc-big-sized"), TC_BIG)}
SENTENCE = ("The committee met on Tuesday to discuss the new rules that will govern fishing in the northern waters "
            "next year.")  # 20 words


def build(folder: Path = FOLDER, sizes: dict | None = None) -> Path:
    """The opus-mt-sized model (or one of other ``sizes``) and its tokenizer, its vocabulary padded to the config's,
    saved under ``folder`` (once)."""
    if (folder / "model.safetensors").exists():
        return folder
    import torch
    from transformers import GenerationConfig, MarianConfig, MarianMTModel

    from models.storage.examples import load_examples
    from tests.hf_helpers import tiny_marian

    english = [e.text for e in load_examples()] + [SENTENCE] * 20  # a small vocabulary: more pieces than opus-mt cuts
    tiny_marian(folder, steps=0, source_text=english, source_vocab=250)  # its tokenizer; the model is replaced
    config = MarianConfig(**{**OPUS_MT_EN_FR, **(sizes or {})})
    pad = config.pad_token_id  # the vocabulary's last piece
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    del vocab["<pad>"]
    vocab.update({f"▁filler{i}": i for i in range(len(vocab), pad)})
    vocab["<pad>"] = pad
    (folder / "vocab.json").write_text(json.dumps(vocab), encoding="utf-8")
    torch.manual_seed(0)
    model = MarianMTModel(config).eval()
    model.generation_config = GenerationConfig(bad_words_ids=[[pad]], decoder_start_token_id=pad, eos_token_id=0,
                                               forced_eos_token_id=0, pad_token_id=pad, max_length=512,
                                               num_beams=4)
    model.save_pretrained(folder)
    return folder


PROBE = """
import json, resource, sys, time
started = time.perf_counter()
from models.storage.hub import load_model
from models.decoding.greedy import forced, greedy
from models.decoding.beam import beam_search
from models.analysis.heatmaps import word_heatmap
def rss(): return int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) / 1024
languages = None if sys.argv[3] == '-' else tuple(sys.argv[3].split(','))
loaded = load_model(sys.argv[1], device='cpu', languages=languages)
out = {'load_s': time.perf_counter() - started, 'rss_after_load_mib': rss(),
       'parameters': sum(p.numel() for p in loaded.model.parameters())}
text = sys.argv[2]
prefix = loaded.tokenizers.target.ids('')  # a many-to-many model's language tag, written first
target = prefix + list(range(100, 125 - len(prefix)))  # 25 pieces
t = time.perf_counter(); trace = forced(loaded.model, loaded.tokenizers, text, target)
view = word_heatmap(trace, trace.read(loaded.reading.plain)); out['first_heatmap_s'] = time.perf_counter() - t
t = time.perf_counter(); g = greedy(loaded.model, loaded.tokenizers, text)
out['greedy_s'], out['greedy_pieces'] = time.perf_counter() - t, len(g.target_ids)
t = time.perf_counter(); b = beam_search(loaded.model, loaded.tokenizers, text, 5)
out['beam5_s'] = time.perf_counter() - t
out['source_pieces'] = len(trace.source.ids)
default = load_model('additive', device='cpu'); greedy(default.model, default.tokenizers, 'A dog runs.')
out['rss_with_default_mib'] = rss()
print(json.dumps(out))
"""


def measure(folder: Path, languages: tuple[str, str] | None = None, dtype: str = "float32") -> dict:
    """The probe's figures for the model in ``folder`` (set to ``languages``, its weights in ``dtype``), from a
    fresh process."""
    import os

    argv = [sys.executable, "-c", PROBE, str(folder), SENTENCE, ",".join(languages) if languages else "-"]
    return json.loads(subprocess.run(argv, cwd=ROOT, check=True, capture_output=True, text=True,
                                     env={**os.environ, "ATLAS_DTYPE": dtype}).stdout.splitlines()[-1])


def bench_hub_model(size: str = "opus-mt") -> None:
    name, folder, sizes = SIZES[size]
    folder = build(folder, sizes)
    report(f"{name} Marian", folder, measure(folder))


def report(name: str, folder: Path, found: dict) -> None:
    """Print the probe's figures for the model ``name`` saved in ``folder``."""
    weights_mb = (folder / "model.safetensors").stat().st_size / 1e6
    print(f"{name}, random weights: {found['parameters']:,} parameters, model.safetensors {weights_mb:.0f} MB")
    print(f"load (fresh process, imports included): {found['load_s']:.1f} s, RSS {found['rss_after_load_mib']:.0f} MiB")
    print(f"first heatmap: 20 words ({found['source_pieces']} pieces), 25 pieces forced, word view: "
          f"{found['first_heatmap_s']:.2f} s")
    print(f"greedy: {found['greedy_s']:.2f} s for {found['greedy_pieces']} pieces (a random model runs to the cap); "
          f"beam 5: {found['beam5_s']:.2f} s")
    print(f"RSS with the bundled default loaded beside it: {found['rss_with_default_mib']:.0f} MiB")


LRU_PROBE = """
import json, os, sys, time
from pages._shared import cache
from models.decoding.greedy import forced
def rss(): return int(open('/proc/self/status').read().split('VmRSS:')[1].split()[0]) / 1024
found = []
for ref in sys.argv[1:]:
    loaded = cache.load(cache.ModelKey(ref))
    forced(loaded.model, loaded.tokenizers, 'The committee met on Tuesday.', list(range(100, 110)))
    del loaded
    found.append(round(rss()))
print(json.dumps(found))
"""


def _hub_cache(folder: Path, repos: list[str], cache: Path) -> None:
    """Lay ``folder`` out under each repo id as huggingface_hub's cache does (blobs hard-linked, not copied)."""
    import hashlib
    import os

    for repo in repos:
        root = cache / f"models--{repo.replace('/', '--')}"
        if root.exists():
            continue
        commit = hashlib.sha1(repo.encode()).hexdigest()
        (root / "snapshots" / commit).mkdir(parents=True)
        (root / "blobs").mkdir()
        for f in folder.iterdir():
            blob = root / "blobs" / hashlib.sha256(f.read_bytes()).hexdigest()
            os.link(f, blob)
            (root / "snapshots" / commit / f.name).symlink_to(f"../../blobs/{blob.name}")
        (root / "refs").mkdir()
        (root / "refs" / "main").write_text(commit)


def bench_hub_lru(kept: int = 2, different: int = 5, requests: int = 10) -> None:
    """Visitors asking for ``different`` opus-mt-sized Hub models in turn, ``requests`` in all: the server's RSS
    after each, keeping ``kept`` of them, and keeping every one."""
    import os

    folder, cache = build(), ROOT / ".bench" / "hf-cache"
    repos = [f"someone/opus-mt-sized-{k}" for k in range(different)]
    _hub_cache(folder, repos, cache)
    asked = [repos[k % different] for k in range(requests)]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(cache)}
    for keep in (kept, different):
        out = subprocess.run([sys.executable, "-c", LRU_PROBE, *asked], cwd=ROOT, check=True, capture_output=True,
                             text=True, env={**env, "ATLAS_HUB_MODELS": str(keep)}).stdout.splitlines()[-1]
        print(f"{requests} requests over {different} Hub models, {keep} kept: RSS MiB after each {json.loads(out)}")
