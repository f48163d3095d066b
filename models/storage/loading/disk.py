"""The disk a server gives to Hub downloads: at most a stated total, the repos used longest ago deleted first.

huggingface_hub's own cache scan (``scan_cache_dir``) measures what the cache holds and its ``delete_revisions``
removes whole repos, so files shared between revisions are counted and freed once. The repo just loaded is never
deleted, even when it alone is over the total (its size was already checked against the download cap).
"""
from __future__ import annotations


def trim_hub_cache(max_mb: float, keep: str) -> list[str]:
    """Delete model repos from the Hugging Face cache, least recently used first, until it holds at most
    ``max_mb`` megabytes; never ``keep``. Returns the repo ids deleted."""
    from huggingface_hub import constants, scan_cache_dir

    found = scan_cache_dir(constants.HF_HUB_CACHE)  # the cache the download used, read now (it may be set late)
    total, deleted = found.size_on_disk, []
    for repo in sorted(found.repos, key=lambda r: max(r.last_accessed, r.last_modified)):
        if total <= max_mb * 1e6:
            break
        if repo.repo_id == keep or repo.repo_type != "model":
            continue
        found.delete_revisions(*(revision.commit_hash for revision in repo.revisions)).execute()
        total -= repo.size_on_disk
        deleted.append(repo.repo_id)
    return deleted
