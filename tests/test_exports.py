"""pages/_shared/exports.py: the downloadable matrix, links and images."""
import io
import json
import os

import numpy as np
import pandas as pd

from models.alignment import AttentionView
from pages._shared import exports

from .pages_helpers import APP, run_page

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
    at.button[0].click().run()  # render PNG / SVG on the server
    labels = [b.proto.label for b in at.get("download_button")]
    assert not at.exception
    if os.path.exists("/usr/bin/chromium"):  # kaleido renders through a local Chromium
        assert labels[3:] == ["PNG", "SVG"]
    else:
        assert any("Could not render images" in w.value for w in at.warning)
