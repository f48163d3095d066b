"""models/analysis/bertviz_export.py: the real bertviz package accepts the three kinds and draws our tokens."""
import json

import numpy as np
import pytest

from models.analysis.bertviz_export import bertviz_arguments, bertviz_html
from models.decoding.every_attention import attention_kinds
from models.decoding.greedy import greedy
from models.nouns.attention_map import Kind

from .helpers import make_transformer

pytest.importorskip("bertviz", reason="bertviz is an optional extra (requirements-extras.txt)")

TEXT = "a big red dog runs on the grass"


@pytest.fixture(scope="module")
def kinds(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    return attention_kinds(model, greedy(model, tiny_tokenizers, TEXT))


def test_the_arguments_have_bertvizs_shapes(kinds):
    args = bertviz_arguments(kinds)
    S, T = len(args["encoder_tokens"]), len(args["decoder_tokens"])
    assert [a.shape for a in args["encoder_attention"]] == [(1, 2, S, S)] * 2
    assert [a.shape for a in args["decoder_attention"]] == [(1, 2, T, T)] * 2
    assert [a.shape for a in args["cross_attention"]] == [(1, 2, T, S)] * 2


@pytest.mark.parametrize("view", ["model", "head"])
def test_bertviz_draws_our_tokens_and_weights(kinds, view):
    page = bertviz_html(kinds, view)
    params = _params(page)
    by_name = {a["name"]: a for a in params["attention"]}
    assert set(by_name) == {"Encoder", "Decoder", "Cross"}
    shown = lambda pieces: [p.replace("▁", " ") for p in pieces]  # noqa: E731 — bertviz shows the word mark as a space
    assert by_name["Encoder"]["left_text"] == shown(kinds[Kind.ENCODER].columns)
    assert by_name["Cross"]["left_text"] == shown(kinds[Kind.DECODER].columns)
    assert by_name["Cross"]["right_text"] == shown(kinds[Kind.ENCODER].columns)
    assert by_name["Decoder"]["left_text"] == by_name["Decoder"]["right_text"] == shown(kinds[Kind.DECODER].columns)
    assert by_name["Encoder"]["right_text"] == shown(kinds[Kind.ENCODER].columns)
    for name, ours in (("Encoder", kinds[Kind.ENCODER].weights), ("Decoder", kinds[Kind.DECODER].weights), ("Cross", kinds[Kind.CROSS].weights)):
        drawn = np.array(by_name[name]["attn"])  # [L, heads, rows, columns]: row i reads column j
        np.testing.assert_allclose(drawn, ours, atol=1e-6, err_msg=name)


def test_the_decoders_self_attention_reaches_bertviz_causal(kinds):
    """Row t (the decoder's input t) reads inputs ≤ t only: nothing above the diagonal, each row summing to 1 —
    true of the matrix bertviz draws, not of its transpose."""
    drawn = np.array({a["name"]: a for a in _params(bertviz_html(kinds, "model"))["attention"]}["Decoder"]["attn"])
    assert np.abs(np.triu(drawn, k=1)).max() == 0
    np.testing.assert_allclose(drawn.sum(-1), 1, atol=1e-5)


def _params(page: str) -> dict:
    """The parameters bertviz's script embeds (``const params = {...}``): every token and weight it draws."""
    start = page.index("const params = ") + len("const params = ")
    return json.JSONDecoder().raw_decode(page, start)[0]
