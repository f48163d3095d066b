"""The attentional RNN encoder–decoder of Bahdanau, Cho & Bengio (2015).

Encoder (§3.2): embeddings → bidirectional GRU; the annotation of source word
s is ``h_s = [→h_s; ←h_s]`` (width 2·He, the keys and values of attention).

Decoder (§3.1, appendix A.2.2), one step t, with Bahdanau's ordering:

    e_t, α_t = score(s_{t-1}, h)          the query is the *previous* state
    c_t      = Σ_s α_ts h_s               fed into the recurrence …
    s_t      = GRU([E y_{t-1}; c_t], s_{t-1})
    logits   = W_o tanh(W_r [s_t; c_t; E y_{t-1}])   … and into the read-out

``s_0 = tanh(W_init ←h_1)``, from the backward encoder's summary of the whole
sentence. With ``score="none"`` the decoder gets no attention: every step
receives the same fixed summary ``c = [→h_S; ←h_1]`` (the paper's RNNencdec
baseline), so the comparison isolates what attention adds.
"""
from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from ..nouns.attention_map import Kind
from .attention import SCORES, build_attention
from .contract import Focus, RNNStep, Step
from .parts import AttentionParts, Sublayer, Zeroed
from .translator import FORMAT_VERSION, Translator, check_identity


@dataclass(frozen=True)
class RNNConfig:
    """Everything that fixes an RNN's shape: saved as ``config.json``, read by the training CLI and the card."""

    src_vocab_size: int
    tgt_vocab_size: int
    score: str = "additive"  # a key of attention.SCORES
    emb_dim: int = 256  # E, both languages
    enc_hidden: int = 256  # He, each direction: annotations are 2·He wide
    dec_hidden: int = 512  # H
    attn_dim: int = 256  # A, the common space of additive and dot-product scores
    dropout: float = 0.2
    pad_id: int = 0
    architecture: str = "rnn"  # checkpoints written before the Transformer have no such key: they are RNNs
    format_version: int = FORMAT_VERSION

    def __post_init__(self):
        check_identity(self, "rnn")
        if self.score not in SCORES:
            raise ValueError(f"unknown score {self.score!r}; expected one of {tuple(SCORES)}")

    @property
    def attention_shapes(self) -> dict[Kind, tuple[int, int]]:
        """``{kind: (L, heads)}``: one layer of one head reading the source, none for the RNNencdec baseline."""
        return {} if self.score == "none" else {Kind.CROSS: (1, 1)}


@dataclass(frozen=True)
class EncoderOutput:
    """What the decoder needs from one batch of source sentences."""

    annotations: Tensor  # [B, S, 2He]  keys and values
    proj_keys: Tensor | None  # [B, S, *]  score-specific key projection; None without attention
    mask: Tensor  # [B, S] bool, True = real token
    summary: Tensor  # [B, 2He]  [→h_S; ←h_1], the fixed context without attention
    init_state: Tensor  # [B, H]


def _one_head(x: Tensor | None) -> Tensor | None:
    """The RNN's weights or energies [B, S] as the interface's [B, L=1, heads=1, S]."""
    return None if x is None else x[:, None, None, :]


