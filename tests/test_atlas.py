"""models/atlas: the app as a library — README's five lines on every bundled model and on tiny Hub models built
offline, the chart a notebook gets being the Translate page's own, each reading's links and scores against an
independent count, and a sentence (never a traceback) for what a model cannot do."""
import subprocess
import sys

import altair as alt
import numpy as np
import pytest

from models import atlas
from models.analysis.aer import alignment_score
from models.network.tokenization import is_marker

from models.nouns.matrix import ATTENTION, FITTED, MATRICES
from models.storage.hub import bundled_models

from .hf_helpers import tiny_marian
from .llm_helpers import tiny_llm
from .pages_helpers import APP, cells, figures, run_page, title_of

TEXT = "A dog runs on the beach."
#: A pair typed here as people align it (source word first): the gold's layout, no fetch.
PAIR = atlas.GoldPair(("the", "agreement", "was", "signed", "."), ("l'", "accord", "a", "été", "signé", "."),
                      frozenset({(0, 0), (1, 1), (3, 4), (4, 5)}), frozenset({(0, 0), (1, 1), (2, 2), (2, 3), (3, 4),
                                                                             (4, 5)}))


def five_lines(ref: str, text: str = TEXT) -> tuple[atlas.Seen, alt.TopLevelMixin, atlas.Read, frozenset]:
    """README's lines: load, translate, draw, read a matrix (fit to human links where fit, else the first it has)
    and its links."""
    model = atlas.load(ref, device="cpu")
    seen = model.translate(text)
    chart = seen.heatmap()
    read = seen.read(FITTED if FITTED in model.matrices else model.matrices[0])
    return seen, chart, read, read.links()


def words(labels) -> int:
    return sum(not is_marker(label) for label in labels)


@pytest.mark.parametrize("ref", bundled_models())
def test_the_five_lines_run_on_every_bundled_model(ref):
    seen, chart, read, links = five_lines(ref)
    assert seen.translation and isinstance(chart, alt.Chart)
    assert {c["t"] for c in next(iter(chart.to_dict()["datasets"].values()))} == set(range(len(read.view.heatmap.rows)))
    view = read.view.heatmap
    assert links and all(0 <= s < words(view.columns) and 0 <= t < words(view.rows) for s, t in links)


@pytest.fixture(scope="module")
def hub_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("hub")
    return {"marian": tiny_marian(root / "marian", steps=80), "qwen2": tiny_llm(root / "qwen2", "qwen2", steps=150)}


@pytest.mark.parametrize("family", ["marian", "qwen2"])
def test_the_five_lines_run_on_a_tiny_hub_model(hub_models, family):
    seen, chart, _, links = five_lines(str(hub_models[family]), "a dog runs on the beach")
    assert seen.attention is not None and isinstance(chart, alt.Chart)
    assert all(isinstance(s, int) and isinstance(t, int) for s, t in links)
    assert isinstance(seen.heads(1), alt.FacetChart)  # two heads a layer


def test_the_chart_a_notebook_gets_is_the_translate_pages_own():
    at = run_page(APP, text=TEXT, model="transformer")
    page = figures(at)[0]
    ours = atlas.load("transformer").translate(TEXT).heatmap().to_dict()
    ours_cells = next(rows for rows in ours["datasets"].values() if rows and "weight" in rows[0])
    assert title_of(page) == title_of(ours)
    assert page["mark"] == ours["mark"] and page["encoding"] == ours["encoding"]
    assert [(c["t"], c["s"]) for c in cells(page)] == [(c["t"], c["s"]) for c in ours_cells]
    np.testing.assert_allclose([c["weight"] for c in cells(page)], [c["weight"] for c in ours_cells], atol=1e-6)


