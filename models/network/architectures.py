"""Every architecture a checkpoint may name in ``config.json``'s ``architecture`` field: its config and model.

A new architecture plugs in here: a frozen config dataclass (with ``architecture`` and ``format_version``
fields) and a :class:`~.translator.Translator` subclass (docs/architecture.md, "Where to add …").
"""
from __future__ import annotations

from dataclasses import fields

from .seq2seq import RNNConfig, Seq2Seq
from .transformer import TransformerConfig, TransformerTranslator
from .translator import FORMAT_VERSION, Translator

#: name → (config class, model class). Checkpoints written before this field existed are RNNs.
ARCHITECTURES = {"rnn": (RNNConfig, Seq2Seq), "transformer": (TransformerConfig, TransformerTranslator)}
DEFAULT_ARCHITECTURE = "rnn"
MAX_VOCAB = 100_000  # what a stranger's config.json may ask for, at most
MAX_WIDTH = 4096
MAX_LAYERS = 24


def config_class(architecture: str):
    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {architecture!r}; expected one of {tuple(ARCHITECTURES)}")
    return ARCHITECTURES[architecture][0]


def build_model(config) -> Translator:
    """A freshly initialised model of ``config``'s architecture."""
    return ARCHITECTURES[config.architecture][1](config)


#: The bounds every size a stranger's config.json may give is checked against, before anything is allocated.
BOUNDS = {"src_vocab_size": (5, MAX_VOCAB), "tgt_vocab_size": (5, MAX_VOCAB), "emb_dim": (1, MAX_WIDTH),
          "enc_hidden": (1, MAX_WIDTH), "dec_hidden": (1, MAX_WIDTH), "attn_dim": (1, MAX_WIDTH),
          "d_model": (1, MAX_WIDTH), "heads": (1, 64), "enc_layers": (1, MAX_LAYERS), "dec_layers": (1, MAX_LAYERS),
          "ffn_dim": (1, 4 * MAX_WIDTH), "dropout": (0, 0.99), "pad_id": (0, 0)}


def check_config(config: dict):
    """The config dataclass of ``config`` (its ``architecture``, RNN when absent); ValueError unless every value
    has its type and bounds (nothing is allocated)."""
    architecture = config.get("architecture", DEFAULT_ARCHITECTURE)
    if not isinstance(architecture, str):
        raise ValueError(f"architecture must be a str, got {architecture!r}")
    cls = config_class(architecture)
    kinds = {f.name: {"int": int, "float": float, "str": str}[f.type] for f in fields(cls)}
    if config.get("format_version") != FORMAT_VERSION or not set(config) <= set(kinds):
        raise ValueError(f"written by an incompatible version (format {config.get('format_version')!r}, this code "
                         f"reads format {FORMAT_VERSION}; unexpected keys: {sorted(set(config) - set(kinds))})")
    for key, value in config.items():
        if type(value) is not kinds[key] and not (kinds[key] is float and type(value) is int):
            raise ValueError(f"{key} must be a {kinds[key].__name__}, got {value!r}")
    for key, (low, high) in BOUNDS.items():
        if key in config and not low <= config[key] <= high:
            raise ValueError(f"{key} = {config[key]!r} is outside {low}…{high}")
    try:
        return cls(**config)
    except TypeError as e:  # a required size is missing
        raise ValueError(str(e)) from e
