"""The app's charts — one package, one library: Vega-Lite through Altair, which Streamlit draws natively (no
chart script for a visitor's browser to fetch beyond Streamlit's own). Pages call ``charts.heatmap(…)`` and the
like and draw the result with ``st.altair_chart``; a notebook gets the same charts through :mod:`models.atlas`
(Jupyter draws Vega-Lite too). Nothing here imports Streamlit: it is installed with ``models``, the pages are not.

:mod:`.base` holds colours, labels and matrix axes; :mod:`.matrices` heatmaps and head grids; :mod:`.steps` one
decoding step and the beam; :mod:`.curves` series and training curves; :mod:`.paths` the context vectors;
:mod:`.corpus_figures` a corpus's statistics; :mod:`.answer_bars` the answer to the app's question.

Each chart is imported on first use (PEP 562's module ``__getattr__``): Altair and pandas take about 0.7 s to
import, which a notebook's ``from models import atlas`` need not wait for before its first chart.
"""
from importlib import import_module

#: Each chart by the module that draws it.
WHERE = {name: module for module, names in {
    "answer_bars": ("alignment_chart", "deletion_chart"),
    "base": ("marked", "piece_text", "source_text"),
    "corpus_figures": ("distribution", "scatter"),
    "curves": ("attention_entropy", "bleu_by_length", "learning_curve", "lines", "quality_per_minute", "scaling",
               "test_bleu"),
    "matrices": ("aer_grid", "difference_heatmap", "gold_links", "head_grid", "heatmap", "similarity", "weight_grid"),
    "paths": ("context_path", "shares"),
    "steps": ("bars", "beam_tree", "links", "top_k"),
}.items() for name in names}

__all__ = sorted(WHERE)


def __getattr__(name: str):
    if name not in WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(f".{WHERE[name]}", __name__), name)
