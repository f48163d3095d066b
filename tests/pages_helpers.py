"""Helpers for the AppTest page tests."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def page(name: str) -> str:
    return str(next((ROOT / "pages").glob(f"*_{name}.py")))


def run_page(path: str, **params) -> AppTest:
    at = AppTest.from_file(path, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    return at.run()


def figures(at: AppTest) -> list[dict]:
    """The plotly figures on the page, as JSON."""
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def heat_shape(fig: dict) -> tuple[int, int]:
    """Rows × columns of a figure's first heatmap (plotly may ship it as typed-array bytes)."""
    z = fig["data"][0]["z"]
    if isinstance(z, dict):
        rows, cols = z["shape"].split(",")
        return int(rows), int(cols)
    return len(z), len(z[0])
