"""models/network/parts.py's Where: each family declares once where its attentions sit, and the shapes (from its
config), the modules and the sites that follow agree with the modules themselves."""
import pytest

from models.network.transformer import WHERE
from models.nouns.attention_map import KINDS, Kind
from models.storage.hub import load_model

from .helpers import make_transformer
from .hf_helpers import tiny_many_to_many, tiny_marian, tiny_t5


def test_our_transformers_declared_attentions_are_its_own_modules(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers, layers=2, heads=2)
    modules, sites = model.attention_modules(), model.sublayer_sites()
    assert set(WHERE) == set(KINDS) == set(modules) == set(sites) == set(model.attention_shapes)
    assert modules[Kind.CROSS][0] is model.decoder[0].cross_attn
    assert modules[Kind.ENCODER][1] is model.encoder[1].self_attn
    for kind in KINDS:
        L, heads = model.attention_shapes[kind]
        assert len(modules[kind]) == len(sites[kind]) == L and all(m.heads == heads for m in modules[kind])
        assert all(s.values is m.W_v and s.out is m.W_o for s, m in zip(sites[kind], modules[kind]))


@pytest.mark.parametrize("make", [tiny_marian, tiny_t5, lambda folder: tiny_many_to_many(folder, "nllb")],
                         ids=["marian", "t5", "nllb"])
def test_a_hub_familys_declared_attentions_match_its_config_and_modules(tmp_path, make):
    model = load_model(str(make(tmp_path))).model
    names, modules, sites = model.layout.projections, model.attention_modules(), model.sublayer_sites()
    assert set(modules) == set(sites) == set(model.attention_shapes) == set(KINDS)
    for kind in KINDS:
        L, heads = model.attention_shapes[kind]
        assert len(modules[kind]) == len(sites[kind]) == L
        for module, site in zip(modules[kind], sites[kind]):
            assert getattr(module, names.out).in_features == heads * getattr(module, names.head_dim)
            assert site.values is getattr(module, names.value) and site.out is getattr(module, names.out)
