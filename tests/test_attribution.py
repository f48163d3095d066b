"""models/analysis/attribution.py: Captum's shares agree with hand-computed gradients and add up as IG promises."""
from pathlib import Path

import numpy as np
import pytest
import torch

from models.analysis import attribution
from models.analysis.heatmaps import word_heatmap
from models.decoding.greedy import forced
from models.network.translator import Translator
from models.nouns.matrix import ATTENTION, GRADIENT_X_INPUT, INTEGRATED_GRADIENTS
from models.storage.hub import load_model

from .helpers import make_model, make_transformer

SENTENCE, TARGET = "a big dog runs on the grass", "herbe le sur court chien grand un"


def trace_of(model, tokenizers):
    return forced(model, tokenizers, SENTENCE, TARGET)


def own_step_inputs(model: Translator, trace, copies=1):
    """Rows for every step, ``copies`` times over (as Captum expands them along an integration path), on the
    model's device (the loader puts a model on CUDA where there is one)."""
    T, device = len(trace.target_ids), model.device
    src = torch.tensor(trace.source.ids, device=device).expand(copies * T, -1)
    tgt_out = torch.tensor(trace.target_ids, device=device).expand(copies * T, -1)
    tgt_in = torch.cat([torch.full((copies * T, 1), 2, device=device), tgt_out[:, :-1]], dim=1)  # BOS_ID = 2
    return src, torch.ones_like(src, dtype=torch.bool), tgt_in, tgt_out, torch.arange(T, device=device).repeat(copies)


def model_of(tokenizers, kind: str):
    return make_transformer(tokenizers) if kind == "transformer" else make_model(tokenizers, kind)


@pytest.mark.parametrize("kind", ["additive", "dot", "none", "transformer"])
def test_each_row_scores_its_own_step_as_forced_decoding_does(tiny_tokenizers, kind):
    model = model_of(tiny_tokenizers, kind)
    trace = trace_of(model, tiny_tokenizers)
    with torch.no_grad():
        got = model.own_step_log_probs(*own_step_inputs(model, trace, copies=3))  # rows stop early
    np.testing.assert_allclose(got.numpy(), np.tile(trace.token_logprobs, 3), atol=1e-5)


def test_gradient_x_input_agrees_with_autograd(tiny_tokenizers):
    model = make_model(tiny_tokenizers, "additive")
    trace = trace_of(model, tiny_tokenizers)
    src, mask, tgt_in, tgt_out, _ = own_step_inputs(model, trace)
    T = len(trace.target_ids)
    expected = []
    for t in range(T):  # one backward pass per written piece, straight through nn.Embedding
        emb = model.src_embed(src[:1]).detach().requires_grad_()
        hook = model.src_embed.register_forward_hook(lambda m, i, o: emb)
        logp = model(src[:1], mask[:1], tgt_in[:1]).log_softmax(-1)[0, t, trace.target_ids[t]]
        hook.remove()
        (grad,) = torch.autograd.grad(logp, emb)
        expected.append((grad * emb).sum(-1).abs()[0].detach().numpy())
    expected = np.stack(expected)
    np.testing.assert_allclose(attribution.attribution_matrix(model, trace, GRADIENT_X_INPUT),
                               expected / expected.sum(1, keepdims=True), atol=1e-5)


@pytest.mark.parametrize("name", ["additive", "dot", "none"])
def test_integrated_gradients_add_up_to_the_change_in_log_probability(name):
    """Completeness (Sundararajan et al. 2017): Σ_s,e IG = log p(y_t | x) − log p(y_t | all-padding sentence), up to
    the path integral's discretisation, which the default number of points keeps small (and far smaller than 2);
    ``completeness`` (from Captum's convergence delta) measures exactly that gap and change.

    On each bundled model, where the changes are several nats (an untrained model is too nearly linear for the
    path integral to matter)."""
    loaded = load_model(name)
    trace = forced(loaded.model, loaded.tokenizers, "a man sleeps on the grass .", "un homme dort sur l'herbe.")
    src, mask, tgt_in, tgt_out, steps = own_step_inputs(loaded.model, trace)
    with torch.no_grad():
        baseline = loaded.model.own_step_log_probs(torch.zeros_like(src), mask, tgt_in, tgt_out, steps)
    change = trace.token_logprobs - baseline.cpu().numpy()  # PAD = 0: the baseline sentence embeds to zeros
    total = attribution.raw_attribution(loaded.model, trace, INTEGRATED_GRADIENTS).sum((1, 2)).cpu().numpy()
    gap = np.abs(total - change)  # [T]

    assert np.abs(change).max() > 2
    assert gap.max() < 0.1 * np.abs(change).max()
    measured_gap, measured_change = attribution.completeness(loaded.model, trace, attribution.IG_STEPS)
    np.testing.assert_allclose(measured_gap, gap, atol=1e-3)
    np.testing.assert_allclose(measured_change, change, atol=1e-3)
    assert gap.max() < attribution.completeness(loaded.model, trace, 2)[0].max() / 2


