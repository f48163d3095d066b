"""Every page with a Transformer selected: its heads are picked, drawn side by side, compared with an RNN's
attention, forced in a what-if and replayed through training; nothing breaks where a view is the RNN's alone.

The checkpoint is made here (the bundled tokenizers, a tiny untrained Transformer of 2 layers × 2 heads), so the
tests need neither ../shared nor a trained model."""
import pytest

from models.decoding.greedy import greedy
from models.nouns.attention_map import Reading
from models.storage.hub import load_model

from .helpers import tiny_transformer_checkpoint
from .pages_helpers import APP, figures, page, records, run_page, title_of

TEXT = "A black dog is running on the beach."


@pytest.fixture(scope="module")
def transformer(tmp_path_factory) -> str:
    return tiny_transformer_checkpoint(tmp_path_factory.mktemp("transformer"))


@pytest.fixture
def one_pair_gold(tmp_path, monkeypatch):
    """A human-aligned gold set of one pair, where the Human links page reads it."""
    (tmp_path / "test.en").write_text("a dog runs .\n")
    (tmp_path / "test.fr").write_text("un chien court .\n")
    (tmp_path / "test.gold").write_text("1-1 2-2 3-3 4-4\n")
    monkeypatch.setenv("ATLAS_GOLD", str(tmp_path))


def test_translate_draws_the_chosen_head_and_the_layers_grid(transformer):
    at = run_page(APP, text=TEXT, model=transformer, level="subwords", head="1.2")
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="head").value == Reading(0, 1) and at.query_params["head"] == "1.2"
    loaded = load_model(transformer, device="cpu")
    trace = greedy(loaded.model, loaded.tokenizers, TEXT)
    heat, grid = figures(at)[0], figures(at)[1]
    assert "layer 1, head 2" in title_of(heat)
    assert {r["label"] for r in records(grid, "head")} == {"head 1", "▶ head 2"}  # one small heatmap per head
    at.selectbox(key="head").set_value(Reading(1, None)).run()  # the mean of layer 2's heads
    assert not at.exception and at.query_params["head"] == "2.mean"
    assert "layer 2, mean of its heads" in title_of(figures(at)[0])
    assert trace.read(Reading(1, None)).shape[0] == len(trace.target_ids)


def test_a_head_the_model_lacks_falls_back_to_its_default_with_a_notice(transformer):
    at = run_page(APP, text=TEXT, model=transformer, head="7.1")
    assert not at.exception
    assert at.selectbox(key="head").value == Reading(1, None)  # no trial-set AER recorded: the last layer's mean
    assert any("head='7.1'" in t.value for t in at.toast)


def test_the_what_if_forces_the_chosen_layers_heads(transformer):
    from models.decoding.what_if import focus_on_word

    at = run_page(APP, text=TEXT, model=transformer, head="1.1", step="2")
    at.selectbox(key="focus").set_value(1).run()
    assert not at.exception
    loaded = load_model(transformer, device="cpu")
    base = greedy(loaded.model, loaded.tokenizers, TEXT)
    expected = greedy(loaded.model, loaded.tokenizers, TEXT, overrides={1: focus_on_word(base, 1)}, layer=0)
    assert at.text[2].value == expected.translation
    assert any("every head of layer 1" in c.value for c in at.caption)


def test_compare_sets_a_transformer_head_beside_an_rnn(transformer):
    at = run_page(page("Compare_scoring"), text=TEXT, left="additive", right=transformer, right_head="2.1")
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="right_head").value == Reading(1, 0)
    titles = [title_of(f) for f in figures(at)]
    assert any("layer 2, head 1" in t for t in titles)
    assert any("Jensen" in str(f) for f in figures(at))  # the divergence chart is drawn


@pytest.mark.parametrize("name", ["Context_vectors", "Score_anatomy", "Models_and_results"])
def test_the_rnn_only_pages_still_draw_with_a_transformer_selected(transformer, name):
    at = run_page(page(name), text=TEXT, model=transformer)
    assert not at.exception, [e.message for e in at.exception]


def test_learning_replays_a_chosen_head(transformer):
    at = run_page(page("Learning"), model=transformer, head="1.1")
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="head").value == Reading(0, 0)


def test_human_links_read_a_transformer_head(transformer, one_pair_gold):
    at = run_page(page("Human_links"), model=transformer, head="2.2")
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="head").value == Reading(1, 1)


