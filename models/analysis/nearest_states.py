"""Nearest neighbours of a decoder state: "the model is in the same state as when it wrote *robe* here".

Seq2Seq-Vis (Strobelt et al. 2018) explains a decoding step by the training
examples whose hidden states lie closest. Here the decoder state s_t that wrote
each target piece of a sample of training pairs (forced decoding, the same path
as the app's traces) is centred, projected onto its first D principal
components and normalised; a query is projected the same way and compared by
cosine similarity — one matrix product over the N stored rows, no index
structure needed at this size (`python -m bench neighbours` times it).

The index lives beside a checkpoint as ``neighbours.safetensors``: float16
vectors, the projection, and the sentences as JSON in the header metadata.
Nothing is unpickled, and a file from a stranger is checked against the model.
"""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from safetensors import SafetensorError, safe_open
from safetensors.torch import save_file

from ..decoding.greedy import forced
from ..network.tokenization import TokenizerPair, word_groups
from ..network.translator import Translator
from .heatmaps import word_text

INDEX_FILE = "neighbours.safetensors"
INDEX_FORMAT = "atlas-neighbours-1"
WHAT = "decoder state s_t"


class IndexFileError(ValueError):
    """An index file that cannot be used with this model; the message is for users."""


@dataclass(frozen=True, eq=False)
class StateIndex:
    """Decoder states of training target pieces, reduced to D dimensions: N rows from M sentences."""

    mean: np.ndarray  # [H]  float32, the states' mean
    components: np.ndarray  # [H, D]  float32, principal directions
    vectors: np.ndarray  # [N, D]  unit length; float16 on disk, float32 here
    sentence: np.ndarray  # [N]  which sentence a row comes from
    position: np.ndarray  # [N]  which of its target pieces that state wrote
    sources: tuple[str, ...]  # [M]  the English sentences
    pieces: tuple[tuple[str, ...], ...]  # [M]  their French target pieces, EOS included
    explained: float  # share of the states' variance the D components keep

    def project(self, states: np.ndarray) -> np.ndarray:
        """Unit vectors [*, D] for decoder states [*, H]."""
        z = (states - self.mean) @ self.components  # [*, D]
        return z / np.maximum(np.linalg.norm(z, axis=-1, keepdims=True), 1e-12)


@dataclass(frozen=True)
class Neighbour:
    sentence: int  # index into StateIndex.sources / pieces
    position: int  # the target piece written in that state
    similarity: float  # cosine, in the reduced space
    before: str  # the French sentence: the words before the one holding that piece …
    word: str  # … that word …
    after: str  # … and the rest


def build_index(model: Translator, tokenizers: TokenizerPair, pairs: Sequence[tuple[str, str]],
                dim: int = 64) -> StateIndex:
    """Force-decode each (English, French) pair and keep every step's state, reduced to ``dim`` dimensions."""
    traces = [forced(model, tokenizers, src, tgt) for src, tgt in pairs]
    states = np.concatenate([t.states for t in traces])  # [N, H]
    sentence = np.concatenate([np.full(len(t.states), m) for m, t in enumerate(traces)])  # [N]
    position = np.concatenate([np.arange(len(t.states)) for t in traces])  # [N]
    mean = states.mean(0)  # [H]
    _, singular, vt = np.linalg.svd(states - mean, full_matrices=False)  # vt: [H, H]
    dim = min(dim, vt.shape[0])
    index = StateIndex(
        mean=mean, components=np.ascontiguousarray(vt[:dim].T), vectors=np.empty((0, dim), np.float32),
        sentence=sentence, position=position, sources=tuple(src for src, _ in pairs),
        pieces=tuple(t.target_pieces for t in traces),
        explained=float((singular[:dim] ** 2).sum() / (singular**2).sum()),
    )
    vectors = index.project(states).astype(np.float16).astype(np.float32)  # what a reload will hold
    return StateIndex(**{**index.__dict__, "vectors": vectors})