def test_a_reading_names_its_matrix_and_head_and_its_links_are_its_rule_read_off_its_words():
    seen = atlas.load("transformer").translate(TEXT)
    read = seen.read("attention norm", "2.3", words=True)
    assert read.view.matrix is MATRICES["attention norm"] and read.view.reading.key == "2.3"
    view = read.view.heatmap
    rows = [t for t, label in enumerate(view.rows) if not is_marker(label)]
    columns = [s for s, label in enumerate(view.columns) if not is_marker(label)]
    assert read.links() == read.rule.read(view.weights[np.ix_(rows, columns)])
    assert seen.read(ATTENTION, "2.3").weights.shape == read.weights.shape  # one sentence, one grid of words


def test_a_pair_people_aligned_is_scored_as_the_human_links_page_scores_it():
    aligned = atlas.load("transformer").align(PAIR)
    links = aligned.links()
    sure, possible = PAIR.sure, PAIR.possible
    precision = len(links & possible) / len(links)
    recall = len(links & sure) / len(sure)
    aer = 1 - (len(links & sure) + len(links & possible)) / (len(links) + len(sure))
    assert aligned.score.precision == pytest.approx(100 * precision) and aligned.score.recall == pytest.approx(
        100 * recall) and aligned.score.aer == pytest.approx(100 * aer)
    chosen = next(row for row in aligned.view.scores if str(aligned.rule) in row["links read as"])
    assert chosen["AER %"] == pytest.approx(aligned.score.aer, abs=0.05)
    assert aligned.score == alignment_score([links], [sure], [possible])
    assert isinstance(aligned.heatmap(), alt.LayerChart)


def test_heads_paths_and_a_comparison_are_the_pages_charts():
    transformer = atlas.load("transformer")
    seen, rnn = transformer.translate(TEXT), atlas.load("additive").translate(TEXT)
    layers, heads = transformer.loaded.model.attention_shape
    grid = seen.heads().to_dict()
    assert len({c["label"] for c in next(iter(grid["datasets"].values()))}) == layers * heads
    assert isinstance(seen.heads(2, kind="encoder"), alt.FacetChart)
    assert "PCA plane" in title_of(rnn.context_path().to_dict()) and seen.context_path("1.2")
    assert "minus" in title_of(seen.compare(rnn).to_dict())


@pytest.mark.parametrize("ask, said", [
    (lambda m: m.translate("   "), "Type"),
    (lambda m: m.translate(TEXT).read("no such matrix"), "unknown matrix"),
    (lambda m: m.translate(TEXT).read(ATTENTION, "9.9"), "names no layer or head"),
    (lambda m: m.translate(TEXT).heads(), "one attention head"),
    (lambda m: m.translate(TEXT).heads(kind="encoder"), "no 'encoder' attention"),
    (lambda m: m.translate(TEXT, beam=0), "at least 1"),
])
def test_what_a_model_cannot_do_is_said_in_a_sentence(ask, said):
    with pytest.raises(ValueError, match=said):
        ask(atlas.load("additive"))


def test_a_matrix_the_model_lacks_is_refused_with_its_reason():
    with pytest.raises(ValueError, match="no attention"):
        atlas.load("none").translate(TEXT).read(ATTENTION)


def test_importing_the_library_imports_no_streamlit():
    code = "import sys; from models import atlas; print('streamlit' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_readmes_lines_run_as_written():
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text().split("## In a notebook", 1)[1]
    block = readme.split("\n\n", 2)[1]
    lines = [line[4:] for line in block.splitlines()]
    assert lines[0].startswith("from models import atlas") and len(lines) <= 10
    found = {}
    exec("\n".join(lines), found)  # noqa: S102 — README's own lines, run as a reader would
    assert isinstance(found["seen"], atlas.Seen)


def test_loading_prints_no_librarys_noise_and_leaves_its_settings_as_they_were(hub_models, capfd):
    from transformers.utils import logging

    before = logging.is_progress_bar_enabled(), logging.get_verbosity()
    seen = atlas.load(str(hub_models["marian"])).translate("a dog runs")
    captured = capfd.readouterr()
    assert seen.translation is not None and captured.out == "" and captured.err == ""
    assert (logging.is_progress_bar_enabled(), logging.get_verbosity()) == before
