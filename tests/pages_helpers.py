"""Helpers for the AppTest page tests: every page runs through the entry point, as in the browser."""
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def page(name: str) -> str:
    """A page file by its URL name, e.g. ``Compare_scoring`` → ``pages/compare_scoring.py``."""
    path = f"pages/{name.lower()}.py"
    assert (ROOT / path).is_file(), path
    return path


def run_page(path: str, **params) -> AppTest:
    """Run ``app.py`` on page ``path`` (``APP`` for the default page) with these query parameters."""
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()  # registers the pages (st.navigation) and draws the shared sidebar
    return at if path == APP else at.switch_page(path).run()


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