def test_translate_draws_the_reading_one_step_later_beside_the_plain_one(transformer):
    at = run_page(APP, text=TEXT, model=transformer, level="subwords", head="2.1", shifted="1")
    assert not at.exception, [e.message for e in at.exception]
    assert at.toggle(key="shifted").value and at.query_params["shifted"] == "1"
    plain, later = figures(at)[0], figures(at)[1]
    assert "one step later" in title_of(later) and "one step later" not in title_of(plain)
    loaded = load_model(transformer, device="cpu")
    trace = greedy(loaded.model, loaded.tokenizers, TEXT)
    rows = {r["t"] for r in records(later, "weight")}
    assert len(rows) == len(trace.target_ids) - 1  # the first step's row (BOS in) dropped, none for the last piece
    at.toggle(key="shifted").set_value(False).run()
    assert not at.exception and at.query_params["shifted"] == "0"
    assert all("one step later" not in title_of(f) for f in figures(at))


def test_human_links_offer_a_shifted_reading(transformer, one_pair_gold):
    at = run_page(page("Human_links"), model=transformer, head="1.2")
    assert not at.exception, [e.message for e in at.exception]
    at.selectbox(key="head").set_value(Reading(0, 1, shifted=True)).run()
    assert not at.exception and at.query_params["head"] == "1.2.shifted"
    assert "read one step later" in at.selectbox(key="head").value.label
    assert any("one step later" in m.value for m in at.expander[0].markdown)  # how to read it, folded


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_each_attention_kind_drives_the_heatmap_grid_and_model_view(transformer, kind):
    from models.decoding.every_attention import attention_kinds

    at = run_page(APP, text=TEXT, model=transformer, level="subwords", attn=kind, head="2.1", layers="1")
    assert not at.exception, [e.message for e in at.exception]
    assert at.query_params["attn"] == kind and at.query_params["layers"] == "1" and at.selectbox(key="head").value == Reading(1, 0)
    loaded = load_model(transformer, device="cpu")
    kinds = attention_kinds(loaded.model, greedy(loaded.model, loaded.tokenizers, TEXT))
    heat, grid, model = figures(at)[0], figures(at)[1], figures(at)[2]
    assert kind in title_of(heat).lower() and "layer 2, head 1" in title_of(heat)
    cells = records(heat, "weight")
    rows, columns = kinds[kind].rows, kinds[kind].columns
    assert len(cells) == len(rows) * len(columns)
    expected = kinds[kind].weights[1, 0]
    assert all(abs(c["weight"] - expected[c["t"], c["s"]]) < 1e-5 for c in cells)
    assert {r["label"] for r in records(grid, "head")} == {"▶ head 1", "head 2"}
    assert len({r["label"] for r in records(model, "head")}) == 4  # 2 layers × 2 heads
    assert any(kind in c.value for c in at.caption if "Rows:" in c.value)


def test_the_model_view_is_drawn_only_when_asked_for(transformer):
    """Dozens of heatmaps hold a browser for seconds: the page opens on the head grid, the model view a toggle away."""
    at = run_page(APP, text=TEXT, model=transformer)
    assert not at.exception and at.toggle(key="model_view").value is False and at.query_params["layers"] == "0"
    before = len(figures(at))
    assert not any("bertviz's model view" in c.value for c in at.caption)
    at.toggle(key="model_view").set_value(True).run()
    assert not at.exception and at.query_params["layers"] == "1" and len(figures(at)) == before + 1
    assert len({r["label"] for r in records(figures(at)[2], "head")}) == 4  # 2 layers × 2 heads, a panel each
    assert any("all 2 layers × 2 heads" in c.value for c in at.caption)


def test_an_rnn_has_no_kind_switch():
    at = run_page(APP, text=TEXT, model="additive", attn="encoder")
    assert not at.exception
    assert "attn" not in [w.key for w in at.segmented_control]
    assert title_of(figures(at)[0]).startswith("Attention α")  # its one attention, the cross-attention


