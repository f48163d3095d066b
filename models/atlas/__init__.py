"""The atlas as a library: what the app shows of a translation, in a notebook or in another app, in a few lines::

    from models import atlas
    model = atlas.load("transformer")                  # a bundled name, a folder or a Hub repo id
    seen = model.translate("A dog runs on the beach.")
    seen.heatmap()                                     # the app's own Altair chart (Jupyter draws it, hover and all)
    seen.read("fit to human links").links()            # any registered matrix: its word links

The objects are the app's own — a :class:`~models.decoding.trace.Trace`, an
:class:`~models.nouns.attention_map.AttentionMap`, a :class:`~models.views.matrix_views.MatrixView` — and every chart
comes from :mod:`models.charts`, the functions the pages draw with. Nothing here imports Streamlit: in an app of
your own, ``st.altair_chart(seen.heatmap())`` draws it (``docs/embedding.py``).

:class:`Model` (:func:`load`) translates and aligns a human-aligned pair; :class:`Seen`, one translation, is read as
any matrix (:class:`Read`: its view, its word links) and drawn: the heatmap, a layer's heads or every layer × head,
the context vector's path, and its difference from another model's reading of the same sentence.
"""
import warnings

# In a notebook without ipywidgets, the Hub library's ``tqdm.auto`` warns as it is imported that it will draw text
# bars; a reader of this library's charts is spared that one warning (no other is silenced).
warnings.filterwarnings("ignore", message="IProgress not found")

from ..storage.gold import GoldPair  # noqa: E402  (after the filter: importing the models imports the Hub library)
from .model import Aligned, Model, load  # noqa: E402
from .seen import Read, Seen  # noqa: E402

__all__ = ["Aligned", "GoldPair", "Model", "Read", "Seen", "load"]
