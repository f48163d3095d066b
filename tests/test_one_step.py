"""A translation of one step — the end of turn written at once, so nothing — or of one word, drawn on every page
without an exception (the step explorer's slider, the beam tree, the context-vector path, the corpus table): a tiny
chat model whose generation config stops at what it writes first or second."""
import json
import shutil

import pytest

from models.decoding.greedy import greedy
from models.storage.hub import load_model

from .llm_helpers import tiny_llm
from .pages_helpers import APP, MODEL_PAGES, page, run_page

TEXT = "a dog runs on the beach"


@pytest.fixture(scope="module", params=[0, 1], ids=["nothing", "one word"])
def stopping(request, tmp_path_factory):
    """A chat model that stops at the piece it writes at step ``param`` (0-based): its translation of :data:`TEXT`
    has ``param`` pieces before its end."""
    trained = tiny_llm(tmp_path_factory.mktemp("qwen2"), "qwen2", steps=120)
    loaded = load_model(str(trained), device="cpu")
    stop = greedy(loaded.model, loaded.tokenizers, TEXT).target_ids[request.param]
    folder = tmp_path_factory.mktemp("stopping") / "model"
    shutil.copytree(trained, folder)
    config = json.loads((folder / "generation_config.json").read_text())
    (folder / "generation_config.json").write_text(json.dumps({**config, "eos_token_id": [stop]}))
    found = greedy(load_model(str(folder), device="cpu").model, loaded.tokenizers, TEXT)
    assert len(found.target_ids) == request.param + 1  # the pieces before the end, and the end
    return str(folder)


@pytest.mark.parametrize("name", ["", *MODEL_PAGES])
def test_every_page_draws_a_translation_of_one_step_or_says_why_not(stopping, name):
    at = run_page(page(name) if name else APP, text=TEXT, model=stopping, left=stopping, beam="3")
    assert not at.exception, [e.message for e in at.exception]
