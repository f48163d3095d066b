"""Fetching a checkpoint from the Hugging Face Hub: its files sized from the Hub's listing before anything is
downloaded, only the files a checkpoint needs, the local cache alone when the Hub cannot be asked, and every
failure an :class:`Unfetched` that says why (the loader's :class:`~models.storage.loaded.CheckpointError` then)."""
from __future__ import annotations

import os
from pathlib import Path

from huggingface_hub import HfApi, snapshot_download
from huggingface_hub.errors import (
    HFValidationError,
    LocalEntryNotFoundError,
    RepositoryNotFoundError,
    RevisionNotFoundError,
)
from huggingface_hub.utils import filter_repo_objects, validate_repo_id

from ...network.tokenization import SOURCE_FILE, TARGET_FILE
from .hf import listing_refusal
from .limits import DOWNLOAD_SETTING

CHECKPOINT_FILES = ("config.json", "model.safetensors", SOURCE_FILE, TARGET_FILE)
# optional: cards, records, the neighbour index; a Hugging Face translator's SentencePiece models (Marian's *.spm,
# M2M100's sentencepiece.bpe.model; NLLB's and mBART-50's tokenizer.json is among the *.json)
DOWNLOAD_PATTERNS = (*CHECKPOINT_FILES, "*.md", "*.json", "neighbours.safetensors", "*.spm", "sentencepiece.bpe.model")


class Unfetched(RuntimeError):
    """Why a Hub repo cannot be fetched, said for users."""


def download_bytes(siblings) -> int:
    """Bytes of a repo's files (``ModelInfo.siblings``) that :func:`download` would fetch."""
    wanted = filter_repo_objects(siblings, allow_patterns=list(DOWNLOAD_PATTERNS), key=lambda f: f.rfilename)
    return sum(f.size or 0 for f in wanted)


def download(repo_id: str, revision: str | None, max_mb: float) -> Path:
    """The local snapshot of Hub repo ``repo_id`` (at ``revision``), downloaded if need be once its files are known
    to fit in ``max_mb``; from the cache alone when the Hub cannot be asked."""
    where = f"{repo_id}" + (f" (revision {revision})" if revision else "")
    try:
        validate_repo_id(repo_id)
        # Size the files first; without a network answer, only the local cache may be used.
        commit = None if _offline() else _sized_commit(repo_id, revision, max_mb)
        path = snapshot_download(repo_id, revision=commit or revision, allow_patterns=list(DOWNLOAD_PATTERNS),
                                 local_files_only=commit is None)
    except RevisionNotFoundError as e:
        raise Unfetched(f"Hub repo {repo_id} has no revision {revision!r}.") from e
    except RepositoryNotFoundError as e:
        raise Unfetched(f"Hub repo {repo_id} was not found (or it is private and no token was given).") from e
    except LocalEntryNotFoundError as e:
        raise Unfetched(
            f"Cannot reach the Hugging Face Hub to fetch {where}, and it is not in the local cache "
            f"({'HF_HUB_OFFLINE is set' if _offline() else 'the network is unreachable'})."
        ) from e
    except HFValidationError as e:
        raise Unfetched(f"{repo_id!r} is not a valid Hub repo id.") from e
    except OSError as e:  # connection errors during a download surface as OSError subclasses
        raise Unfetched(f"Could not download {where} from the Hub: {e}") from e
    return Path(path)


def _sized_commit(repo_id: str, revision: str | None, max_mb: float) -> str | None:
    """The commit to download once its files are known to fit in ``max_mb``; None if the Hub cannot be asked."""
    try:
        info = HfApi().model_info(repo_id, revision=revision, files_metadata=True)
    except (RepositoryNotFoundError, RevisionNotFoundError):
        raise
    except Exception:  # no answer (the HTTP client's errors differ between versions): only the cache may be used
        return None
    if reason := listing_refusal(repo_id, {f.rfilename for f in info.siblings or []}):
        raise Unfetched(reason)
    size_mb = download_bytes(info.siblings or []) / 1e6
    if size_mb > max_mb:
        raise Unfetched(f"Hub repo {repo_id} holds {size_mb:,.0f} MB of checkpoint files; this app loads at "
                              f"most {max_mb:,.0f} MB here. On your own machine, set {DOWNLOAD_SETTING} to raise "
                              "the cap.")
    return info.sha


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "0").lower() in {"1", "true", "yes", "on"}