def nearest(index: StateIndex, state: np.ndarray, k: int = 8) -> list[Neighbour]:
    """The ``k`` stored states most similar to ``state`` [H], best first."""
    similarity = index.vectors @ index.project(state)  # [N]
    k = min(k, len(similarity))
    best = np.argpartition(-similarity, k - 1)[:k]
    best = best[np.argsort(-similarity[best], kind="stable")]
    return [_neighbour(index, int(r), float(similarity[r])) for r in best]


def _neighbour(index: StateIndex, row: int, similarity: float) -> Neighbour:
    m, p = int(index.sentence[row]), int(index.position[row])
    before, word, after = highlight(index.pieces[m], p)
    return Neighbour(m, p, similarity, before, word, after)


def highlight(pieces: Sequence[str], position: int) -> tuple[str, str, str]:
    """The words before the one holding piece ``position``, that word, and the words after."""
    groups = word_groups(pieces)
    words = [word_text(pieces, g) for g in groups]  # a bare ▁ inside a word is no letter of it
    w = next(n for n, g in enumerate(groups) if position in g)
    return " ".join(words[:w]), words[w], " ".join(words[w + 1 :])


def save_index(index: StateIndex, directory: str | Path) -> Path:
    path = Path(directory) / INDEX_FILE
    tensors = {
        "mean": torch.from_numpy(index.mean.astype(np.float32)),
        "components": torch.from_numpy(index.components.astype(np.float32)),
        "vectors": torch.from_numpy(index.vectors.astype(np.float16)),
        "sentence": torch.from_numpy(index.sentence.astype(np.int32)),
        "position": torch.from_numpy(index.position.astype(np.int32)),
    }
    metadata = {"format": INDEX_FORMAT, "what": WHAT, "explained": repr(index.explained),
                "sentences": json.dumps([{"en": s, "pieces": list(p)} for s, p in zip(index.sources, index.pieces)],
                                        ensure_ascii=False)}
    save_file(tensors, path, metadata=metadata)
    return path


def load_index(directory: str | Path, model: Translator) -> StateIndex | None:
    """The index beside a checkpoint, None if it has none; raises :class:`IndexFileError` if it does not fit."""
    path = Path(directory) / INDEX_FILE
    if not path.exists():
        return None
    try:
        with safe_open(path, "np") as f:
            meta, arrays = f.metadata() or {}, {k: f.get_tensor(k) for k in f.keys()}
        rows = json.loads(meta["sentences"])
        index = StateIndex(
            mean=arrays["mean"], components=arrays["components"], vectors=arrays["vectors"].astype(np.float32),
            sentence=arrays["sentence"].astype(np.int64), position=arrays["position"].astype(np.int64),
            sources=tuple(str(r["en"]) for r in rows), pieces=tuple(tuple(map(str, r["pieces"])) for r in rows),
            explained=float(meta["explained"]),
        )
    except (SafetensorError, OSError, KeyError, TypeError, ValueError) as e:
        raise IndexFileError(f"{INDEX_FILE} cannot be read ({type(e).__name__}: {e}).") from e
    if meta.get("format") != INDEX_FORMAT:
        raise IndexFileError(f"{INDEX_FILE} is not an index this app reads (format {meta.get('format')!r}).")
    _check(index, model.state_size)
    return index


def _check(index: StateIndex, hidden: int) -> None:
    """Shapes and row references consistent with each other and with a decoder of width ``hidden``."""
    n, d = index.vectors.shape
    lengths = np.array([len(p) for p in index.pieces])
    fits = (
        index.mean.shape == (hidden,) and index.components.shape == (hidden, d) and 0 < d <= hidden
        and index.sentence.shape == index.position.shape == (n,) and n > 0
        and index.sentence.min() >= 0 and index.sentence.max() < len(index.pieces) == len(index.sources)
        and index.position.min() >= 0 and bool((index.position < lengths[index.sentence]).all())
    )
    if not fits:
        raise IndexFileError(f"{INDEX_FILE} does not fit this model (its shapes or row references disagree).")
