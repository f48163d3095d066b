"""models/storage/hub.py: references resolve, the Hub cache works offline, and every failure has its message."""
import json

import pytest
from huggingface_hub.hf_api import RepoSibling

from models import ROOT
from models.storage import hub
from models.storage.hub import CheckpointError, LoadPolicy, load_model, save_checkpoint
from models.storage.loading import download as hub_download

from .helpers import populate_hf_cache

REPO_ID = "attention-atlas/tiny-en-fr"


@pytest.fixture
def checkpoint(tmp_path, tiny_model, tiny_tokenizers):
    path = tmp_path / "ck"
    save_checkpoint(path, tiny_model, tiny_tokenizers)
    return path


def test_hub_repo_id_loads_from_offline_cache(checkpoint, offline_cache, tiny_model):
    commit = populate_hf_cache(offline_cache, REPO_ID, checkpoint)
    loaded = load_model(REPO_ID, device="cpu")
    assert loaded.path.name == commit
    for a, b in zip(loaded.model.state_dict().values(), tiny_model.state_dict().values()):
        assert (a == b.half().float()).all()  # the weights are stored in float16
    assert load_model(REPO_ID, revision=commit, device="cpu").path == loaded.path


def test_hub_repo_not_cached_while_offline(offline_cache):
    with pytest.raises(CheckpointError, match="Cannot reach the Hugging Face Hub.*HF_HUB_OFFLINE is set"):
        load_model("someone/not-cached")


def test_unknown_revision_while_offline(checkpoint, offline_cache):
    populate_hf_cache(offline_cache, REPO_ID, checkpoint)
    with pytest.raises(CheckpointError, match="Cannot reach the Hugging Face Hub"):
        load_model(REPO_ID, revision="v9")


def test_unknown_name_is_not_found():
    with pytest.raises(CheckpointError, match="not a bundled model"):
        load_model("no-such-model")


def test_empty_reference():
    with pytest.raises(CheckpointError, match="No model given"):
        load_model("  ")


def test_truncated_weights(checkpoint):
    weights = checkpoint / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        load_model(str(checkpoint))


def test_garbage_weights(checkpoint):
    (checkpoint / "model.safetensors").write_bytes(b"\x00" * 64)
    with pytest.raises(CheckpointError, match="corrupt or truncated"):
        load_model(str(checkpoint))


def test_missing_tokenizer(checkpoint):
    (checkpoint / "target_tokenizer.json").unlink()
    with pytest.raises(CheckpointError, match="missing target_tokenizer.json"):
        load_model(str(checkpoint))


def test_unreadable_tokenizer(checkpoint):
    (checkpoint / "source_tokenizer.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="tokenizer files cannot be read"):
        load_model(str(checkpoint))


def rewrite_config(checkpoint, **changes):
    config = json.loads((checkpoint / "config.json").read_text())
    (checkpoint / "config.json").write_text(json.dumps({**config, **changes}))


@pytest.mark.parametrize("changes, message", [
    ({"format_version": 99}, "incompatible version"),
    ({"dec_hidden": 7}, "the weights do not match config.json"),
    ({"src_vocab_size": 10**9}, "src_vocab_size = 1000000000 is outside"),
    ({"emb_dim": -3}, "emb_dim = -3 is outside"),
    ({"dec_hidden": "512"}, "dec_hidden must be a int"),
    ({"enc_hidden": True}, "enc_hidden must be a int"),
    ({"dropout": 2.0}, "dropout = 2.0 is outside"),
    ({"score": "bilinear"}, "unknown score"),
    ({"emb_dim": 4096, "dec_hidden": 4096, "enc_hidden": 4096}, "over 50,000,000 parameters"),
])
def test_config_is_checked_before_anything_is_allocated(checkpoint, changes, message):
    rewrite_config(checkpoint, **changes)
    with pytest.raises(CheckpointError, match=message):
        load_model(str(checkpoint))


def test_config_that_is_not_an_object(checkpoint):
    (checkpoint / "config.json").write_text("[1, 2]")
    with pytest.raises(CheckpointError, match="not a JSON object"):
        load_model(str(checkpoint))


def test_public_policy_refuses_local_paths(checkpoint):
    assert load_model(str(checkpoint)).path == checkpoint  # trusted (the CLIs)
    with pytest.raises(CheckpointError, match="loads no local paths"):
        load_model(str(checkpoint), policy=LoadPolicy(local_paths=False))


@pytest.mark.parametrize("ref", ["..", ".", "../checkpoints", "en-fr-.."])
def test_public_policy_is_not_fooled_by_relative_names(ref):
    with pytest.raises(CheckpointError, match="not found|not a valid Hub repo id"):
        load_model(ref, policy=LoadPolicy(local_paths=False))


def test_bundled_models_load_by_either_name():
    assert hub.resolve("dot") == hub.resolve("en-fr-dot") == hub.BUNDLED_DIR / "en-fr-dot"


def test_public_policy_still_loads_bundled_models():
    assert load_model("dot", policy=LoadPolicy(local_paths=False)).variant == "dot"


def test_hub_allow_list(checkpoint, offline_cache):
    populate_hf_cache(offline_cache, REPO_ID, checkpoint)
    allowed = LoadPolicy(local_paths=False, hub_allow=frozenset({REPO_ID}))
    assert load_model(REPO_ID, policy=allowed).variant == "additive"
    with pytest.raises(CheckpointError, match="not among the models this app may load"):
        load_model("someone/else", policy=allowed)


def test_download_size_counts_only_the_files_fetched():
    siblings = [RepoSibling("model.safetensors", size=150_000_000), RepoSibling("config.json", size=300),
                RepoSibling("README.md", size=2_000), RepoSibling("train_state/optimizer.pt", size=10**9),
                RepoSibling("notes.txt", size=10**9)]
    assert hub_download.download_bytes(siblings) == 150_002_300


def test_oversized_hub_repo_is_refused_before_download(local_hub, monkeypatch):
    """The real HfApi asks for the file list; the refusal comes before any file is requested."""
    monkeypatch.setenv("ATLAS_MAX_DOWNLOAD_MB", "400")  # the setting that bounds one's own machine
    asked, answer = local_hub
    answer.update(id=REPO_ID, sha="a" * 40, siblings=[{"rfilename": "model.safetensors", "size": 900_000_000},
                                                      {"rfilename": "config.json", "size": 400}])
    with pytest.raises(CheckpointError, match="holds 900 MB of checkpoint files; this app loads at most 400 MB here. "
                       "On your own machine, set ATLAS_MAX_DOWNLOAD_MB"):
        load_model(REPO_ID)
    assert any(p.startswith(f"/api/models/{REPO_ID}") for p in asked)
    assert not [p for p in asked if "/resolve/" in p], "no file was downloaded"
    with pytest.raises(CheckpointError, match="at most 100 MB"):
        load_model(REPO_ID, policy=LoadPolicy(max_download_mb=100))


def test_loading_checks_shapes_without_initialising_weights():
    """The shape check builds the model on the meta device with initialisers skipped; run there, ``normal_``
    would import torch._dynamo, seconds of a fresh server's first page."""
    import subprocess
    import sys

    code = ("import sys; from models.storage.hub import load_model; load_model('additive', device='cpu'); "
            "assert 'torch._dynamo' not in sys.modules, 'the shape check imported torch._dynamo'")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
