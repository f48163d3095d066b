"""models/analysis/geometry.py: PCA agrees with numpy's SVD, contexts stay inside the hull."""
import numpy as np

from models.analysis.geometry import context_geometry, convex_hull, head_geometry, inside, path_geometry, pca_2d
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import greedy
from models.nouns.attention_map import Kind

from .helpers import make_transformer


def test_pca_matches_numpy_svd():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(12, 6)) * np.array([5, 3, 1, 0.5, 0.1, 0.1])
    mean, comps, shares = pca_2d(x)
    _, sv, vt = np.linalg.svd(x - x.mean(0), full_matrices=False)
    np.testing.assert_allclose(np.abs(comps), np.abs(vt[:2]), atol=1e-8)
    np.testing.assert_allclose(shares, sv[:2] ** 2 / (sv**2).sum(), atol=1e-8)


def test_hull_of_a_square_with_inner_points():
    pts = np.array([[0, 0], [1, 0], [1, 1], [0, 1], [0.5, 0.5], [0.2, 0.7]])
    hull = convex_hull(pts)
    assert {tuple(p) for p in hull} == {(0, 0), (1, 0), (1, 1), (0, 1)}
    assert list(inside(hull, np.array([[0.5, 0.5], [1.5, 0.5]]))) == [True, False]


def test_contexts_stay_inside_the_hull(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, "a big red dog runs on the grass")
    geo = context_geometry(trace)
    assert geo.points_2d.shape == (len(trace.source.ids), 2)
    assert geo.path_2d.shape == (len(trace.target_ids), 2)
    assert geo.inside_hull.all()
    assert np.isnan(geo.step_distance[0]) and (geo.step_distance[1:] >= 0).all()
    np.testing.assert_allclose(np.diag(geo.cosine), 1, atol=1e-5)
    assert 0 < geo.explained.sum() <= 1 + 1e-9


def test_every_transformer_head_output_stays_inside_its_value_hull(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    trace = greedy(model, tiny_tokenizers, "a big red dog runs on the grass")
    kinds = attention_kinds(model, trace)
    layers, heads = kinds[Kind.CROSS].shape
    for layer in range(layers):
        for head in range(heads):
            geo = head_geometry(kinds[Kind.CROSS], layer, head)
            assert geo.points_2d.shape == (len(trace.source.ids), 2)
            assert geo.path_2d.shape == (len(trace.target_ids), 2)
            assert geo.inside_hull.all(), (layer, head)


def test_a_path_that_leaves_its_points_is_caught():
    """The hull check can fail: a mixture with a negative weight lands outside."""
    points = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], dtype=float)  # a square, in 3-D
    weights = np.array([[0.25, 0.25, 0.25, 0.25], [-1, 0, 2, 0]])  # each row sums to 1; the second is no distribution
    geo = path_geometry(points, weights @ points)
    assert list(geo.inside_hull) == [True, False]
