"""People's links read from both directions (issue 86): a probe that reads a reverse partner's heads too — a model
translating the other way, read on each pair with the roles swapped and transposed onto the same word grid — finds
that partner's head where it alone carries the links, reads back in the app as it was fit, round-trips through its
record, and is loaded with its partner by the loader (never a loop)."""
import json

import numpy as np
import pytest

from models import align
from models.analysis.contributions import Sentence
from models.analysis.fitted import word_grid
from models.analysis.probe_fit import Example, features_of, fit_probe
from models.analysis.recipes import applicable, of
from models.analysis.word_links import word_matrices
from models.decoding.greedy import forced
from models.network.tokenization import TokenizerPair
from models.network.translator import Fitted, ReversePartner
from models.nouns.attention_map import Reading
from models.nouns.link_rule import rows_argmax
from models.nouns.matrix import ATTENTION, FITTED, matrix_named
from models.storage.hub import load_model, save_checkpoint
from models.storage.records.probe_file import probe_from_json, probe_json

from .helpers import make_transformer, synthetic_pairs
from .test_probe import gold_folder

PLANTED = Reading(1, 0)  # layer 2, head 1 of the partner


@pytest.fixture(scope="module")
def two_ways(tiny_tokenizers):
    """An English→French model and a French→English partner, each tiny and untrained."""
    reverse = TokenizerPair(tiny_tokenizers.target, tiny_tokenizers.source)
    return (make_transformer(tiny_tokenizers, seed=3), tiny_tokenizers), (make_transformer(reverse, seed=5), reverse)


def _pass(model, tokenizers, source: str, target: str):
    sentence = Sentence(model, forced(model, tokenizers, source, target))
    return sentence, lambda name: of(matrix_named(name), sentence)


def two_way_examples(two_ways, pairs, partner: bool = True) -> list[Example]:
    """Each pair's features (with the partner's, transposed), its links the partner's planted head's argmax."""
    (model, tokenizers), (other, reverse) = two_ways
    features, found = features_of(model, other if partner else None), []
    for english, french in pairs:
        theirs = word_matrices(other, reverse, french.split(), english.split(), {ATTENTION: [PLANTED]})
        links = frozenset((e, f) for f, e in rows_argmax(theirs[ATTENTION][0]))  # their (source, target) turned
        x = word_grid(*_pass(model, tokenizers, english, french), features,
                      _pass(other, reverse, french, english) if partner else None).x
        found.append(Example(x, links, links))
    return found


def test_the_two_way_probe_finds_the_partners_head_where_it_alone_carries_the_links(two_ways):
    pairs = synthetic_pairs(24, 11)
    (model, _), (other, _) = two_ways
    both = fit_probe(two_way_examples(two_ways, pairs), features_of(model, other), "planted", "trial",
                     partner="reverse")
    feature, weight = both.used()[0]
    assert feature.reverse and feature.head == PLANTED and weight > 0, both.used()[:5]
    grid = both.head_grid(2, 2, shifted=False, reverse=True)  # [L, heads + 1] of the partner
    assert np.unravel_index(np.abs(grid).argmax(), grid.shape) == (1, 0)
    one_way = fit_probe(two_way_examples(two_ways, pairs, partner=False), features_of(model), "planted", "trial")
    assert both.chosen.aer < 20 < 40 < one_way.chosen.aer  # its own heads do not carry the partner's links
    assert both.data.partner == "reverse" and both.data.repeats == 3 and both.reads_partner


def test_a_feature_of_the_partner_is_named_so_and_its_record_round_trips(two_ways):
    (model, _), (other, _) = two_ways
    features = features_of(model, other)
    theirs = [f for f in features if f.reverse]
    assert len(theirs) == len(features_of(other)) - 3  # the partner's cells; the words' own features once
    assert all(f.name.startswith("reverse model:") for f in theirs)
    probe = fit_probe(two_way_examples(two_ways, synthetic_pairs(10, 2)), features, "planted", "trial",
                      partner="reverse")
    assert probe_from_json(json.loads(json.dumps(probe_json(probe)))) == probe


def test_the_app_reads_the_two_way_probe_as_it_was_fit(two_ways):
    """The fitted matrix of a sentence, its partner's pass made from the sentence's own words, reads back the probe
    applied to the features the fit read."""
    (model, tokenizers), (other, reverse) = two_ways
    pairs = synthetic_pairs(10, 4)
    probe = fit_probe(two_way_examples(two_ways, pairs), features_of(model, other), "planted", "trial",
                      partner="reverse")
    assert FITTED not in applicable(model, Fitted(probe))  # no partner loaded: the matrix says why instead of failing
    fitted = Fitted(probe, partner=ReversePartner(other, reverse, "reverse"))
    english, french = pairs[0]
    x = two_way_examples(two_ways, [pairs[0]])[0].x
    read = word_matrices(model, tokenizers, english.split(), french.split(), {FITTED: [None]}, fitted=fitted)[FITTED][0]
    assert np.allclose(read, probe.probability(x), atol=1e-6)


def test_the_loader_loads_the_partner_a_saved_probe_names_and_align_refuses_one_of_the_same_way(
        two_ways, tmp_path, capsys):
    (model, tokenizers), (other, reverse) = two_ways
    save_checkpoint(tmp_path / "fwd", model, tokenizers)
    save_checkpoint(tmp_path / "rev", other, reverse)
    probe = fit_probe(two_way_examples(two_ways, synthetic_pairs(12, 6)), features_of(model, other), "planted",
                      "trial", partner=str(tmp_path / "rev"))
    (tmp_path / "fwd" / "probe.json").write_text(json.dumps(probe_json(probe)))
    (tmp_path / "rev" / "probe.json").write_text(json.dumps(probe_json(  # the partner's names the first: no loop
        fit_probe(two_way_examples(two_ways, synthetic_pairs(12, 6)), features_of(model, other), "planted",
                  "trial", partner=str(tmp_path / "fwd")))))
    loaded = load_model(str(tmp_path / "fwd"))
    assert loaded.fitted.partner is not None and loaded.fitted.partner.name == str(tmp_path / "rev")
    assert FITTED in applicable(loaded.model, loaded.fitted)
    with pytest.raises(SystemExit, match="not the other way"):
        align.main(["--model", "transformer", "--data", str(gold_folder(tmp_path / "gold", {"trial": 3})),
                    "--fit-on", "trial", "--partner", "transformer-align"])  # both English→French
