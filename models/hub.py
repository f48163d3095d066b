"""Checkpoints on disk and on the Hugging Face Hub.

A checkpoint is a directory (or a Hub model repo) holding ``config.json``,
``model.safetensors``, ``source_tokenizer.json``, ``target_tokenizer.json``
and a model card ``README.md``. Weights are read with safetensors only:
nothing is ever unpickled.

:func:`load_model` resolves a reference, in this order: a bundled checkpoint
name (``additive`` or ``en-fr-additive``, under ``assets/checkpoints``), a
local directory, a Hub repo id (``owner/name``, with an optional revision).
"""
from __future__ import annotations

import contextlib
import inspect
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import torch
from huggingface_hub import snapshot_download
from huggingface_hub.errors import (
    HFValidationError,
    LocalEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from safetensors import SafetensorError

from .seq2seq import FORMAT_VERSION, Seq2Seq
from .tokenization import SOURCE_FILE, TARGET_FILE, TokenizerPair

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "assets" / "checkpoints"
BUNDLED_PREFIX = "en-fr-"
DEFAULT_MODEL = "additive"
CHECKPOINT_FILES = ("config.json", "model.safetensors", SOURCE_FILE, TARGET_FILE)


class CheckpointError(RuntimeError):
    """A model reference that cannot be loaded; the message says why, for users."""


@dataclass(frozen=True, eq=False)
class LoadedModel:
    model: Seq2Seq
    tokenizers: TokenizerPair
    path: Path  # the local directory the files were read from
    device: torch.device

    @property
    def score(self) -> str:
        return self.model.score


def pick_device(device: str | None = None) -> torch.device:
    """``device`` if given, else CUDA when available, else CPU."""
    if device:
        return torch.device(device)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def bundled_models() -> list[str]:
    """Short names of the checkpoints under ``assets/checkpoints``."""
    return sorted(p.name.removeprefix(BUNDLED_PREFIX) for p in BUNDLED_DIR.glob(f"{BUNDLED_PREFIX}*") if p.is_dir())


def save_checkpoint(directory: str | Path, model: Seq2Seq, tokenizers: TokenizerPair) -> None:
    """Write weights, config and tokenizers (the card is written by :mod:`models.card`)."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "README.md").touch()  # keep the mixin from writing its generic card
    model.save_pretrained(directory)
    tokenizers.save(directory)


def resolve(ref: str, revision: str | None = None) -> Path:
    """Local directory holding the checkpoint ``ref`` (downloading from the Hub if needed)."""
    ref = ref.strip()
    if not ref:
        raise CheckpointError("No model given.")
    for name in (ref, BUNDLED_PREFIX + ref):
        if (BUNDLED_DIR / name).is_dir() and "/" not in ref:
            return BUNDLED_DIR / name
    if Path(ref).expanduser().is_dir():
        return Path(ref).expanduser()
    if ref.count("/") != 1 or ref.startswith((".", "/", "~")):
        raise CheckpointError(
            f"Model {ref!r} not found: it is not a bundled model ({', '.join(bundled_models())}), "
            "not a local directory, and not a Hub repo id of the form owner/name."
        )
    return _download(ref, revision)


def _download(repo_id: str, revision: str | None) -> Path:
    where = f"{repo_id}" + (f" (revision {revision})" if revision else "")
    try:
        path = snapshot_download(repo_id, revision=revision, allow_patterns=[*CHECKPOINT_FILES, "*.md", "*.json"])
    except RevisionNotFoundError as e:
        raise CheckpointError(f"Hub repo {repo_id} has no revision {revision!r}.") from e
    except RepositoryNotFoundError as e:
        raise CheckpointError(f"Hub repo {repo_id} was not found (or it is private and no token was given).") from e
    except LocalEntryNotFoundError as e:
        raise CheckpointError(
            f"Cannot reach the Hugging Face Hub to fetch {where}, and it is not in the local cache "
            f"({'HF_HUB_OFFLINE is set' if _offline() else 'the network is unreachable'})."
        ) from e
    except HFValidationError as e:
        raise CheckpointError(f"{repo_id!r} is not a valid Hub repo id.") from e
    except OSError as e:  # connection errors surface as OSError subclasses
        raise CheckpointError(f"Could not download {where} from the Hub: {e}") from e
    return Path(path)


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes", "on"}


def _check_files(path: Path) -> dict:
    missing = [f for f in CHECKPOINT_FILES if not (path / f).is_file()]
    if missing:
        raise CheckpointError(f"Checkpoint {path} is incomplete: missing {', '.join(missing)}.")
    try:
        config = json.loads((path / "config.json").read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise CheckpointError(f"Checkpoint {path}: config.json is not valid JSON ({e}).") from e
    expected = set(inspect.signature(Seq2Seq.__init__).parameters) - {"self"}
    version = config.get("format_version")
    if version != FORMAT_VERSION or not set(config) <= expected:
        raise CheckpointError(
            f"Checkpoint {path} was written by an incompatible version (format {version!r}, "
            f"this code reads format {FORMAT_VERSION}; unexpected keys: {sorted(set(config) - expected) or 'none'})."
        )
    return config


def load_model(ref: str = DEFAULT_MODEL, revision: str | None = None, device: str | None = None) -> LoadedModel:
    """Load ``ref`` onto ``device`` (auto by default); raises :class:`CheckpointError`."""
    path = resolve(ref, revision)
    config = _check_files(path)
    try:
        tokenizers = TokenizerPair.load(path)
    except Exception as e:  # tokenizers raises plain Exception on a bad file
        raise CheckpointError(f"Checkpoint {path}: the tokenizer files cannot be read ({e}).") from e
    try:
        with contextlib.redirect_stdout(sys.stderr):  # the mixin prints; stdout may be our output
            model = Seq2Seq.from_pretrained(path, strict=True, map_location="cpu")
    except (SafetensorError, OSError, ValueError) as e:
        raise CheckpointError(f"Checkpoint {path}: model.safetensors is corrupt or truncated ({e}).") from e
    except RuntimeError as e:
        raise CheckpointError(f"Checkpoint {path}: the weights do not match config.json ({e}).") from e
    if (config["src_vocab_size"], config["tgt_vocab_size"]) != (tokenizers.source.vocab_size, tokenizers.target.vocab_size):
        raise CheckpointError(f"Checkpoint {path}: the tokenizers do not match the model's vocabulary sizes.")
    target = pick_device(device)
    return LoadedModel(model.to(target).eval(), tokenizers, path, target)
