"""pages/_shared/exports.py: the downloadable matrix, links and images."""
import io
import json
import os

import numpy as np
import pandas as pd
import pytest

from models.analysis.alignment import AttentionView
from pages._shared import exports

from .pages_helpers import APP, figures, run_page

VIEW = AttentionView(("un", "chien", "</s>"), ("a", "dog", "</s>"), (False, False, False),
                     np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.1, 0.1, 0.8]]), None)


def test_csv_round_trips():
    frame = pd.read_csv(io.StringIO(exports.matrix_csv(VIEW)), index_col=0)
    assert list(frame.index) == list(VIEW.rows) and list(frame.columns) == list(VIEW.columns)
    np.testing.assert_allclose(frame.to_numpy(), VIEW.weights)


def test_json_has_labels_and_matrix():
    data = json.loads(exports.matrix_json(VIEW))
    assert data["target"] == list(VIEW.rows) and data["attention"][1] == [0.2, 0.8, 0.0]


def test_page_offers_every_download():
    at = run_page(APP, text="A dog runs.")
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Matrix (CSV)", "Matrix (JSON)", "Alignments (Pharaoh)"]


def test_images_render_on_the_server_with_a_browser():
    if exports.browser_path() is None:
        if os.environ.get("CI"):
            pytest.fail("no Chromium found; .ci/run installs Debian's chromium")
        pytest.skip("no Chromium installed")
    at = run_page(APP, text="A dog runs.")
    at.button[0].click().run()
    assert not at.exception
    assert [b.proto.label for b in at.get("download_button")][3:] == ["PNG", "SVG"]
    png, svg = exports._images(json.dumps(figures(at)[0]))
    assert png.startswith(b"\x89PNG") and b"<svg" in svg[:500]


def test_without_a_browser_the_image_buttons_become_a_message(monkeypatch):
    monkeypatch.setattr(exports, "browser_path", lambda: None)
    at = run_page(APP, text="A dog runs.")
    assert not at.exception and not at.button
    assert any("need a Chromium on the server" in c.value for c in at.caption)


def test_an_attribution_is_exported_under_its_own_name():
    data = json.loads(exports.matrix_json(VIEW, "integrated-gradients"))
    assert "attention" not in data and data["integrated-gradients"] == VIEW.weights.round(6).tolist()
