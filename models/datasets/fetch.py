"""A file fetched once over HTTP and kept in the cache, checked against the SHA-256 it was pinned to: how data
that no downloader indexes comes by name (human links, Multi30k). Whole or not at all: a file is written beside
its place and moved there once complete, so two server processes fetching it at once never see half of it."""
from __future__ import annotations

import hashlib
import urllib.request
from pathlib import Path

TIMEOUT_S = 30.0


class FetchError(ValueError):
    """A pinned file that cannot be had; the message says why, for users."""


def fetch_pinned(url: str, digest: str, path: Path, what: str, setting: str) -> Path:
    """``path``, fetched from ``url`` first unless it is there with the SHA-256 ``digest``; ``what`` names it and
    ``setting`` the variable that points at a mirror, in the messages."""
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest:
        return path
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as answer:
            data = answer.read()
    except OSError as e:
        raise FetchError(f"{what} is not cached and {url} could not be fetched ({e}). Connect to the internet "
                         f"once, or set {setting} to a mirror.") from e
    if hashlib.sha256(data).hexdigest() != digest:
        raise FetchError(f"{url} is not the file {what} was pinned to (its SHA-256 differs); nothing was kept.")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    partial.replace(path)
    return path
