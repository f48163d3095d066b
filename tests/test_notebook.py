"""docs/atlas.ipynb, the library's walk-through, runs top to bottom offline in a fresh kernel (nbclient), each chart
cell giving a Vega-Lite chart; and it is kept in git without outputs."""
import json
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "docs" / "atlas.ipynb"


def vega_lite(output) -> bool:
    """Whether a cell's output is an Altair chart as Jupyter gets it (Altair's default renderer: HTML that embeds
    the Vega-Lite spec; the mimetype renderer: the spec itself)."""
    data = output.get("data", {})
    return any(key.startswith("application/vnd.vegalite") for key in data) or "vegaEmbed" in data.get("text/html", "")


def test_the_notebook_is_kept_without_outputs():
    for cell in json.loads(NOTEBOOK.read_text())["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, cell["source"]


def test_the_notebook_runs_offline_and_draws_the_apps_charts(monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # nothing it runs may reach the Hub
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}).execute()
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(not any(o.output_type == "error" for o in cell.outputs) for cell in code)
    drawn = [cell for cell in code if any(vega_lite(o) for o in cell.outputs)]
    last_lines = [cell.source.strip().splitlines()[-1] for cell in code]
    charts = [line for line in last_lines if line.endswith(("heatmap()", "heads(1)", 'heads(kind="encoder")',
                                                            "context_path()", "compare(rnn_seen)"))]
    assert len(drawn) == len(charts) >= 7
    scores = "".join(o.get("text", "") for cell in code for o in cell.outputs if o.output_type == "stream")
    assert "Transformer head: AlignmentScore(aer=" in scores and "additive RNN: AlignmentScore(aer=" in scores
    noise = [o.text for cell in code for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
    assert not noise, noise  # no library's warning reaches the reader
