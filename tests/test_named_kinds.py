"""A model names its own attentions (``Translator.named_kinds``) and the pages only draw what it says: a toy family
registered here, a Transformer with no encoder self-attention to show and names of its own for the two it has, is
drawn on every page under those names, and nowhere as an encoder."""
from __future__ import annotations

import json
import shutil
from dataclasses import dataclass

import pytest

from models.network import architectures
from models.nouns.attention_map import NamedKind
from models.network.transformer import TransformerConfig, TransformerTranslator
from models.storage.hub import BUNDLED_DIR

from .pages_helpers import APP, MODEL_PAGES, figures, page, run_page, title_of

TOY_KINDS = (
    NamedKind("cross", "the answer reading the question", "answer → question",
              "Rows: the answer's pieces; columns: the question's."),
    NamedKind("decoder", "the answer reading itself", "answer → itself",
              "Rows: the answer's pieces; columns: the answer's pieces before each."),
)


@dataclass(frozen=True)
class ToyConfig(TransformerConfig):
    architecture: str = "toy"

    def __post_init__(self):
        pass

    @property
    def attention_shapes(self) -> dict[str, tuple[int, int]]:
        return {kind: shape for kind, shape in super().attention_shapes.items() if kind != "encoder"}


class ToyTranslator(TransformerTranslator):
    architecture = "toy"
    named_kinds = TOY_KINDS


@pytest.fixture
def toy(tmp_path, monkeypatch):
    monkeypatch.setitem(architectures.ARCHITECTURES, "toy", (ToyConfig, ToyTranslator))
    folder = tmp_path / "toy"
    folder.mkdir()
    for name in ("model.safetensors", "source_tokenizer.json", "target_tokenizer.json"):
        shutil.copy(BUNDLED_DIR / "en-fr-transformer" / name, folder / name)
    config = json.loads((BUNDLED_DIR / "en-fr-transformer" / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, "architecture": "toy"}))
    return str(folder)


def said(at) -> str:
    """Everything a page wrote: its text, its widgets' labels and options, its charts' titles."""
    texts = [e.value for kind in ("markdown", "caption", "subheader", "title", "text") for e in at.get(kind)]
    options = [str(o) for w in at.get("button_group") for o in getattr(w, "options", [])]
    labels = [w.label for w in at.toggle]
    return " ".join([*texts, *options, *labels, *(title_of(f) for f in figures(at))])


def test_the_translate_page_offers_and_draws_the_toys_attentions_by_its_own_names(toy):
    at = run_page(APP, text="a dog runs on the beach", model=toy, layers="1")
    assert not at.exception, [e.message for e in at.exception]
    drawn = said(at)
    assert "the answer reading the question" in drawn.lower() and "encoder" not in drawn.lower()
    itself = run_page(APP, text="a dog runs on the beach", model=toy, attn="decoder")
    assert not itself.exception, [e.message for e in itself.exception]
    assert title_of(figures(itself)[0]).startswith("The answer reading itself α")
    assert "encoder" not in said(itself).lower()
    asked_for_it = run_page(APP, text="a dog runs on the beach", model=toy, attn="encoder")  # a link from elsewhere
    assert not asked_for_it.exception and "encoder" not in said(asked_for_it).lower()


@pytest.mark.parametrize("name", MODEL_PAGES)
def test_every_other_page_draws_the_toy_and_never_calls_it_an_encoder(toy, name):
    at = run_page(page(name), text="a dog runs on the beach", model=toy, left=toy)
    assert not at.exception, [e.message for e in at.exception]
    assert not any("encoder self-attention" in t.lower() for t in (title_of(f) for f in figures(at)))
