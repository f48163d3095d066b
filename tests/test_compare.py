"""models/analysis/compare.py: entropy and JS divergence against their definitions; the summary names the steps."""
import numpy as np
import pytest

from models.analysis.heatmaps import Heatmap, word_heatmap
from models.analysis.compare import compare_views, entropy, js_divergence
from models.decoding.greedy import forced
from models.nouns.attention_map import RNN_READING

from .helpers import make_model


def test_entropy_and_js_limits():
    uniform, peaked = np.full((1, 4), 0.25), np.array([[1.0, 0, 0, 0]])
    assert entropy(uniform)[0] == pytest.approx(2.0)
    assert entropy(peaked)[0] == pytest.approx(0.0)
    assert js_divergence(peaked, peaked)[0] == pytest.approx(0.0)
    assert js_divergence(peaked, np.array([[0, 1.0, 0, 0]]))[0] == pytest.approx(1.0)


def test_js_matches_its_definition_on_random_rows():
    rng = np.random.default_rng(0)
    p, q = rng.dirichlet(np.ones(5), 3), rng.dirichlet(np.ones(5), 3)
    m = (p + q) / 2
    kl = lambda a, b: (a * np.log2(a / b)).sum(1)  # noqa: E731
    np.testing.assert_allclose(js_divergence(p, q), (kl(p, m) + kl(q, m)) / 2, atol=1e-9)


def test_forced_common_target_gives_comparable_views(tiny_tokenizers):
    a, b = make_model(tiny_tokenizers, "additive", 0), make_model(tiny_tokenizers, "dot", 1)
    text, target = "a big dog runs", "court chien grand un"
    fa, fb = forced(a, tiny_tokenizers, text, target), forced(b, tiny_tokenizers, text, target)
    va, vb = word_heatmap(fa, fa.read(RNN_READING)), word_heatmap(fb, fb.read(RNN_READING))
    c = compare_views(va, vb, ("additive", "dot"))
    assert c.difference.shape == va.weights.shape
    assert len(c.js) == len(c.argmax_agree) == len(va.rows)
    assert f"of {len(va.rows)} steps" in c.summary


def test_summary_points_at_the_disagreement():
    rows, cols = ("un", "chien"), ("a", "dog")
    a = Heatmap(rows, cols, (False, False), np.array([[0.9, 0.1], [0.2, 0.8]]), None)
    b = Heatmap(rows, cols, (False, False), np.array([[0.8, 0.2], [0.9, 0.1]]), None)
    c = compare_views(a, b, ("A", "B"))
    assert list(c.argmax_agree) == [True, False]
    assert "“chien”" in c.summary and "A looks at “dog”" in c.summary and "B at “a”" in c.summary


def test_mismatched_views_are_refused():
    a = Heatmap(("x",), ("y",), (False,), np.ones((1, 1)), None)
    b = Heatmap(("z",), ("y",), (False,), np.ones((1, 1)), None)
    with pytest.raises(ValueError):
        compare_views(a, b, ("A", "B"))