def test_heads_switched_off_decode_again_beside_the_original(transformer):
    from models.analysis.head_removal import without_heads

    off = "cross.1.1,cross.1.2,cross.2.1,cross.2.2"
    at = run_page(APP, text=TEXT, model=transformer, off=off + ",cross.9.1")
    assert not at.exception, [e.message for e in at.exception]
    canonical = "1.1,1.2,2.1,2.2"  # the link's old "cross." form opens; the page writes readings' own keys
    assert at.multiselect(key="heads_off").value == canonical.split(",") and at.query_params["off"] == canonical
    assert any("off='cross.9.1'" in t.value for t in at.toast)  # a head the model lacks: dropped, said
    loaded = load_model(transformer, device="cpu")
    pruned = without_heads(loaded.model, [("cross", n, h) for n in (0, 1) for h in (0, 1)])
    expected = greedy(pruned, loaded.tokenizers, TEXT).translation
    shown = next(m.value for m in at.markdown if m.value.startswith("**Without 4 heads**"))
    assert all(word in shown for word in expected.split()[:3])
    assert [title_of(f) for f in figures(at) if "heads off" in title_of(f) or "as decoded" in title_of(f)]
    at.multiselect(key="heads_off").set_value([]).run()
    assert not at.exception and at.query_params["off"] == ""


def test_the_bertviz_model_view_downloads(transformer):
    pytest.importorskip("bertviz", reason="bertviz is an optional extra (requirements-extras.txt)")
    at = run_page(APP, text=TEXT, model=transformer)
    assert not at.exception, [e.message for e in at.exception]
    labels = [b.label for b in at.get("download_button")]
    assert "bertviz model view (HTML)" in labels


def test_without_bertviz_the_page_says_how_to_get_it(transformer, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "bertviz", None)  # as if it were not installed: importing it fails
    at = run_page(APP, text=TEXT, model=transformer)
    assert not at.exception
    assert any("optional extra" in c.value and "bertviz" in c.value for c in at.caption)


def test_the_first_view_reads_the_bundled_transformer_as_its_card_chose():
    """Its card aligns with layer 1 head 4 read one step later: without a word from the URL, the page opens on that
    head with its one-step-later heatmap beside it; an RNN, whose card reads at the writing step, opens without."""
    at = run_page(APP, text=TEXT, model="transformer")
    assert load_model("transformer").reading.shifted
    assert at.toggle(key="shifted").value and at.query_params["shifted"] == "1"
    assert any("one step later" in title_of(f) for f in figures(at))
    rnn = run_page(APP, text=TEXT, model="additive")
    assert not rnn.toggle(key="shifted").value


def test_the_model_trained_to_align_opens_on_its_guided_head_named_so():
    """Its card marks layer 1 head 4, trained one step later: the page opens on that head, named "trained to align",
    with its one-step-later heatmap beside it; the model picker names the model so."""
    at = run_page(APP, text=TEXT, model="transformer-align")
    assert not at.exception, [e.message for e in at.exception]
    assert load_model("transformer-align").supervised == Reading(0, 3, shifted=True)
    assert at.selectbox(key="head").value == Reading(0, 3)
    assert "Layer 1, head 4 ★ ✓" in at.selectbox(key="head").options
    assert at.toggle(key="shifted").value and any("one step later" in title_of(f) for f in figures(at))
    assert "Transformer (multi-head), trained to align" in next(s for s in at.sidebar.selectbox if s.label == "Model").options


def test_a_model_trained_with_full_context_opens_on_its_head_in_the_full_context_attention(tiny_corpus, tmp_path,
                                                                                            few_examples):
    """Its card marks layer 1 head 2, trained one step later with the whole translation in view: the page opens on
    the full-context attention at that head, named "trained to align", with its one-step-later rows beside it —
    the same matrix's, not the steps' attention."""
    from models import train

    out = tmp_path / "full-context"
    train.main(["--data", str(tiny_corpus), "--out", str(out), "--arch", "transformer", "--d-model", "32", "--heads",
                "2", "--enc-layers", "1", "--dec-layers", "2", "--ffn-dim", "64", "--vocab-size", "100", "--threads",
                "1", "--steps", "2", "--guided-alignment", "eflomal", "--guided-reading", "1.2.shifted",
                "--full-context"])
    at = run_page(APP, text="a dog runs", model=str(out))
    assert not at.exception, [e.message for e in at.exception]
    assert at.selectbox(key="matrix").value.name == "full-context attention"
    assert at.selectbox(key="head").value == Reading(0, 1)
    assert "Layer 1, head 2 ★ ✓" in at.selectbox(key="head").options
    plain, later = (title_of(f) for f in figures(at)[:2])
    assert plain.startswith("Attention α with the whole translation in view")
    assert later.startswith("Attention α with the whole translation in view") and "one step later" in later
    steps = run_page(APP, text="a dog runs", model=str(out), read="attention")
    assert not any("trained to align" in o for o in steps.selectbox(key="head").options)  # the steps' head was not
