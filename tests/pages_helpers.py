"""Helpers for the AppTest page tests: every page runs through the entry point, as in the browser."""
import ast
import json
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")


def _navigation() -> list[str]:
    """Each listed page's URL name in the order ``app.py``'s ``st.navigation`` lists them, "" for the default page."""
    found = []
    for node in ast.walk(ast.parse(Path(APP).read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "Page":
            given = {k.arg: k.value.value for k in node.keywords if isinstance(k.value, ast.Constant)}
            if given.get("visibility") == "hidden":  # an old link's name, opening a listed page
                continue
            found.append("" if given.get("default") else given.get("url_path", Path(node.args[0].value).stem))
    return found


#: Every page by its URL name ("" the default page, at the app's root), read from app.py: the list is kept there only.
NAVIGATION = _navigation()
#: The pages beside the default one.
OTHER_PAGES = [name for name in NAVIGATION if name]
#: Pages that draw the bundled models' records whatever model the sidebar holds.
BUNDLED_ONLY = {"Answer"}
#: The other pages that draw the sidebar's model: what a Hub model is opened on.
MODEL_PAGES = [name for name in OTHER_PAGES if name not in BUNDLED_ONLY]


def page(name: str) -> str:
    """A page file by its URL name, e.g. ``Compare_scoring`` → ``pages/Compare_scoring.py`` (each file is named as
    its page's URL: see ``ui.settings``); "" the default page, run as the app."""
    if not name:
        return APP
    path = f"pages/{name}.py"
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
    """The Vega-Lite charts on the page: each spec, its ``datasets`` decoded from Streamlit's Arrow into lists of
    records (by name)."""
    import pyarrow as pa

    charts = []
    for chart in at.get("vega_lite_chart"):
        spec = json.loads(chart.proto.spec)
        spec["datasets"] = {d.name: pa.ipc.open_stream(d.data.data).read_all().to_pylist()
                            for d in chart.proto.datasets}
        charts.append(spec)
    return charts


def records(spec: dict, field: str) -> list[dict]:
    """The records of a chart's first dataset that has ``field``."""
    return next(rows for rows in spec["datasets"].values() if rows and field in rows[0])


def title_of(spec: dict) -> str:
    """A chart's title as one line (wrapped titles are lists of lines)."""
    text = spec.get("title", {}).get("text", "")
    return " ".join(text) if isinstance(text, list) else text


def cells(spec: dict) -> list[dict]:
    """A heatmap's cells: the records of its dataset that holds ``weight`` by row ``t`` and column ``s``."""
    return next(rows for rows in spec["datasets"].values() if rows and {"t", "s", "weight"} <= set(rows[0]))


def heat_shape(spec: dict) -> tuple[int, int]:
    """Rows × columns of a heatmap."""
    found = cells(spec)
    return max(c["t"] for c in found) + 1, max(c["s"] for c in found) + 1


def column_labels(spec: dict) -> list[str]:
    """The labels a heatmap's column axis writes, read back from its lookup expression."""
    expression = spec["encoding"]["x"]["axis"]["labelExpr"]
    return json.loads(expression[expression.index("["): expression.rindex("]") + 1].rsplit("[datum.value]", 1)[0])
