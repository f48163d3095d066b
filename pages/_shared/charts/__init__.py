"""Plotly figures shared by the pages — one chart package: pages call ``charts.heatmap(…)`` and the like.

:mod:`.base` holds colours, escaping and matrix axes; :mod:`.matrices` heatmaps and head grids; :mod:`.steps` one
decoding step; :mod:`.curves` series and paths.
"""
from .base import marked, piece_text, source_text
from .curves import attention_entropy, context_path, learning_curve, lines, shares
from .matrices import aer_grid, difference_heatmap, gold_links, head_grid, heatmap, similarity
from .steps import bars, beam_tree, links, top_k

__all__ = ["aer_grid", "attention_entropy", "bars", "beam_tree", "context_path", "difference_heatmap", "gold_links",
           "head_grid", "heatmap", "learning_curve", "lines", "links", "marked", "piece_text", "shares", "similarity",
           "source_text", "top_k"]
