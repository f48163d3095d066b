"""models/storage/loading/hf.py through load_model: a Hugging Face Marian folder, or a repo id in an offline
HF cache, loads behind the interface and translates as the library's ``generate`` does; every model it cannot
show is refused with what it is and why, before its weights are read."""
import json
import os
import shutil

import pytest
import torch

from models import translate
from models.decoding.greedy import greedy, max_target_len
from models.storage.hub import CheckpointError, load_model
from models.storage.loading import hf as hf_checkpoint
from models.storage.model_facts import model_facts

from .helpers import populate_hf_cache
from .hf_helpers import tiny_marian

REPO = "Helsinki-NLP/opus-mt-tiny-en-fr"


@pytest.fixture(scope="module")
def marian_folder(tmp_path_factory):
    return tiny_marian(tmp_path_factory.mktemp("marian"), steps=80)


def copy_of(folder, tmp_path):
    return shutil.copytree(folder, tmp_path / "copy")


def test_a_marian_folder_loads_and_translates_as_generate_does(marian_folder):
    from transformers import MarianMTModel, MarianTokenizer

    loaded = load_model(str(marian_folder), device="cpu")
    assert loaded.variant == "marian" and loaded.model.attention_shape == (2, 2)
    assert loaded.reading is not None  # a reading is shown first, as for any multi-head model
    library = MarianMTModel.from_pretrained(marian_folder).eval()
    tokenizer = MarianTokenizer.from_pretrained(marian_folder)
    text = "a dog runs on the beach"
    trace = greedy(loaded.model, loaded.tokenizers, text)
    cap = max_target_len(loaded.model, loaded.tokenizers.source.encode(text, 80))
    expected = library.generate(**tokenizer([text], return_tensors="pt"), do_sample=False, num_beams=1,
                                max_new_tokens=cap)[0].tolist()[1:]
    assert trace.target_ids[-1] == 0 and list(trace.target_ids) == expected  # this sentence ends before the cap


def test_a_repo_id_loads_from_the_hf_cache_offline_says_its_commit_and_the_command_gives_its_attention(
        marian_folder, offline_cache, monkeypatch, capsys):
    populate_hf_cache(offline_cache, REPO, marian_folder)
    loaded = load_model(REPO, device="cpu")
    assert loaded.variant == "marian" and loaded.path.parent.parent.name == f"models--{REPO.replace('/', '--')}"
    assert model_facts(loaded).origin == f"the Hugging Face Hub: {REPO}, commit {loaded.path.name[:7]}"
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("a dog runs on the beach\n"))
    translate.main(["--model", REPO, "--json"])
    found = json.loads(capsys.readouterr().out)
    trace = greedy(loaded.model, loaded.tokenizers, "a dog runs on the beach")
    assert found["target_pieces"] == list(trace.target_pieces)
    L, heads = loaded.model.attention_shape
    assert [len(found["cross_attention"]), len(found["cross_attention"][0])] == [L, heads]
    T, S = len(trace.target_pieces), len(trace.source.pieces)
    assert [len(found["cross_attention"][0][0]), len(found["cross_attention"][0][0][0])] == [T, S]  # [L, heads, T, S]


def write_config(folder, **config):
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(config))
    return str(folder)


@pytest.mark.parametrize("config, message", [
    ({"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"]}, "a language model without a chat template"),
    ({"model_type": "bert", "architectures": ["BertModel"]}, "encoder without a decoder"),
    ({"model_type": "pegasus", "is_encoder_decoder": True}, "an encoder–decoder this app does not read yet"),
    ({"model_type": "phi3", "architectures": ["Phi3ForCausalLM"]}, "a language model of a family this app does not"),
    ({"model_type": "vit"}, "not an encoder–decoder translator"),
])
def test_a_model_that_is_no_translator_is_refused_with_what_it_is(tmp_path, config, message):
    with pytest.raises(CheckpointError, match=message):
        load_model(write_config(tmp_path / "m", **config), device="cpu")


