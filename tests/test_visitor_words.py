"""What a visitor reads, on every page and every bundled model (AppTest): no exception and no error; no reading's
key (``1.4.shifted``, ``2.mean``, a matrix's slug), no ``None`` or ``nan``, no command, flag, setting or server path,
no notice for whoever installed the app — outside expanders, where the makers' details belong. The forbidden words
come from the objects that would have leaked them: each matrix's readings of the model and their keys, each matrix's
slug, the server's settings as ``models/views/deployment.py`` reads them, the model's own folder."""
import re
import pytest

from models import ROOT
from models.analysis.recipes import applicable
from models.nouns.link_rule import METHODS
from models.storage.hub import bundled_models, load_model

from .pages_helpers import BUNDLED_ONLY, NAVIGATION, page, run_page

#: Pages that draw the bundled models whatever the sidebar says: run once, not once a model.
EVERY_MODEL_ALIKE = {*BUNDLED_ONLY, "Models_and_results", "Context_vectors"}
SETTINGS = set(re.findall(r'setting\("(ATLAS_\w+)"', (ROOT / "models" / "views" / "deployment.py").read_text()))
READS = ("Markdown", "Caption", "Info", "Warning", "Error", "Success", "Title", "Header", "Subheader", "Text", "Toast")


def visible(at) -> list[str]:
    """The words a visitor reads on the page outside expanders: texts, notices, tables' headers and cells."""
    found = []

    def walk(node, folded: bool) -> None:
        kind = type(node).__name__
        folded = folded or kind == "Expander"
        if not folded and kind in READS:
            found.append(str(node.value))
        if not folded and kind == "Dataframe":
            frame = shown(node)
            found.extend(map(str, frame.columns))
            found.extend(str(cell) for row in frame.itertuples(index=False) for cell in row)
        if not folded and kind == "Code":
            found.append("CODE: " + str(node.value))  # a command or a path in the open: never
        for child in (node.children.values() if isinstance(getattr(node, "children", None), dict) else ()):
            walk(child, folded)

    walk(at._tree, False)
    return found


def shown(node):
    """A table as the browser draws its cells: a Styler's display values (its ``na_rep``), else the values; only
    the columns the page shows (``column_order``)."""
    import pyarrow as pa

    styled = node.proto.arrow_data.styler.display_values
    frame = pa.ipc.open_stream(styled).read_all().to_pandas() if styled else node.value
    order = list(node.proto.column_order)
    return frame[[c for c in order if c in frame.columns]] if order else frame


def forbidden(ref: str) -> tuple[list[re.Pattern], set[str]]:
    """Patterns that betray a key of ``ref``'s readings or matrices, and cells that are keys whole."""
    loaded = load_model(ref)
    keys, slugs = set(), set()
    for matrix in applicable(loaded.model, loaded.fitted):
        keys |= {r.key for r in matrix.readings(loaded.model.attention_shape, shifted=True) if r is not None}
        slugs |= {matrix.slug} - {matrix.name}
    rules = "|".join(map(re.escape, METHODS))
    plain = "|".join(re.escape(k) for k in keys if "." in k and not k.endswith((".mean", ".shifted")))
    patterns = [re.compile(r"\b\d+\.mean\b|\.shifted\b"), re.compile(r"\bNone\b|\bnan\b"),
                re.compile(r"python -m|\s--[a-z][a-z-]+|runs/|whoever installed"),
                re.compile("|".join(map(re.escape, sorted(SETTINGS))) or "$^"),
                re.compile(re.escape(str(ROOT)) + "|" + re.escape(str(loaded.path)))]
    if plain:  # a head's key beside a model's name, after "reading", or before a link rule
        patterns.append(re.compile(rf"(\) |reading )({plain})\b|\b({plain}), ({rules})\b"))
    if slugs:
        patterns.append(re.compile(r"\b(" + "|".join(map(re.escape, sorted(slugs))) + r")\b"))
    return patterns, keys | slugs


CASES = [(name, ref) for name in NAVIGATION for ref in (bundled_models()[:1] if name in EVERY_MODEL_ALIKE
                                                        else bundled_models())]


@pytest.mark.parametrize("name, ref", CASES, ids=[f"{n}-{r}" for n, r in CASES])
def test_a_visitor_reads_no_key_none_command_setting_path_or_makers_notice(name, ref):
    text = "Un petit chien blanc dort sur le canapé." if ref.startswith("fr-en") else \
        "A small white dog is sleeping on the couch."
    at = run_page(page(name), model=ref, text=text)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]  # every page works on every bundled model
    patterns, whole = forbidden(ref)
    said = visible(at)
    assert said  # the page says something: the sweep reads it
    leaks = [(p.pattern[:40], s[:160]) for s in said for p in patterns if p.search(s)]
    leaks += [("a key as a whole cell", s) for s in said if s in whole]
    assert not leaks, leaks[:3]


def test_the_sweep_sees_a_key_a_none_and_a_command():
    """The sweep is not blind: a page that wrote a reading's key, None and a command in the open fails it."""
    from streamlit.testing.v1 import AppTest

    def leaky():
        import streamlit as st

        st.caption("Transformer (multi-head) 1.4 reads best")
        st.markdown("reading 2.mean.shifted")
        st.dataframe({"AER": [None, 1.0]})
        st.code("python -m models.align --model transformer")
        with st.expander("How it was measured"):
            st.code("python -m models.faithfulness")  # folded: allowed

    patterns, _ = forbidden("transformer")
    said = visible(AppTest.from_function(leaky).run())
    assert sum("faithfulness" in s for s in said) == 0  # what is folded is not read
    caught = [s for s in said if any(p.search(s) for p in patterns)]
    assert len(caught) == 4, (said, caught)  # the key beside a name, the key, the empty cell, the command
