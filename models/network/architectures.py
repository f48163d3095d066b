"""Every architecture a checkpoint may name in ``config.json``'s ``architecture`` field: its config and model.

A new architecture plugs in here: a frozen config dataclass (with ``architecture`` and ``format_version``
fields) and a :class:`~.translator.Translator` subclass (docs/architecture.md, "Where to add …").
"""
from __future__ import annotations

from .seq2seq import RNNConfig, Seq2Seq
from .transformer import TransformerConfig, TransformerTranslator
from .translator import Translator

#: name → (config class, model class). Checkpoints written before this field existed are RNNs.
ARCHITECTURES = {"rnn": (RNNConfig, Seq2Seq), "transformer": (TransformerConfig, TransformerTranslator)}
DEFAULT_ARCHITECTURE = "rnn"


def config_class(architecture: str):
    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {architecture!r}; expected one of {tuple(ARCHITECTURES)}")
    return ARCHITECTURES[architecture][0]


def build_model(config) -> Translator:
    """A freshly initialised model of ``config``'s architecture."""
    return ARCHITECTURES[config.architecture][1](config)