def test_a_repo_with_only_a_pickle_is_refused_with_how_to_convert(marian_folder, tmp_path):
    folder = copy_of(marian_folder, tmp_path)
    (folder / "model.safetensors").rename(folder / "pytorch_model.bin")  # the name is what is refused: never read
    with pytest.raises(CheckpointError, match=r"only as a pickle \(pytorch_model.bin\).*save_pretrained"):
        load_model(str(folder), device="cpu")


def test_a_hub_repo_with_only_a_pickle_is_refused_before_any_download(local_hub):
    asked, answer = local_hub
    answer.update(id=REPO, sha="b" * 40, siblings=[{"rfilename": "config.json", "size": 900},
                                                   {"rfilename": "pytorch_model.bin", "size": 300_000_000}])
    with pytest.raises(CheckpointError, match="only as a pickle"):
        load_model(REPO)
    assert not [p for p in asked if "/resolve/" in p], "no file was downloaded"


def test_a_missing_tokenizer_is_named(marian_folder, tmp_path):
    folder = copy_of(marian_folder, tmp_path)
    (folder / "target.spm").unlink()
    with pytest.raises(CheckpointError, match=r"no tokenizer to go with it \(missing target.spm\)"):
        load_model(str(folder), device="cpu")


def test_a_model_over_the_parameter_cap_is_refused_before_its_weights_are_read(marian_folder, tmp_path,
                                                                               monkeypatch):
    folder = copy_of(marian_folder, tmp_path)
    (folder / "model.safetensors").write_bytes(b"not weights")  # never opened: the count comes first
    monkeypatch.setenv("ATLAS_MAX_PARAMETERS", "1000")
    count = hf_checkpoint.parameters(folder)
    with pytest.raises(CheckpointError, match=f"{count:,} parameters; this app loads at most 1,000 here .* On your "
                       "own machine, set ATLAS_MAX_PARAMETERS to raise the cap"):
        load_model(str(folder), device="cpu")


def test_the_parameters_are_counted_from_the_config_as_the_model_has_them(marian_folder):
    from transformers import MarianMTModel

    library = MarianMTModel.from_pretrained(marian_folder)
    assert hf_checkpoint.parameters(marian_folder) == sum(p.numel() for p in library.parameters())
    assert torch.get_default_device().type == "cpu"  # counting on the meta device left the default alone


