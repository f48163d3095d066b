"""The app's charts — one package, one library: Vega-Lite through Altair, which Streamlit draws natively (no
chart script for a visitor's browser to fetch beyond Streamlit's own). Pages call ``charts.heatmap(…)`` and the
like and draw the result with ``st.altair_chart``; a notebook gets the same charts through :mod:`models.atlas`
(Jupyter draws Vega-Lite too). Nothing here imports Streamlit: it is installed with ``models``, the pages are not.

:mod:`.base` holds colours, labels and matrix axes; :mod:`.matrices` heatmaps and head grids; :mod:`.steps` one
decoding step and the beam; :mod:`.curves` series and training curves; :mod:`.paths` the context vectors;
:mod:`.corpus` a corpus's statistics; :mod:`.answer` the answer to the app's question.
"""
from .answer import alignment_chart, deletion_chart
from .base import marked, piece_text, source_text
from .corpus import distribution, scatter
from .curves import attention_entropy, bleu_by_length, learning_curve, lines, quality_per_minute, scaling
from .matrices import aer_grid, difference_heatmap, gold_links, head_grid, heatmap, similarity, weight_grid
from .paths import context_path, shares
from .steps import bars, beam_tree, links, top_k

__all__ = ["aer_grid", "alignment_chart", "attention_entropy", "bars", "beam_tree", "bleu_by_length", "context_path",
           "deletion_chart", "difference_heatmap", "distribution", "gold_links", "head_grid", "heatmap",
           "learning_curve", "lines", "links", "marked", "piece_text", "quality_per_minute", "scaling", "scatter",
           "shares", "similarity", "source_text", "top_k", "weight_grid"]
