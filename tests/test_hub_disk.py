"""models/storage/hub_disk.py: a server's Hub cache kept under its total, the repos used longest ago deleted first,
the one just loaded never."""
import os
import time

from models.storage.hub import LoadPolicy, load_model
from models.storage.hub_disk import trim_hub_cache

from .helpers import populate_hf_cache
from .hf_helpers import tiny_marian


def repo_mb(cache, repo):
    root = cache / f"models--{repo.replace('/', '--')}"
    return sum(f.stat().st_size for f in (root / "blobs").iterdir()) / 1e6


def test_the_repos_used_longest_ago_go_first_and_the_one_just_loaded_stays(tmp_path, offline_cache):
    folder = tiny_marian(tmp_path / "m")
    repos = [f"someone/opus-mt-tiny-{k}" for k in range(3)]
    for age, repo in zip((300, 200, 100), repos):  # the first used longest ago
        populate_hf_cache(offline_cache, repo, folder)
        for blob in (offline_cache / f"models--{repo.replace('/', '--')}" / "blobs").iterdir():
            os.utime(blob, (time.time() - age, time.time() - age))
    size = repo_mb(offline_cache, repos[0])
    assert trim_hub_cache(2.5 * size, keep=repos[0]) == [repos[1]]  # over by one repo; the first is kept
    assert not (offline_cache / f"models--{repos[1].replace('/', '--')}").exists()
    assert trim_hub_cache(10 * size, keep=repos[0]) == []  # under the total: nothing goes


def test_loading_a_hub_repo_keeps_the_cache_under_the_policys_total(tmp_path, offline_cache):
    folder = tiny_marian(tmp_path / "m")
    repos = [f"someone/opus-mt-tiny-{k}" for k in range(3)]
    for repo in repos:
        populate_hf_cache(offline_cache, repo, folder)
    size = repo_mb(offline_cache, repos[0])
    load_model(repos[2], device="cpu", policy=LoadPolicy(max_cache_mb=1.5 * size))
    kept = sorted(p.name for p in offline_cache.iterdir() if p.name.startswith("models--"))
    assert kept == ["models--someone--opus-mt-tiny-2"]  # the one just loaded


def test_a_public_server_bounds_its_hub_disk_by_default_and_a_setting_changes_it(monkeypatch):
    from pages._shared import deploy

    monkeypatch.delenv("ATLAS_HUB_DISK_MB", raising=False)
    monkeypatch.delenv("ATLAS_PUBLIC", raising=False)
    assert deploy.load_policy().max_cache_mb is None  # one's own machine: the HF cache as the user keeps it
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    assert deploy.load_policy().max_cache_mb == deploy.PUBLIC_HUB_DISK_MB == 2000
    monkeypatch.setenv("ATLAS_HUB_DISK_MB", "500")
    assert deploy.load_policy().max_cache_mb == 500


def test_a_public_server_keeps_its_caps_and_ones_own_machine_follows_its_memory(monkeypatch):
    from models.storage import load_limits
    from pages._shared import deploy

    for name in ("ATLAS_PUBLIC", "ATLAS_MAX_PARAMETERS", "ATLAS_MAX_DOWNLOAD_MB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(load_limits, "physical_memory", lambda: 8 * 2**30)
    own = deploy.load_policy()
    assert own.max_parameters == 268_435_456 > 235_000_000 and own.max_download_mb > 1_000  # tc-big admitted
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    public = deploy.load_policy()
    assert (public.max_parameters, public.max_download_mb) == (100_000_000, 400.0)  # today's caps
    monkeypatch.setenv("ATLAS_MAX_PARAMETERS", "250000000")
    assert deploy.load_policy().max_parameters == 250_000_000  # a setting raises even a public server's