def test_the_bundled_default_does_not_pay_for_transformers():
    """A visitor's first heatmap on the bundled default imports neither transformers nor sentencepiece: they are
    imported when a Hugging Face model is loaded, and only then."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys, pages._shared.cache, pages._shared.kind_panels; from models.storage.hub import load_model; "
            "from models.decoding.greedy import greedy; m = load_model('additive'); "
            "greedy(m.model, m.tokenizers, 'A dog runs.'); "
            "print('transformers' in sys.modules, 'sentencepiece' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    assert out.split()[-2:] == ["False", "False"]


def test_a_server_keeps_the_hub_models_used_last_and_lets_the_others_go(marian_folder, tmp_path):
    """Through the app's one cached loader, in a fresh process (its cache's size is a deployment setting): with
    ``ATLAS_HUB_MODELS=2``, a third Hub model evicts the least recently used; the bundled models are not counted.
    (Resident memory with five opus-mt-sized models in turn: ``python -m bench hub-lru``.)"""
    import os
    import subprocess
    import sys
    from pathlib import Path

    repos = [f"someone/opus-mt-tiny-{k}" for k in range(3)]
    for repo in repos:
        populate_hf_cache(tmp_path, repo, marian_folder)
    code = ("import sys; from pages._shared.cache import ModelKey, load; r = [ModelKey(a) for a in sys.argv[1:]]; "
            "first, second = load(r[0]), load(r[1]); bundled = load(ModelKey('additive')); "
            "third = load(r[2]); print(load(r[1]) is second, load(r[2]) is third, "
            "load(ModelKey('additive')) is bundled, load(r[0]) is first)")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": str(tmp_path), "ATLAS_HUB_MODELS": "2"}
    out = subprocess.run([sys.executable, "-c", code, *repos], capture_output=True, text=True, check=True, env=env,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    assert out.split()[-4:] == ["True", "True", "True", "False"]  # the first, least recently used, was let go


def test_ones_own_machine_admits_what_its_memory_allows_and_a_setting_overrides_it(monkeypatch):
    from models.storage.loading import limits as load_limits

    monkeypatch.delenv("ATLAS_MAX_PARAMETERS", raising=False)
    monkeypatch.delenv("ATLAS_MAX_DOWNLOAD_MB", raising=False)
    monkeypatch.delenv("ATLAS_DTYPE", raising=False)
    monkeypatch.setattr(load_limits, "physical_memory", lambda: 8 * 2**30)
    assert load_limits.machine_max_parameters() == 268_435_456  # 8 GiB: an opus-mt-tc-big (about 235 M) fits
    assert 1_000 < load_limits.machine_max_download_mb() == pytest.approx(268_435_456 * 4 * 1.1 / 1e6)
    monkeypatch.setattr(load_limits, "physical_memory", lambda: None)  # a system that does not say
    assert load_limits.machine_max_parameters() == load_limits.PUBLIC_MAX_PARAMETERS
    monkeypatch.setenv("ATLAS_MAX_PARAMETERS", "300000000")
    monkeypatch.setenv("ATLAS_MAX_DOWNLOAD_MB", "1500")
    assert load_limits.machine_max_parameters() == 300_000_000 and load_limits.machine_max_download_mb() == 1500
    monkeypatch.setenv("ATLAS_MAX_PARAMETERS", "lots")  # a malformed setting leaves the default in force
    assert load_limits.machine_max_parameters() == load_limits.PUBLIC_MAX_PARAMETERS


def test_bfloat16_weights_take_half_the_memory_so_the_cap_admits_twice_the_parameters(monkeypatch):
    from models.storage.hub import LoadPolicy
    from models.storage.loading import limits as load_limits

    monkeypatch.delenv("ATLAS_MAX_PARAMETERS", raising=False)
    monkeypatch.setattr(load_limits, "physical_memory", lambda: 16 * 2**30)
    monkeypatch.setenv("ATLAS_DTYPE", "bfloat16")
    assert LoadPolicy().dtype == "bfloat16"
    assert load_limits.machine_max_parameters() == 1_073_741_824  # 16 GiB: NLLB-200's 615 M fit, in bfloat16
    monkeypatch.setenv("ATLAS_DTYPE", "float32")
    assert load_limits.machine_max_parameters() == 536_870_912  # ... and not in float32
    monkeypatch.setenv("ATLAS_DTYPE", "float8")  # a dtype not offered leaves float32
    assert load_limits.machine_dtype() == "float32" and LoadPolicy().dtype == "float32"


def resident_kib(file) -> int | None:
    """How much of ``file`` this process maps is in its memory (``/proc/self/smaps``); None where it maps none."""
    found, inside = None, False
    for line in open("/proc/self/smaps"):
        if "-" in line.split(" ", 1)[0]:  # a mapping's first line: "start-end perms offset dev inode path"
            inside = line.rstrip().endswith(str(file))
        elif inside and line.startswith("Rss:"):
            found = (found or 0) + int(line.split()[1])
    return found


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="reads Linux's /proc/self/smaps")
def test_loading_reads_the_weights_in_so_the_first_pass_does_not(marian_folder, tmp_path):
    """A file of 59 MB: the kernel maps a small one whole at its first touch."""
    from transformers import MarianConfig, MarianMTModel

    folder = copy_of(marian_folder, tmp_path)
    config = MarianConfig.from_pretrained(folder)
    config.d_model, config.encoder_ffn_dim, config.decoder_ffn_dim = 512, 2048, 2048
    MarianMTModel(config).save_pretrained(folder)
    loaded = load_model(str(folder), device="cpu")
    weights = folder / "model.safetensors"
    mapped = resident_kib(weights.resolve())
    assert mapped is not None, "the library no longer maps the file: read_in has nothing left to do"
    assert mapped * 1024 >= 0.9 * weights.stat().st_size
    assert loaded.model.hf is not None  # held until here, so is its mapping
