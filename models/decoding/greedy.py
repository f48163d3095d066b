"""Decoding with full traces: greedy (with attention what-ifs) and forced (beam search is in :mod:`.beam`).

A :class:`Trace` records everything the app draws for one sentence: at each
target step t the attention α_t over the S source pieces, the raw energies,
the context c_t, the decoder state s_t and the most likely next pieces.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from ..network.seq2seq import EncoderOutput, Seq2Seq, StepOutput
from ..network.tokenization import BOS_ID, EOS_ID, PAD_ID, Encoded, InputError, TokenizerPair

MAX_SOURCE_TOKENS = 80  # pieces, EOS included; longer text is cut and flagged
TOP_K = 5


@dataclass(frozen=True, eq=False)
class Trace:
    """One decoded sentence. Arrays are float32 numpy; ``attention`` is None without attention."""

    source: Encoded
    target_ids: tuple[int, ...]  # [T], EOS included when produced
    target_pieces: tuple[str, ...]  # [T]
    translation: str
    attention: np.ndarray | None  # [T, S]
    energies: np.ndarray | None  # [T, S]
    contexts: np.ndarray  # [T, Dv]
    queries: np.ndarray  # [T, H]  s_{t-1}, what step t's attention was asked with
    states: np.ndarray  # [T, H]  s_t
    annotations: np.ndarray  # [S, Dv]
    top_k: tuple[tuple[tuple[str, float], ...], ...]  # [T][k] (piece, probability)
    token_logprobs: np.ndarray  # [T]

    @property
    def logprob(self) -> float:
        return float(self.token_logprobs.sum())


def encode_batch(model: Seq2Seq, sources: Sequence[Encoded]):
    """Pad encoded sentences into ``src`` [B, S] and ``mask`` [B, S], then encode."""
    S = max(len(e.ids) for e in sources)
    src = torch.full((len(sources), S), PAD_ID, dtype=torch.long)
    for b, e in enumerate(sources):
        src[b, : len(e.ids)] = torch.tensor(e.ids)
    src = src.to(model.device)
    return model.encode(src, src != PAD_ID)


def _run_steps(
    model: Seq2Seq,
    sources: Sequence[Encoded],
    max_len: int,
    forced: Sequence[int] | None = None,
    overrides: Mapping[int, np.ndarray] | None = None,
) -> tuple[EncoderOutput, list[StepOutput], torch.Tensor]:
    """Greedy (or forced) decoding of a batch; returns encoding, steps and tokens [B, T]."""
    enc = encode_batch(model, sources)
    B = len(sources)
    prev = torch.full((B,), BOS_ID, dtype=torch.long, device=model.device)
    state, done = enc.init_state, torch.zeros(B, dtype=torch.bool, device=model.device)
    steps, tokens = [], []
    n_steps = len(forced) if forced is not None else max_len
    for t in range(n_steps):
        override = None
        if overrides and t in overrides:
            override = torch.as_tensor(overrides[t], dtype=torch.float32, device=model.device).expand(B, -1)
        step = model.decode_step(prev, state, enc, override)
        prev = step.logits.argmax(-1) if forced is None else torch.full_like(prev, forced[t])
        prev = prev.masked_fill(done, PAD_ID)
        steps.append(step)
        tokens.append(prev)
        state, done = step.state, done | (prev == EOS_ID)
        if done.all():
            break
    return enc, steps, torch.stack(tokens, dim=1)  # [B, T]


def trace_row(
    tokenizers: TokenizerPair,
    source: Encoded,
    steps: Sequence[StepOutput],
    tokens: torch.Tensor,  # [B, T]
    row: int,
    annotations: torch.Tensor,  # [B, S, Dv]
) -> Trace:
    """Cut sentence ``row`` out of batched steps, up to and including its EOS."""
    ids = tokens[row].tolist()
    T = ids.index(EOS_ID) + 1 if EOS_ID in ids else len(ids)
    ids = ids[:T]
    logprobs = torch.stack([s.logits[row] for s in steps[:T]]).log_softmax(-1)  # [T, V]
    top = logprobs.topk(TOP_K, dim=-1)
    S = len(source.ids)

    def stack(field):
        if getattr(steps[0], field) is None:
            return None
        return torch.stack([getattr(s, field)[row] for s in steps[:T]]).float().cpu().numpy()

    att, en = stack("weights"), stack("energies")
    return Trace(
        source=source,
        target_ids=tuple(ids),
        target_pieces=tuple(tokenizers.target.pieces(ids)),
        translation=tokenizers.target.decode(ids),
        attention=None if att is None else att[:, :S],
        energies=None if en is None else en[:, :S],
        contexts=stack("context"),
        queries=stack("query"),
        states=stack("state"),
        annotations=annotations[row, :S].float().cpu().numpy(),
        top_k=tuple(
            tuple((p, float(np.exp(v))) for p, v in zip(tokenizers.target.pieces(i.tolist()), vals.tolist()))
            for i, vals in zip(top.indices, top.values)
        ),
        token_logprobs=logprobs.gather(1, torch.tensor(ids, device=logprobs.device)[:, None])
        .squeeze(1)
        .cpu()
        .numpy(),
    )


def max_target_len(source: Encoded) -> int:
    return 2 * len(source.ids) + 10


@torch.inference_mode()
def greedy(
    model: Seq2Seq,
    tokenizers: TokenizerPair,
    text: str,
    overrides: Mapping[int, np.ndarray] | None = None,
) -> Trace:
    """Greedy decoding of ``text``; ``overrides`` {t: weights [S]} replace α_t at step t."""
    source = tokenizers.source.encode(text, MAX_SOURCE_TOKENS)
    for t, w in (overrides or {}).items():
        if len(w) != len(source.ids) or abs(float(np.sum(w)) - 1) > 1e-4 or np.min(w) < 0:
            raise InputError(f"attention override at step {t} must be {len(source.ids)} weights ≥ 0 summing to 1")
    model.eval()
    enc, steps, tokens = _run_steps(model, [source], max_target_len(source), overrides=overrides)
    return trace_row(tokenizers, source, steps, tokens, 0, enc.annotations)


@torch.inference_mode()
def forced(model: Seq2Seq, tokenizers: TokenizerPair, text: str, target: str | Sequence[int]) -> Trace:
    """The trace of feeding a given translation: ``target`` as text or as target ids."""
    source = tokenizers.source.encode(text, MAX_SOURCE_TOKENS)
    if isinstance(target, str):
        if not target.strip():
            raise InputError("Type the target sentence to force.")
        target = tokenizers.target.ids(target)
    ids = [i for i in target if i != EOS_ID][: max_target_len(source)] + [EOS_ID]
    model.eval()
    enc, steps, tokens = _run_steps(model, [source], len(ids), forced=ids)
    return trace_row(tokenizers, source, steps, tokens, 0, enc.annotations)


@torch.inference_mode()
def translate_batch(model: Seq2Seq, tokenizers: TokenizerPair, texts: Sequence[str]) -> list[str]:
    """Greedy translations of non-empty ``texts``, batched, in input order."""
    model.eval()
    sources = [tokenizers.source.encode(t, MAX_SOURCE_TOKENS) for t in texts]
    _, _, tokens = _run_steps(model, sources, max(max_target_len(s) for s in sources))
    out = []
    for source, row in zip(sources, tokens.tolist()):
        row = row[: max_target_len(source)]  # each sentence keeps its own length limit
        row = row[: row.index(EOS_ID)] if EOS_ID in row else row
        out.append(tokenizers.target.decode(row))
    return out
