"""app.py and its default page, pages/translate.py, through Streamlit's AppTest on the bundled default model."""
import json

import pytest
from streamlit.testing.v1 import AppTest

from models.decoding.greedy import greedy
from models.decoding.what_if import focus_on_word
from models.nouns.attention_map import RNN_READING
from models.storage.hub import load_model

from .pages_helpers import APP, cells, column_labels, figures, heat_shape, run_page, title_of


@pytest.fixture(scope="module")
def additive():
    return load_model("additive", device="cpu")


def test_renders_translation_and_heatmap_sized_to_the_trace(additive):
    text = "A little girl in a red dress is playing with a ball."
    at = run_page(APP, text=text, level="subwords")
    trace = greedy(additive.model, additive.tokenizers, text)
    assert at.text[0].value == trace.translation
    assert heat_shape(figures(at)[0]) == (len(trace.target_ids), len(trace.source.ids))


def test_word_level_heatmap_has_one_column_per_word():
    at = run_page(APP, text="A black dog is running on the beach.")
    heat = figures(at)[0]
    assert heat_shape(heat)[1] == len(column_labels(heat)) == 9  # 8 words and </s>


@pytest.mark.parametrize("text", ["", "   \n  "])
def test_empty_text_gets_a_prompt(text):
    at = run_page(APP, text=text)
    assert not at.exception
    assert any("Type an English sentence" in i.value for i in at.info)
    assert not figures(at)


def test_very_long_text_is_capped_with_a_notice():
    at = run_page(APP, text="A dog runs on the beach. " * 60)  # from a link: cut while the URL is read
    assert not at.exception
    assert any("cut to its first 500 characters" in t.value for t in at.toast)
    assert len(at.text_input(key="text").value) == 500
    at.text_input(key="text").set_value("A cat sleeps. " * 60).run()  # typed: cut with a warning
    assert any("characters long" in w.value for w in at.warning)
    assert not at.exception


def test_html_is_shown_as_text_never_markup():
    at = run_page(APP, text='<script>alert("x")</script> a <b>dog</b>', level="subwords")
    assert not at.exception
    heat = figures(at)[0]  # Vega-Lite writes labels as SVG text and tooltips as text: they stay as typed
    labels = column_labels(heat)
    assert labels[:5] == ["<", "⁇<", "sc", "ript", "⁇>"] and "&lt;" not in json.dumps(heat, ensure_ascii=False)
    assert any(c["cell"].endswith("← ⁇<") for c in cells(heat))


@pytest.mark.parametrize("text", ["A dog 🐕 runs 🏃", "一只狗在跑", "كلب يركض", "a\x1bdog\u202e runs"])
def test_unusual_scripts_are_marked_unknown(text):
    at = run_page(APP, text=text, level="subwords")
    assert not at.exception
    assert any("Unknown to the model" in c.value for c in at.caption)
    assert "⁇" in json.dumps(figures(at)[0], ensure_ascii=False)


def test_unreachable_hub_model_keeps_the_bundled_one(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    at = run_page(APP, text="A dog runs.", model="someone/not-cached")
    assert not at.exception
    assert any("Cannot reach the Hugging Face Hub" in e.value for e in at.error)
    assert at.text[0].value  # still translated, by the bundled model


def test_step_slider_and_what_if(additive):
    """Step 3 forced onto "black": the page shows what greedy decoding with that override writes."""
    text = "A black dog is running on the beach."
    at = run_page(APP, text=text)
    at.slider(key="step").set_value(3).run()
    base = greedy(additive.model, additive.tokenizers, text)
    assert any(f"Step **3** wrote **{base.target_pieces[2].strip('▁')}**" in m.value for m in at.markdown)
    assert at.query_params["step"] == "3"
    at.selectbox(key="focus").set_value(1).run()  # look only at "black" at step 3
    expected = greedy(additive.model, additive.tokenizers, text, overrides={2: focus_on_word(base, 1)})
    assert not at.exception
    assert at.text[2].value == expected.translation  # translation, as decoded, what-if
    assert expected.read(RNN_READING)[2, 1] == 1.0 and base.read(RNN_READING)[2, 1] < 1.0


def test_step_comes_from_the_url_and_is_clamped():
    at = run_page(APP, text="A dog runs.", step="2")
    assert at.slider(key="step").value == 2
    at = run_page(APP, text="A dog runs.", step="400")
    assert at.slider(key="step").value == at.slider(key="step").max


def test_settings_live_in_the_url():
    at = run_page(APP, text="A dog runs.", beam="3", level="subwords")
    assert at.query_params["beam"] == "3" and at.query_params["level"] == "subwords"
    assert at.query_params["text"] == "A dog runs."


def test_no_attention_model_shows_attribution_instead(additive):
    at = run_page(APP, text="A dog runs.", model="none", level="subwords")
    assert not at.exception
    assert any("no attention" in c.value for c in at.caption)
    assert list(at.selectbox(key="matrix").options) == ["gradient×input", "integrated gradients", "position floor"]
    heat = figures(at)[0]
    assert "attribution" in title_of(heat)
    assert not at.get("selectbox") or all("look only at" not in s.label for s in at.selectbox)  # nothing to force


@pytest.mark.parametrize("reading", ["gradient-x-input", "integrated-gradients"])
def test_attribution_replaces_attention_in_the_heatmap_and_the_step_explorer(additive, reading):
    from models.analysis.attribution import attribution_matrix
    from models.nouns.matrix import matrix_named

    text = "A black dog is running on the beach."
    at = run_page(APP, text=text, level="subwords", read=reading, step="2")
    assert not at.exception
    trace = greedy(additive.model, additive.tokenizers, text)
    expected = attribution_matrix(additive.model, trace, matrix_named(reading.replace("-x-", "×").replace("-", " ")))
    heat, bars = figures(at)[0], figures(at)[1]
    assert "attribution" in title_of(heat) and heat["encoding"]["color"]["legend"]["title"] == "share"
    values = [r["value"] for r in next(iter(bars["datasets"].values()))]
    assert values == pytest.approx(expected[1].tolist(), abs=1e-4)  # step 2's shares
    assert at.query_params["matrix"] == reading and "read" not in at.query_params  # an old link, renamed


def test_public_mode_refuses_local_paths_from_the_url(monkeypatch):
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    path = str(load_model("dot", device="cpu").path)  # a real checkpoint directory on this machine
    at = run_page(APP, text="A dog runs.", model=path)
    assert not at.exception
    assert any("this app loads no local paths" in e.value for e in at.error)
    assert "**Additive (Bahdanau)**" in at.sidebar.caption[0].value  # the bundled default, not the dot model


def test_public_mode_from_a_root_level_secret():
    at = AppTest.from_file(APP, default_timeout=120)
    at.secrets["ATLAS_PUBLIC"] = "true"
    at.secrets["ATLAS_HUB_ALLOW"] = "owner/allowed"
    at.query_params.update(text="A dog runs.", model="someone/else")
    at.run()
    assert not at.exception
    assert any("not among the models this app may load" in e.value for e in at.error)


def test_trusted_mode_loads_a_local_directory():
    path = str(load_model("dot", device="cpu").path)
    at = run_page(APP, text="A dog runs.", model=path)
    assert not at.error and "**Dot-product (scaled)**" in at.sidebar.caption[0].value


def test_beam_explorer_lists_the_hypotheses_and_shows_the_one_picked(additive):
    from models.decoding.beam import beam_search

    text = "A black dog is running on the beach."
    result = beam_search(additive.model, additive.tokenizers, text, 4)
    at = run_page(APP, text=text, beam="4", level="subwords")
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["translation"]) == [h.translation for h in result.hypotheses]
    tree = next(f for f in figures(at) if any(r and "piece" in r[0] and "group" in r[0]
                                              for r in f["datasets"].values()))
    pieces = next(r for r in tree["datasets"].values() if r and "piece" in r[0])
    assert len(pieces) == len(result.nodes)
    at.radio(key="hypothesis").set_value(3).run()
    assert heat_shape(figures(at)[1]) == (len(result.hypotheses[3].target_ids), len(result.hypotheses[3].source.ids))


