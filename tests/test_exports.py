"""The downloadable matrix (models/analysis/heatmaps.py writes it), links and images (pages/_shared/cache.py
renders them)."""
import io
import json

import numpy as np
import pandas as pd

from models.analysis.heatmaps import Heatmap, matrix_csv, matrix_json
from pages._shared import cache

from .pages_helpers import APP, cells, figures, run_page

VIEW = Heatmap(("un", "chien", "</s>"), ("a", "dog", "</s>"), (False, False, False),
                     np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.1, 0.1, 0.8]]), None)


def test_csv_round_trips():
    frame = pd.read_csv(io.StringIO(matrix_csv(VIEW)), index_col=0)
    assert list(frame.index) == list(VIEW.rows) and list(frame.columns) == list(VIEW.columns)
    np.testing.assert_allclose(frame.to_numpy(), VIEW.weights)


def test_json_has_labels_and_matrix():
    data = json.loads(matrix_json(VIEW))
    assert data["target"] == list(VIEW.rows) and data["attention"][1] == [0.2, 0.8, 0.0]


def test_page_offers_every_download():
    at = run_page(APP, text="A dog runs.")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Matrix (CSV)", "Matrix (JSON)", "Alignments (Pharaoh)"]


def test_images_render_on_the_server_without_a_browser():
    at = run_page(APP, text="A dog runs.")
    at.button[0].click().run()
    assert not at.exception
    assert [b.proto.label for b in at.get("download_button")][3:] == ["PNG", "SVG"]
    png, svg = cache.images(json.dumps({k: v for k, v in figures(at)[0].items() if k != "datasets"}
                                         | {"data": {"values": cells(figures(at)[0])}, "width": 300}))
    assert png.startswith(b"\x89PNG") and b"<svg" in svg[:500]


def test_an_attribution_is_exported_under_its_own_name():
    data = json.loads(matrix_json(VIEW, "integrated-gradients"))
    assert "attention" not in data and data["integrated-gradients"] == VIEW.weights.round(6).tolist()
