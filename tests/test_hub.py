"""models/hub.py: references resolve, the Hub cache works offline, and every failure has its message."""
import hashlib
import json
import shutil

import pytest

from models import hub
from models.hub import CheckpointError, load_model, pick_device, save_checkpoint

REPO_ID = "attention-atlas/tiny-en-fr"


@pytest.fixture
def checkpoint(tmp_path, tiny_model, tiny_tokenizers):
    path = tmp_path / "ck"
    save_checkpoint(path, tiny_model, tiny_tokenizers)
    return path


def populate_hf_cache(cache, repo_id, files_dir, revision="main"):
    """Lay files out exactly as huggingface_hub's cache does: blobs, snapshots, refs."""
    repo = cache / f"models--{repo_id.replace('/', '--')}"
    commit = hashlib.sha1(repo_id.encode()).hexdigest()
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True)
    (repo / "blobs").mkdir()
    for f in files_dir.iterdir():
        blob = repo / "blobs" / hashlib.sha256(f.read_bytes()).hexdigest()
        shutil.copy(f, blob)
        (snapshot / f.name).symlink_to(f"../../blobs/{blob.name}")
    (repo / "refs").mkdir()
    (repo / "refs" / revision).write_text(commit)
    return commit


@pytest.fixture
def offline_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hf-cache"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(cache))
    return cache


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


def test_incompatible_config_version(checkpoint):
    config = json.loads((checkpoint / "config.json").read_text())
    (checkpoint / "config.json").write_text(json.dumps({**config, "format_version": 99}))
    with pytest.raises(CheckpointError, match="incompatible version"):
        load_model(str(checkpoint))


def test_config_that_does_not_match_the_weights(checkpoint):
    config = json.loads((checkpoint / "config.json").read_text())
    (checkpoint / "config.json").write_text(json.dumps({**config, "dec_hidden": 7}))
    with pytest.raises(CheckpointError, match="do not match config.json"):
        load_model(str(checkpoint))


def test_device_is_automatic_or_chosen():
    assert pick_device("cpu").type == "cpu"
    assert pick_device().type in {"cpu", "cuda"}


def test_bundled_names_resolve_by_short_name():
    names = hub.bundled_models()
    if not names:
        pytest.skip("no bundled checkpoints")
    assert hub.resolve(names[0]) == hub.BUNDLED_DIR / f"{hub.BUNDLED_PREFIX}{names[0]}"
