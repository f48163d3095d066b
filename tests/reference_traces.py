"""What the bundled checkpoints compute, recorded once as a regression reference (``tests/data/bundled_traces.npz``).

``tests/test_regression.py`` compares every bundled model's translations, attention, energies, states, contexts,
self-attention, a switched-off head and gradient×input with these numbers, so a change that shifts every heatmap a
little turns it red. Record again only when a checkpoint is retrained on purpose (its card changes with it):

    python -m tests.reference_traces        # rewrites tests/data/bundled_traces.npz on the CPU
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from models.analysis.attribution import attribution_matrix
from models.analysis.head_removal import without_heads
from models.decoding.beam import beam_search
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import greedy
from models.nouns.attention_map import Kind
from models.nouns.matrix import GRADIENT_X_INPUT
from models.storage.hub import load_model

FILE = Path(__file__).parent / "data" / "bundled_traces.npz"
MODELS = ("none", "additive", "dot", "transformer")
SENTENCES = ("A black dog is running on the beach.", "The children are jumping into the swimming pool.",
             "I think that the weather will be nice tomorrow, don't you?")
WIDTH = 6  # of each state, context, query and annotation vector: enough to see any change, a small file
SWITCHED_OFF = ("cross", 0, 3)  # the bundled Transformer's aligning head (its card's reading)


def traces_of(loaded, text: str) -> dict:
    """Greedy, beam search's second hypothesis (beam 3) and a what-if forcing step 1 onto the first piece."""
    found = {"greedy": greedy(loaded.model, loaded.tokenizers, text),
             "beam": beam_search(loaded.model, loaded.tokenizers, text, 3).hypotheses[1]}
    if loaded.model.has_attention:
        found["whatif"] = greedy(loaded.model, loaded.tokenizers, text, overrides={1: (0,)})
    return found


def quantities(name: str, device: str | None = None) -> dict[str, np.ndarray]:
    """Every recorded array of one bundled model on ``device`` (CUDA where there is one, by default), keyed
    ``name/sentence/decoding/quantity``."""
    loaded, out = load_model(name, device=device), {}
    for i, text in enumerate(SENTENCES):
        for decoding, trace in traces_of(loaded, text).items():
            key = f"{name}/{i}/{decoding}"
            out[f"{key}/target_ids"] = np.array(trace.target_ids)
            out[f"{key}/token_logprobs"] = trace.token_logprobs
            out[f"{key}/states"] = trace.states[:, :WIDTH]
            if trace.attention is not None:
                out[f"{key}/attention"], out[f"{key}/energies"] = trace.attention.weights, trace.attention.energies
            if trace.rnn is not None:
                for part in ("queries", "contexts", "annotations"):
                    out[f"{key}/{part}"] = getattr(trace.rnn, part)[:, :WIDTH]
    first = greedy(loaded.model, loaded.tokenizers, SENTENCES[0])
    out[f"{name}/0/gradient×input"] = attribution_matrix(loaded.model, first, GRADIENT_X_INPUT)
    kinds = attention_kinds(loaded.model, first)
    if kinds is not None:
        out[f"{name}/0/encoder_self"], out[f"{name}/0/decoder_self"] = kinds[Kind.ENCODER].weights, kinds[Kind.DECODER].weights
        off = greedy(without_heads(loaded.model, [SWITCHED_OFF]), loaded.tokenizers, SENTENCES[0])
        out[f"{name}/0/head_off/target_ids"] = np.array(off.target_ids)
        out[f"{name}/0/head_off/token_logprobs"] = off.token_logprobs
    return out


def record() -> None:
    arrays = {k: v for name in MODELS for k, v in quantities(name, "cpu").items()}
    FILE.parent.mkdir(exist_ok=True)
    np.savez_compressed(FILE, **arrays)
    print(f"{FILE}: {len(arrays)} arrays, {FILE.stat().st_size / 1024:.0f} KiB")


if __name__ == "__main__":
    record()
