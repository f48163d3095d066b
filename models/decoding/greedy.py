"""Decoding with full traces: greedy (with attention what-ifs) and forced (beam search is in :mod:`.beam`).

Every architecture decodes through the same loop (:mod:`models.network.translator`): encode once, then one
step at a time from a cache, each step's log-probabilities and cross-attention kept in a :class:`~.trace.Trace`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import torch

from ..network.contract import Focus, GenerationRules, Step
from ..network.tokenization import PROMPT, Encoded, InputError, TokenizerPair
from ..network.translator import Translator
from .penalties import read_before_writing, ruled
from .trace import Trace, trace_row, written

MAX_SOURCE_TOKENS = 80  # pieces, EOS included; longer text is cut and flagged


def source_limit(model: Translator) -> int:
    """The most source pieces (EOS included) decoding reads: :data:`MAX_SOURCE_TOKENS`, or fewer where the model's
    positions end sooner."""
    return min(MAX_SOURCE_TOKENS, model.max_positions or MAX_SOURCE_TOKENS)


def pad_sources(model: Translator, sources: Sequence[Encoded]) -> tuple[torch.Tensor, torch.Tensor]:
    """Encoded sentences padded into ``src`` [B, S] and ``mask`` [B, S] (True on tokens), on the model's device."""
    S, pad = max(len(e.ids) for e in sources), model.specials.pad
    src = torch.full((len(sources), S), pad, dtype=torch.long)
    for b, e in enumerate(sources):
        src[b, : len(e.ids)] = torch.tensor(e.ids)
    src = src.to(model.device)
    return src, src != pad


def encode_batch(model: Translator, sources: Sequence[Encoded]):
    """The model's memory of encoded sentences, padded (:func:`pad_sources`)."""
    return model.encode(*pad_sources(model, sources))


def _forced_pass(model: Translator, source: Encoded, forced: torch.Tensor) -> tuple[None, list[Step], torch.Tensor]:
    """One sentence's steps of feeding ``forced`` [1, T] from one teacher-forced pass; no steps where the model
    offers none. A batch is stepped instead: one pass would hold every layer's attention over the whole batch."""
    forced = forced.to(model.device)
    tgt_in = torch.cat([torch.full_like(forced[:, :1], model.specials.start), forced[:, :-1]], 1)  # [1, T]
    return None, model.forced_steps(*pad_sources(model, [source]), tgt_in) or [], forced


def _run_steps(
    model: Translator,
    sources: Sequence[Encoded],
    max_len: int,
    forced: torch.Tensor | None = None,
    overrides: Mapping[int, tuple[int, ...]] | None = None,
    layer: int = 0,
    keep_steps: bool = True,
) -> tuple[object, list[Step], torch.Tensor]:
    """Greedy (or ``forced`` [B, T] ids) decoding of a batch; returns the memory, the steps and the tokens [B, T].

    ``overrides`` {t: source pieces} make layer ``layer``'s heads read those pieces alone at step t. Without
    ``keep_steps`` no step is kept (an empty list): a batch of 128 news sentences kept every step's
    log-probabilities and attention, 1.2 GB, only for its tokens."""
    if forced is not None and len(sources) == 1 and not overrides:
        found = _forced_pass(model, sources[0], forced)
        if found[1]:
            return found
    memory, specials = encode_batch(model, sources), model.specials
    B, rules = len(sources), model.generation_rules
    history = read_before_writing(model, sources) if rules.any and forced is None else None
    prev = torch.full((B,), specials.start, dtype=torch.long, device=model.device)
    cache, done = model.start(memory), torch.zeros(B, dtype=torch.bool, device=model.device)
    steps, tokens = [], []
    n_steps = forced.shape[1] if forced is not None else max_len
    for t in range(n_steps):
        focus = Focus(layer, tuple(overrides[t])) if overrides and t in overrides else None
        step, cache = model.decode_step(prev, cache, memory, focus)
        prev = _next(step, None if forced is None else forced[:, t].to(prev.device), history, rules)
        prev = prev.masked_fill(done, specials.pad)
        if keep_steps:
            steps.append(step)
        tokens.append(prev)
        done = done | torch.isin(prev, torch.tensor(specials.ends, device=prev.device))
        if done.all():
            break
    return memory, steps, torch.stack(tokens, dim=1)  # [B, T]


def _next(step: Step, forced: torch.Tensor | None, history: list[list[int]] | None,
          rules: GenerationRules) -> torch.Tensor:
    """The pieces [B] each row writes after ``step``: the ``forced`` ones, else the likeliest — under the model's
    generation rules where it has any, on the logits, as ``generate``'s greedy search applies them (a penalty on
    log-probabilities is another penalty: it moves a likely piece's score far less than an unlikely one's, so a step
    without logits is refused, never ruled on what it has); ``history``, each row's tokens read so far, gains
    them."""
    if forced is not None:
        return forced
    if history is None:
        return step.log_probs.argmax(-1)
    if step.logits is None:
        raise ValueError("a model with generation rules must give each step's logits: generate applies the rules to "
                         "them, not to the log-probabilities")
    found = ruled(step.logits, history, rules).argmax(-1)
    for row, token in zip(history, found.tolist()):
        row.append(token)
    return found