@pytest.mark.parametrize("method", list(attribution.ATTRIBUTIONS), ids=lambda m: m.slug)
@pytest.mark.parametrize("kind", ["additive", "none", "transformer"])
def test_shares_are_a_distribution_over_the_source_for_every_written_piece(tiny_tokenizers, method, kind):
    model = model_of(tiny_tokenizers, kind)
    trace = trace_of(model, tiny_tokenizers)
    shares = attribution.attribution_matrix(model, trace, method)
    T, S = len(trace.target_ids), len(trace.source.ids)
    assert shares.shape == (T, S) and (shares >= 0).all()
    np.testing.assert_allclose(shares.sum(1), 1, atol=1e-5)
    np.testing.assert_allclose(word_heatmap(trace, shares).weights.sum(1), 1, atol=1e-5)  # words read it like attention


@pytest.mark.parametrize("method", list(attribution.ATTRIBUTIONS), ids=lambda m: m.slug)
def test_a_sentence_explained_a_few_steps_at_a_time_gets_the_same_shares(tiny_tokenizers, monkeypatch, method):
    model = make_model(tiny_tokenizers, "additive")
    trace = trace_of(model, tiny_tokenizers)
    whole = attribution.attribution_matrix(model, trace, method)
    monkeypatch.setattr(attribution, "MAX_CELLS", 1)  # one step per pass
    np.testing.assert_allclose(attribution.attribution_matrix(model, trace, method), whole, atol=1e-5)


def test_a_matrix_that_is_no_attribution_is_refused(tiny_tokenizers):
    model = make_model(tiny_tokenizers)
    with pytest.raises(ValueError, match="attention is no attribution"):
        attribution.attribution_matrix(model, trace_of(model, tiny_tokenizers), ATTENTION)


def test_the_first_page_does_not_pay_for_captum():
    """Importing what the Translate page imports leaves Captum (and its matplotlib) unloaded until asked for."""
    import subprocess
    import sys

    code = "import sys, pages._shared.evidence; print('captum' in sys.modules, 'matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent).stdout
    assert out.split() == ["False", "False"]


def test_work_grows_with_points_source_and_the_square_of_the_written_pieces(tiny_tokenizers):
    model = make_model(tiny_tokenizers)
    trace = trace_of(model, tiny_tokenizers)
    T, S = len(trace.target_ids), len(trace.source.ids)
    assert attribution.work(trace, GRADIENT_X_INPUT) == S * T * (T + 1) // 2  # row t decodes t + 1 steps
    assert attribution.work(trace, INTEGRATED_GRADIENTS) == attribution.IG_STEPS * S * T * (T + 1) // 2
    assert attribution.estimated_seconds(trace, GRADIENT_X_INPUT) == pytest.approx(
        attribution.work(trace, GRADIENT_X_INPUT) / attribution.CELLS_PER_SECOND)


def test_progress_is_heard_after_each_group_of_written_pieces(tiny_tokenizers, monkeypatch):
    model = make_model(tiny_tokenizers)
    trace = trace_of(model, tiny_tokenizers)
    monkeypatch.setattr(attribution, "MAX_CELLS", 1)  # one written piece a group
    heard = []
    attribution.attribution_matrix(model, trace, GRADIENT_X_INPUT, heard.append)
    T = len(trace.target_ids)
    assert heard == pytest.approx([(t + 1) / T for t in range(T)])


def test_translating_beside_an_attribution_on_the_same_model_is_unaffected(tiny_tokenizers, monkeypatch):
    """Captum hooks the embedding layer it explains: on a shared model (one server, many visitors) a translation
    made meanwhile would read the hooked path inputs. Attribution works on a copy: a translation made by the
    caller's model from inside Captum's own forward pass, hooks and all, is the model's own."""
    from models.decoding.greedy import greedy
    from models.network.seq2seq import Seq2Seq

    model = make_model(tiny_tokenizers)
    text = "a big dog runs on the grass"
    expected = greedy(model, tiny_tokenizers, text).translation
    original, seen = Seq2Seq.own_step_log_probs, []

    def with_a_visitor_beside(self, *args):  # another visitor's translation at every forward pass Captum makes
        seen.append(greedy(model, tiny_tokenizers, text).translation)
        return original(self, *args)

    monkeypatch.setattr(Seq2Seq, "own_step_log_probs", with_a_visitor_beside)
    attribution.attribution_matrix(model, trace_of(model, tiny_tokenizers), INTEGRATED_GRADIENTS)
    assert len(seen) > 1 and set(seen) == {expected}


@pytest.mark.parametrize("method", list(attribution.ATTRIBUTIONS), ids=lambda m: m.slug)
def test_a_contrast_is_the_written_pieces_attribution_minus_the_foils(tiny_tokenizers, method):
    """Checked against two plain attributions: of the translation, and of the translation with the foil forced at
    that step (the same prefix before it)."""
    model = make_transformer(tiny_tokenizers)
    trace = trace_of(model, tiny_tokenizers)
    step, foil = 1, trace.top_ids[1][1]  # the runner-up at step 2
    assert foil != trace.target_ids[step]
    foiled = forced(model, tiny_tokenizers, SENTENCE, [*trace.target_ids[:step], foil, *trace.target_ids[step + 1:]])
    written = attribution.raw_attribution(model, trace, method)[step].sum(-1)  # [S]
    other = attribution.raw_attribution(model, foiled, method)[step].sum(-1)
    expected = (written - other).abs().numpy()
    np.testing.assert_allclose(attribution.contrastive(model, trace, method, step, foil),
                               expected / expected.sum(), atol=1e-4)