def test_greedy_has_no_beam_explorer():
    at = run_page(APP, text="A dog runs.")
    assert "Beam search" not in [s.value for s in at.subheader]


@pytest.fixture
def indexed_copy(tmp_path, additive):
    """A copy of the bundled additive checkpoint with a small neighbour index of its own."""
    import shutil

    from models.analysis.nearest_states import build_index, save_index

    from .helpers import synthetic_pairs

    shutil.copytree(additive.path, tmp_path / "ck", ignore=shutil.ignore_patterns("neighbours.*"))
    pairs = [("A black dog is running on the beach.", "Un chien noir court sur la plage."), *synthetic_pairs(20)]
    save_index(build_index(additive.model, additive.tokenizers, pairs, dim=16), tmp_path / "ck")
    return tmp_path / "ck"


def test_step_explorer_lists_the_nearest_training_states(indexed_copy, additive):
    from models.analysis.nearest_states import load_index, nearest

    text = "A black dog is running on the beach."
    at = run_page(APP, text=text, model=str(indexed_copy), step="3")
    assert not at.exception and not at.error
    listed = next(m.value for m in at.markdown if m.value.startswith("1. `"))
    state = greedy(additive.model, additive.tokenizers, text).states[2]
    best = nearest(load_index(indexed_copy, additive.model), state, k=8)
    assert len(listed.splitlines()) == 2 * 8
    assert f"`{best[0].similarity:.2f}`" in listed.splitlines()[0]
    assert f"**{best[0].word}**" in listed.splitlines()[0].replace("\\", "")


def test_a_model_without_or_with_a_broken_index_says_so(indexed_copy):
    (indexed_copy / "neighbours.safetensors").unlink()
    at = run_page(APP, text="A dog runs.", model=str(indexed_copy))
    assert not at.exception and any("none was built for this one" in i.value for i in at.info)
    (indexed_copy / "neighbours.safetensors").write_bytes(b"not an index")
    at = run_page(APP, text="A dog runs.", model=str(indexed_copy))
    assert not at.exception and any("neighbour index cannot be used" in w.value for w in at.warning)


def test_a_public_server_refuses_an_attribution_it_cannot_afford_and_says_why(monkeypatch):
    """45 words of integrated gradients would hold the server for minutes: the page says so and shows attention."""
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    text = ("The members of the committee said on Tuesday that the new rules for the harbour, which were written "
            "after the storm of last winter, would be discussed again by the council before the end of the month, "
            "and that nobody should expect a decision soon.")
    at = run_page(APP, text=text, read="integrated-gradients")
    assert not at.exception
    assert any("shared server" in w.value and "Gradient×input is far cheaper" in w.value for w in at.warning)
    assert title_of(figures(at)[0]).startswith("Attention α")
    assert not at.get("progress")  # nothing was computed


def test_an_affordable_attribution_is_computed_on_a_public_server(monkeypatch):
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    at = run_page(APP, text="A dog runs.", read="gradient-x-input")
    assert not at.exception and not at.warning
    assert "attribution" in title_of(figures(at)[0])