def max_target_len(model: Translator, source: Encoded) -> int:
    """The most steps a translation of ``source`` takes: twice its sentence's pieces and ten (a prompt around it —
    a chat template, a task prefix — counts for nothing); one fewer than the model's positions, so that a forced
    row's EOS, which comes after this limit, still has a position."""
    cap = 2 * sum(piece != PROMPT for piece in source.pieces) + 10
    return cap if model.max_positions is None else min(cap, model.max_positions - 1)


@torch.inference_mode()
def greedy(
    model: Translator,
    tokenizers: TokenizerPair,
    text: str,
    overrides: Mapping[int, tuple[int, ...]] | None = None,
    layer: int = 0,
) -> Trace:
    """Greedy decoding of ``text``; ``overrides`` {t: source pieces} make layer ``layer``'s heads read those pieces
    alone, equally, at step t (the RNN's only layer is 0)."""
    source = tokenizers.source.encode(text, source_limit(model))
    for t, pieces in (overrides or {}).items():
        if not pieces or len(set(pieces)) < len(pieces) or not all(0 <= p < len(source.ids) for p in pieces):
            raise InputError(f"attention override at step {t} must name source pieces 0…{len(source.ids) - 1}, "
                             "each once")
    model.eval()
    memory, steps, tokens = _run_steps(model, [source], max_target_len(model, source), overrides=overrides, layer=layer)
    return trace_row(tokenizers, source, steps, tokens, 0, memory, model.specials.ends)


def _forced_ids(model: Translator, tokenizers: TokenizerPair, source: Encoded, target: str | Sequence[int]
                ) -> list[int]:
    """The target ids a forced decoding feeds: ``target`` (text or ids) cut to the source's length limit, EOS last."""
    if isinstance(target, str):
        target = tokenizers.target.ids(target)
    eos = model.specials.eos
    return [i for i in target if i != eos][: max_target_len(model, source)] + [eos]


@torch.inference_mode()
def forced(model: Translator, tokenizers: TokenizerPair, text: str, target: str | Sequence[int]) -> Trace:
    """The trace of feeding a given translation: ``target`` as text or as target ids."""
    source = tokenizers.source.encode(text, source_limit(model))
    if isinstance(target, str) and not target.strip():
        raise InputError("Type the target sentence to force.")
    ids = _forced_ids(model, tokenizers, source, target)
    model.eval()
    memory, steps, tokens = _run_steps(model, [source], len(ids), forced=torch.tensor([ids]))
    return trace_row(tokenizers, source, steps, tokens, 0, memory, model.specials.ends)


@torch.inference_mode()
def greedy_batch(model: Translator, tokenizers: TokenizerPair, texts: Sequence[str],
                 targets: Sequence[str] | None = None) -> list[Trace]:
    """The greedy traces of non-empty ``texts``, batched, in input order — or, given ``targets`` (one text each,
    empty allowed), their forced traces. The same steps as :func:`translate_batch`, each sentence cut at its own
    length limit, so the translations are its translations."""
    model.eval()
    sources = [tokenizers.source.encode(t, source_limit(model)) for t in texts]
    forced_ids = None
    if targets is not None:
        rows = [_forced_ids(model, tokenizers, s, t) for s, t in zip(sources, targets, strict=True)]
        forced_ids = torch.full((len(rows), max(map(len, rows))), model.specials.pad, dtype=torch.long)  # [B, T]
        for b, ids in enumerate(rows):
            forced_ids[b, : len(ids)] = torch.tensor(ids)
    longest = max(max_target_len(model, s) for s in sources)
    memory, steps, tokens = _run_steps(model, sources, longest, forced=forced_ids)
    out = []
    for b, source in enumerate(sources):
        cap = max_target_len(model, source) + (targets is not None)  # a forced row's EOS comes after its limit
        out.append(trace_row(tokenizers, source, steps[:cap], tokens[:, :cap], b, memory, model.specials.ends))
    return out


@torch.inference_mode()
def translate_batch(model: Translator, tokenizers: TokenizerPair, texts: Sequence[str]) -> list[str]:
    """Greedy translations of non-empty ``texts``, batched, in input order."""
    model.eval()
    sources = [tokenizers.source.encode(t, source_limit(model)) for t in texts]
    _, _, tokens = _run_steps(model, sources, max(max_target_len(model, s) for s in sources), keep_steps=False)
    out = []
    for source, row in zip(sources, tokens.tolist()):
        row = row[: max_target_len(model, source)]  # each sentence keeps its own length limit
        row = row[: written(row, model.specials.ends)]
        out.append(tokenizers.target.decode(row))
    return out
