"""The Translate page's decisions, asked of :mod:`models.views.translation` without Streamlit: which heatmap it draws
and what it offers beside it, what one step of the step explorer shows, and a step's contrast."""
from __future__ import annotations

import numpy as np
import pytest

from models.decoding.greedy import greedy
from models.nouns.matrix import ATTENTION, GRADIENT_X_INPUT
from models.storage.hub import load_model
from models.views import inside, translation
from models.views.kinds import sentence_kinds
from models.views.matrix_views import matrix_view

TEXT = "A man is riding a red bicycle down the street."


@pytest.fixture(scope="module")
def transformer():
    loaded = load_model("transformer")
    return loaded, greedy(loaded.model, loaded.tokenizers, TEXT)


def test_the_steps_own_attention_is_drawn_clickable_with_its_later_reading_and_every_head(transformer):
    loaded, trace = transformer
    drawn = matrix_view(loaded, trace, ATTENTION, loaded.reading.plain, words=True)
    shown = translation.heatmap(loaded.model, drawn, loaded.model.steps_kind, loaded.reading.plain, None)
    assert shown.heatmap is drawn.heatmap and shown.stepwise and shown.later and shown.heads and shown.heads_off
    assert shown.kinds is None and loaded.reading.plain.label in shown.title
    assert shown.caption.endswith("Click a cell to explore the step that wrote its row.")


def test_another_attention_is_drawn_piece_by_piece_from_the_sentences_attentions(transformer):
    loaded, trace = transformer
    source = next(k for k in loaded.model.named_kinds if not k.stepwise)
    kinds = sentence_kinds(loaded.model, trace, len(trace.target_ids))
    reading = loaded.reading.plain
    drawn = matrix_view(loaded, trace, ATTENTION, reading, words=True)
    shown = translation.heatmap(loaded.model, drawn, source, reading, kinds)
    rows, columns = kinds[source.key].rows, kinds[source.key].columns
    assert shown.heatmap.weights.shape == (len(rows), len(columns))
    np.testing.assert_allclose(shown.heatmap.weights, kinds[source.key].read(reading))
    assert not shown.stepwise and not shown.later and source.named in shown.title and source.what in shown.caption
    assert shown.stem.endswith(f"-{source.key}-head-{reading.key}")


def test_an_attribution_follows_the_models_own_reading_and_a_model_without_attention_says_why(transformer):
    loaded, _ = transformer
    assert translation.steps_reading(loaded, loaded.model.steps_kind, None) == loaded.reading.plain
    assert translation.no_attention(loaded.model) is None
    none = load_model("none")
    assert translation.steps_reading(none, none.model.steps_kind, None) is None
    assert "no attention" in translation.no_attention(none.model)


@pytest.mark.parametrize("words", [True, False])
def test_a_step_shows_its_row_over_the_columns_of_the_heatmap_it_sits_under(transformer, words):
    loaded, trace = transformer
    drawn = matrix_view(loaded, trace, ATTENTION, loaded.reading.plain, words=words)
    last = len(trace.target_pieces) - 1
    step = translation.step_view(loaded.model, trace, drawn, last, words, loaded.reading.plain)
    assert step.bars.columns == drawn.heatmap.columns and step.bars.weights.shape == (1, len(step.bars.columns))
    assert step.row == drawn.heatmap.weights.shape[0] - 1  # the last step's word is the heatmap's last row
    assert step.bars.weights.sum() == pytest.approx(drawn.steps.weights[last].sum(), abs=1e-5)  # words sum pieces
    assert step.what_if and step.no_what_if is None and step.forced is None
    assert step.best == int(np.argmax(step.bars.weights))


def test_a_chat_models_step_says_how_its_attention_divides_and_why_it_has_no_what_if():
    loaded = load_model("decoder-only")
    trace = greedy(loaded.model, loaded.tokenizers, TEXT)
    drawn = matrix_view(loaded, trace, ATTENTION, loaded.reading.plain, words=True)
    step = translation.step_view(loaded.model, trace, drawn, 1, True, loaded.reading.plain)
    read = float(drawn.steps.weights[1].sum())
    assert 0 < read < 1  # the rest went to the prompt's other pieces and the translation so far
    assert f"{read:.0%} went to the prompt" in step.shares[0] and f"{1 - read:.0%} to the translation" in step.shares[0]
    assert not step.what_if and "cannot be forced" in step.no_what_if


