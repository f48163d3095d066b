"""pages/_shared/charts.py: heatmap column labels keep clear of the title and of each other at any length."""
import numpy as np

from models.analysis.alignment import AttentionView
from pages._shared import charts
from pages._shared.charts import base


def view(columns: list[str], rows: int = 3) -> AttentionView:
    S = len(columns)
    return AttentionView(rows=tuple(f"r{t}" for t in range(rows)), columns=tuple(columns), unknown=(False,) * S,
                         weights=np.full((rows, S), 1 / S, dtype=np.float32), energies=None)


def test_labels_rise_with_their_length_and_the_title_sits_above_them():
    short, long = (charts.heatmap(view([w] * 13), "Attention").layout for w in ("a", "Économique" * 3))
    assert long.margin.t > short.margin.t + 100  # 30 characters at 45° need ~170 px more than one
    for layout in (short, long):
        assert layout.title.yref == "container" and layout.title.yanchor == "top" and layout.title.y == 1
        _, _, _, rise = base._column_ticks(list(layout.xaxis.ticktext))
        assert layout.margin.t >= base.TITLE_PX + rise


def test_crowded_columns_stand_upright_then_thin_out():
    assert base._column_ticks(["w"] * 24)[2] == -45
    shown, labels, angle, _ = base._column_ticks([f"w{i}" for i in range(30)])
    assert angle == -90 and len(shown) == 30
    shown, labels, angle, _ = base._column_ticks([f"w{i}" for i in range(80)])
    assert len(shown) <= base.MAX_COLUMN_LABELS and shown[:3] == [0, 2, 4] and labels[1] == "w2"