class Seq2Seq(Translator):
    """Bidirectional-GRU encoder, GRU decoder, pluggable attention score.

    As a :class:`~.translator.Translator`: the memory is an :class:`EncoderOutput`, the cache is the decoder
    state ``s_{t-1}`` [B, H], and a step's attention is one layer of one head, ``[B, 1, 1, S]``.
    """

    architecture = "rnn"

    def __init__(self, config: RNNConfig):
        super().__init__()
        c = self.config = config
        ctx_dim = 2 * c.enc_hidden
        self.src_embed = nn.Embedding(c.src_vocab_size, c.emb_dim, padding_idx=c.pad_id)
        self.tgt_embed = nn.Embedding(c.tgt_vocab_size, c.emb_dim, padding_idx=c.pad_id)
        self.encoder = nn.GRU(c.emb_dim, c.enc_hidden, batch_first=True, bidirectional=True)
        self.init_state = nn.Linear(c.enc_hidden, c.dec_hidden)
        self.attention = None if c.score == "none" else build_attention(c.score, c.dec_hidden, ctx_dim, c.attn_dim)
        self.decoder = nn.GRUCell(c.emb_dim + ctx_dim, c.dec_hidden)
        self.readout = nn.Linear(c.dec_hidden + ctx_dim + c.emb_dim, c.emb_dim)
        self.output = nn.Linear(c.emb_dim, c.tgt_vocab_size)
        self.dropout = nn.Dropout(c.dropout)

    def encode(self, src: Tensor, mask: Tensor) -> EncoderOutput:
        """Annotate a padded batch: ``src`` [B, S] ids, ``mask`` [B, S] True on tokens."""
        lengths = mask.sum(1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(
            self.dropout(self.src_embed(src)), lengths, batch_first=True, enforce_sorted=False
        )
        out, final = self.encoder(packed)  # final: [2, B, He] (forward, backward)
        annotations, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=src.shape[1])
        proj_keys = None if self.attention is None else self.attention.project_keys(annotations)
        return EncoderOutput(
            annotations=annotations,  # [B, S, 2He]
            proj_keys=proj_keys,
            mask=mask,
            summary=torch.cat([final[0], final[1]], dim=-1),  # [B, 2He]
            init_state=torch.tanh(self.init_state(final[1])),  # [B, H]
        )

    def attend(self, state: Tensor, enc: EncoderOutput, override: Tensor | None = None):
        """Context, weights and energies for queries ``state`` [B, H].

        ``override`` [B, S] replaces the computed weights (what-if exploration).
        """
        if self.attention is None:
            return enc.summary, None, None
        context, weights, energies = self.attention(
            state[:, None, :], enc.annotations, mask=enc.mask, proj_keys=enc.proj_keys,
            override=None if override is None else override[:, None, :],
        )  # [B, 1, 2He], [B, 1, S], [B, 1, S]
        return context.squeeze(1), weights.squeeze(1), energies.squeeze(1)

    def advance(self, emb: Tensor, state: Tensor, enc: EncoderOutput, override: Tensor | None = None):
        """The recurrence of one step: attend with ``s_{t-1}``, then ``s_t = GRU([E y_{t-1}; c_t], s_{t-1})``.

        ``emb`` [B, E] is the (dropped-out) embedding of the previous tokens.
        Returns ``(s_t, c_t, α_t, e_t)``.
        """
        context, weights, energies = self.attend(state, enc, override)
        new_state = self.decoder(torch.cat([emb, context], dim=-1), state)  # [B, H]
        return new_state, context, weights, energies

    def read_out(self, states: Tensor, contexts: Tensor, embs: Tensor) -> Tensor:
        """``W_o tanh(W_r [s_t; c_t; E y_{t-1}])`` for one step [B, *] or all steps [B, T, *] at once."""
        hidden = torch.tanh(self.readout(self.dropout(torch.cat([states, contexts, embs], dim=-1))))
        return self.output(self.dropout(hidden))  # [B, (T,) V]

    def start(self, enc: EncoderOutput) -> Tensor:
        """The cache before the first step: ``s_0`` [B, H]."""
        return enc.init_state

    def decode_step(
        self, prev: Tensor, state: Tensor, enc: EncoderOutput, focus: Focus | None = None
    ) -> tuple[Step, Tensor]:
        """One step: previous tokens ``prev`` [B] and state ``s_{t-1}`` [B, H]; returns the step and ``s_t``.

        ``focus`` (layer 0, the only one) replaces α_t with the weights it sets, [B, S] (what-if exploration).
        """
        if focus is not None and focus.layer != 0:
            raise ValueError(f"an RNN has one attention layer (0), not layer {focus.layer}")
        emb = self.dropout(self.tgt_embed(prev))  # [B, E]
        override = None if focus is None else focus.weights(enc.mask)  # [B, S]
        new_state, context, weights, energies = self.advance(emb, state, enc, override)
        log_probs = self.read_out(new_state, context, emb).log_softmax(-1)  # [B, V]
        step = Step(log_probs, _one_head(weights), _one_head(energies), new_state, RNNStep(state, context))
        return step, new_state

    def teacher_force(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """Run the recurrence over target inputs ``tgt_in`` [B, T] (teacher forcing).

        Returns states s_t [B, T, H], contexts c_t [B, T, 2He] and the (dropped-out)
        input embeddings [B, T, E]: position t's three read-out inputs, which write piece t.
        """
        enc = self.encode(src, src_mask)
        embs = self.dropout(self.tgt_embed(tgt_in))  # [B, T, E]
        state, states, contexts = enc.init_state, [], []
        for emb in embs.unbind(1):  # unbind, not embs[:, t]: one gradient copy back instead of T full-size ones
            state, context, _, _ = self.advance(emb, state, enc)
            states.append(state)
            contexts.append(context)
        return torch.stack(states, dim=1), torch.stack(contexts, dim=1), embs  # [B, T, H], [B, T, 2He], [B, T, E]

    def forward(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, keep: Tensor | None = None) -> Tensor:
        """Teacher-forced logits [B, T, V] for target inputs ``tgt_in`` [B, T].

        With ``keep`` [B, T] bool, only the logits of those positions, [N, V]: training
        skips the padding's 8000-way read-out and softmax. Only the recurrence runs step by
        step; the read-out does not feed back under teacher forcing, so it runs once over
        all steps (`python -m bench train`).
        """
        states, contexts, embs = self.teacher_force(src, src_mask, tgt_in)
        if keep is not None:
            states, contexts, embs = states[keep], contexts[keep], embs[keep]  # [N, *]
        return self.read_out(states, contexts, embs)  # [B, T, V] or [N, V]

    def own_step_log_probs(self, src: Tensor, mask: Tensor, tgt_in: Tensor, tgt_out: Tensor,
                           steps: Tensor) -> Tensor:
        """``log p(y_t | y_<t, x)`` [B] of row b's own step ``t = steps[b]``, for B copies of one sentence pair
        (attribution asks one written piece per row).

        Teacher forcing as in :meth:`teacher_force`, but a row stops after its own step: rows are ordered by step,
        longest first, so the rows still running are always a prefix (a view, no copy) and the decoder does about
        half the work of running every row to the end.
        """
        order = torch.argsort(steps, descending=True, stable=True)  # [B]
        enc = self.encode(src, mask)  # in the caller's row order: Captum's hook replaces the embeddings row by row
        enc = EncoderOutput(*(None if f is None else f[order] for f in
                              (enc.annotations, enc.proj_keys, enc.mask, enc.summary, enc.init_state)))
        embs, targets = self.tgt_embed(tgt_in[order]), tgt_out[order]  # [B, T, E], [B, T]
        last = int(steps.max())
        running = [int((steps >= t).sum()) for t in range(last + 2)]  # rows still decoding at step t
        state, picked = enc.init_state, []
        for t in range(last + 1):
            n, done = running[t], running[t + 1]  # rows [done:n] end at this step
            prefix = EncoderOutput(enc.annotations[:n], None if enc.proj_keys is None else enc.proj_keys[:n],
                                   enc.mask[:n], enc.summary[:n], enc.init_state[:n])
            state, context, _, _ = self.advance(embs[:n, t], state[:n], prefix)  # [n, H], [n, 2He]
            logits = self.read_out(state[done:], context[done:], embs[done:n, t])  # [n - done, V]
            picked.append(logits.log_softmax(-1).gather(1, targets[done:n, t, None]).squeeze(1))
        return torch.cat(picked[::-1])[torch.argsort(order)]  # [B]: rows back in the caller's order

    def attention_parts(self, src: Tensor, mask: Tensor, tgt_in: Tensor,
                        zeroed: Zeroed | None = None) -> AttentionParts | None:
        """The one attention as a sub-layer without a residual stream: α [B, 1, T, S] over the annotations h_s
        [B, 1, S, 2He], and as "W^O" every map the context c_t enters — the GRU's input weights on c_t and the
        read-out's — so ‖α_ts h_s W^O‖ is the size of what annotation s adds to step t (Kobayashi et al.'s norm,
        for the 2015 model). None without attention. Value zeroing reads a Transformer's layers: refused here."""
        if self.attention is None:
            return None
        if zeroed is not None:
            raise ValueError("value zeroing compares a Transformer layer's output; an RNN has no such layers")
        enc = self.encode(src, mask)
        state, weights = enc.init_state, []
        for emb in self.tgt_embed(tgt_in).unbind(1):
            state, _, alpha, _ = self.advance(emb, state, enc)
            weights.append(alpha)  # [B, S]
        E, H, ctx = self.config.emb_dim, self.config.dec_hidden, 2 * self.config.enc_hidden
        entered = torch.cat([self.decoder.weight_ih[:, E:], self.readout.weight[:, H:H + ctx]])  # [3H + E, 2He]
        cross = Sublayer(torch.stack(weights, 1)[:, None], enc.annotations[:, None], entered.T[None],
                         entered.new_zeros(entered.shape[0]), residual=None, output=None)
        return AttentionParts(encoder=(), decoder=(), cross=(cross,))

    @property
    def state_size(self) -> int:
        return self.config.dec_hidden
