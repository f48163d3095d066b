"""models/storage/loading/disk.py: a server's Hub cache kept under its total, the repos used longest ago deleted first,
the one just loaded never."""
import os
import time

from models.storage.hub import LoadPolicy, load_model
from models.storage.loading.disk import trim_hub_cache

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


def policy(**settings: str):
    """The load policy of a deployment of these settings (the rest unset)."""
    from models.views.deployment import deployment

    return deployment(lambda name: settings.get(name, "")).load_policy


def test_a_public_server_bounds_its_hub_disk_by_default_and_a_setting_changes_it():
    from models.views.deployment import PUBLIC_HUB_DISK_MB

    assert policy().max_cache_mb is None  # one's own machine: the HF cache as the user keeps it
    assert policy(ATLAS_PUBLIC="1").max_cache_mb == PUBLIC_HUB_DISK_MB == 2000
    assert policy(ATLAS_PUBLIC="1", ATLAS_HUB_DISK_MB="500").max_cache_mb == 500
    assert policy(ATLAS_HUB_DISK_MB="500").max_cache_mb == 500  # one's own machine may bound it too


def test_a_public_server_keeps_its_caps_and_ones_own_machine_follows_its_memory(monkeypatch):
    from models.storage.loading import limits as load_limits

    for name in ("ATLAS_MAX_PARAMETERS", "ATLAS_MAX_DOWNLOAD_MB"):
        monkeypatch.delenv(name, raising=False)  # LoadPolicy() reads them for one's own machine
    monkeypatch.setattr(load_limits, "physical_memory", lambda: 8 * 2**30)
    own = policy()
    assert own.max_parameters == 268_435_456 > 235_000_000 and own.max_download_mb > 1_000  # tc-big admitted
    public = policy(ATLAS_PUBLIC="1")
    assert (public.max_parameters, public.max_download_mb) == (100_000_000, 400.0)  # today's caps
    # a setting raises even a public server's
    assert policy(ATLAS_PUBLIC="1", ATLAS_MAX_PARAMETERS="250000000").max_parameters == 250_000_000
    assert policy(ATLAS_PUBLIC="yes", ATLAS_HUB_ALLOW="a/b, c/d").hub_allow == {"a/b", "c/d"}
    assert policy(ATLAS_PUBLIC="1").local_paths is False and policy().local_paths is True


def test_a_deployment_reads_its_limits_and_falls_back_on_a_malformed_setting():
    from models.views.deployment import PUBLIC_ATTRIBUTION_S, PUBLIC_CORPUS, deployment

    def of(**settings: str):
        return deployment(lambda name: settings.get(name, ""))

    own, public = of(), of(ATLAS_PUBLIC="1")
    assert (own.attribution_limit_s, own.corpus_sentences, own.corpus_seconds, own.test_set_mb) == (None,) * 4
    assert (public.corpus_sentences, public.corpus_seconds) == PUBLIC_CORPUS
    assert public.attribution_limit_s == PUBLIC_ATTRIBUTION_S
    assert of(ATLAS_PUBLIC="1", ATLAS_CORPUS_SENTENCES="many").corpus_sentences == PUBLIC_CORPUS[0]
    assert of(ATLAS_CORPUS_SENTENCES="0").corpus_sentences == 1  # at least one sentence a table
    assert of(ATLAS_TORCH_THREADS="x").torch_threads == 1 and of(ATLAS_HUB_MODELS="0").hub_models_kept == 1
    assert of(ATLAS_HUB_REPO="someone/opus-mt-en-de").default_model == "someone/opus-mt-en-de"
    assert of(ATLAS_GOLD="/gold").gold_folder.as_posix() == "/gold"
    assert of(ATLAS_DATA="/data").data_folder.as_posix() == "/data"
