"""A model folder with a damaged file — a ``tokenizer.json`` whose merges hold an entry of the wrong length, a
``config.json`` of the wrong shape — gets the one-line message README promises, on the command line (no traceback)
and on the page (no exception, no path of the machine), whatever exception type the library's reader raises."""
import json
import shutil
import subprocess
import sys

import pytest

from models.storage.hub import CheckpointError, load_model

from .llm_helpers import tiny_llm
from .pages_helpers import APP, ROOT, run_page


@pytest.fixture(scope="module")
def chat(tmp_path_factory):
    return tiny_llm(tmp_path_factory.mktemp("qwen2"), "qwen2", steps=5)


def merges_of_wrong_length(folder):
    tokenizer = json.loads((folder / "tokenizer.json").read_text())
    first = tokenizer["model"]["merges"][0]
    tokenizer["model"]["merges"][0] = [*first, "x"] if isinstance(first, list) else first + " x"
    (folder / "tokenizer.json").write_text(json.dumps(tokenizer))


def config_of_wrong_shape(folder):
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "num_attention_heads": "four"}))


@pytest.fixture(params=[merges_of_wrong_length, config_of_wrong_shape])
def damaged(request, chat, tmp_path):
    folder = tmp_path / "damaged"
    shutil.copytree(chat, folder)
    request.param(folder)
    return folder


def test_the_loader_says_the_folder_cannot_be_read_in_one_line(damaged):
    with pytest.raises(CheckpointError, match="damaged cannot be read") as found:
        load_model(str(damaged), device="cpu")
    assert "\n" not in str(found.value) and str(damaged.parent) not in str(found.value)


def test_the_command_says_so_without_a_traceback(damaged):
    done = subprocess.run([sys.executable, "-m", "models.translate", "--model", str(damaged)], input="a dog\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("error: damaged cannot be read")


def test_the_page_says_so_without_an_exception_or_a_path_and_falls_back(damaged):
    at = run_page(APP, text="a dog runs on the beach", model=str(damaged))
    assert not at.exception, [e.message for e in at.exception]
    said = " ".join(e.value for e in at.error)
    assert "damaged cannot be read" in said and str(damaged.parent) not in said


def test_a_damaged_hub_repo_is_named_by_its_id_never_by_where_the_cache_holds_it(chat, tmp_path, offline_cache):
    from .helpers import populate_hf_cache

    damaged = tmp_path / "files"
    shutil.copytree(chat, damaged)
    (damaged / "training.json").write_text("{ not a record")  # and a record beside it that is not one
    merges_of_wrong_length(damaged)
    populate_hf_cache(offline_cache, "someone/damaged-chat", damaged)
    with pytest.raises(CheckpointError) as found:
        load_model("someone/damaged-chat", device="cpu")
    said = str(found.value)
    assert said.startswith("someone/damaged-chat cannot be read") and str(offline_cache) not in said
    (damaged / "tokenizer.json").write_bytes((chat / "tokenizer.json").read_bytes())  # the tokenizer whole again
    populate_hf_cache(offline_cache, "someone/bad-record", damaged)
    with pytest.raises(CheckpointError, match="training.json|Expecting") as found:
        load_model("someone/bad-record", device="cpu")
    assert str(offline_cache) not in str(found.value)