def test_a_contrast_is_asked_against_the_steps_other_candidates_and_drawn_as_one_row(transformer):
    _, trace = transformer
    foils = translation.foils(trace, 0)
    assert foils and trace.target_ids[0] not in foils.values()
    foil = next(iter(foils))
    weights = np.arange(len(trace.source.pieces), dtype=float)
    view, title = translation.contrast_heatmap(trace, 0, foil, GRADIENT_X_INPUT, weights)
    assert view.weights.shape[0] == 1 and len(view.rows) == 1 and "not" in view.rows[0]
    assert "log p" in title and view.weights.sum() == pytest.approx(weights.sum())


def test_the_nearest_training_states_are_found_best_first_among_the_index_beside_the_model(transformer):
    loaded, trace = transformer
    index = inside.neighbour_index(loaded)
    assert not isinstance(index, inside.Unindexed)
    found = inside.neighbours(index, trace, 2, k=5)
    similarities = [n.similarity for n in found.neighbours]
    assert len(found.neighbours) == len(found.sources) == 5 and similarities == sorted(similarities, reverse=True)
    assert found.sources[0] == index.sources[found.neighbours[0].sentence]
    assert f"{len(index.sources):,} training sentences" in found.among


def test_a_model_without_an_index_or_with_a_broken_one_says_which(tmp_path):
    import shutil

    copy = shutil.copytree(load_model("none").path, tmp_path / "none", ignore=shutil.ignore_patterns("neighbours.*"))
    assert inside.neighbour_index(load_model(str(copy))) == inside.Unindexed(inside.NO_INDEX, broken=False)
    (copy / "neighbours.safetensors").write_bytes(b"not an index")
    broken = inside.neighbour_index(load_model(str(copy)))
    assert broken.broken and "cannot be used" in broken.why and inside.index_stamp(load_model(str(copy)))


def test_the_n_best_list_ranks_the_beams_hypotheses_by_log_probability_per_piece(transformer):
    loaded, _ = transformer
    found = translation.beam(loaded, TEXT, 4)
    assert len(found.rows) == len(found.hypotheses) == len(found.ends) > 1
    assert [r["#"] for r in found.rows] == list(range(1, len(found.rows) + 1))
    for row, hypothesis in zip(found.rows, found.hypotheses):
        assert row["translation"] == hypothesis.translation and row["pieces"] == len(hypothesis.target_ids)
        assert row["per piece"] == pytest.approx(row["log p"] / row["pieces"])
    per_piece = [r["per piece"] for r in found.rows]
    assert per_piece == sorted(per_piece, reverse=True)


def test_the_beam_tree_marks_the_chosen_hypothesis_as_one_chain_and_ranks_each_steps_pieces(transformer):
    loaded, _ = transformer
    found = translation.beam(loaded, TEXT, 4)
    for chosen, hypothesis in enumerate(found.hypotheses):
        points, edges = found.tree(chosen)
        assert len(points) == len(found.nodes) and len(edges) == sum(n.parent is not None for n in found.nodes)
        marked = sorted((p for p in points if p["group"] == "chosen"), key=lambda p: p["step"])
        assert [p["step"] for p in marked] == list(range(len(hypothesis.target_ids)))  # a piece a step, to its end
        assert marked[-1]["end"] == "</s>" or len(marked) == len(hypothesis.target_ids)
        assert sum(e["group"] == "chosen" for e in edges) == len(marked) - 1  # joined piece to piece
        for step in {p["step"] for p in points}:
            here = sorted((p for p in points if p["step"] == step), key=lambda p: -p["y"])
            assert [p["y"] for p in here] == [-r for r in range(len(here))]  # ranks 0, 1, … best highest
            assert [p["log p"] for p in here] == sorted((p["log p"] for p in here), reverse=True)


def test_a_what_if_shows_both_translations_at_the_step_it_forced(transformer):
    from models.decoding.what_if import what_if

    loaded, trace = transformer
    found = translation.what_if_view(loaded, TEXT, 1, 0, loaded.reading.layer)
    expected = what_if(loaded.model, loaded.tokenizers, TEXT, 1, 0, loaded.reading.layer)
    assert found.step == expected.step == 1 and found.before.translation == trace.translation
    assert found.after.translation == expected.changed.translation
    assert found.after.written == expected.changed.target_pieces[1] and found.before.choices == trace.top_k[1]
    assert "every head of layer" in translation.forcing(0, True) and "the attention" in translation.forcing(0, False)
