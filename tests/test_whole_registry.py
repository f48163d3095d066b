"""A way to read a layer's heads as one, registered once (``WHOLES`` of models/nouns/attention_map.py), is offered
with no other edit wherever a layer's heads are: the readings a model has and their names, the Translate page's
head picker and heatmap, ``models.align --reading all``, and the AER-by-head table."""
import json

import numpy as np
import pytest

from models import align
from models.nouns.attention_map import WHOLES, AttentionMap, Kind, Reading, Whole, readings, register_whole
from models.nouns.link_rule import LinkRule
from models.nouns.matrix import ATTENTION
from models.storage.hub import save_checkpoint
from models.storage.records.alignment_rows import AlignmentRow, aer_by_head

from .helpers import make_transformer, write_gold
from .pages_helpers import APP, figures, run_page, title_of

LARGEST = Whole("max", "largest of its heads", lambda heads: heads.max(axis=0))


@pytest.fixture
def registered():
    """LARGEST registered for one test, the registry as it was afterwards."""
    before = dict(WHOLES)
    register_whole(LARGEST)
    yield LARGEST
    WHOLES.clear()
    WHOLES.update(before)


def test_a_registered_whole_is_a_reading_with_its_name_and_its_matrix(registered):
    weights = np.random.default_rng(0).random((2, 3, 4, 5)).astype(np.float32)  # [L, heads, R, C]
    found = AttentionMap(Kind.CROSS, weights, tuple("abcd"), tuple("vwxyz"))
    largest = Reading.from_key("2.max")
    assert largest.key == "2.max" and largest.label == "layer 2, largest of its heads"
    assert largest in readings((2, 3)) and Reading(1, None) in readings((2, 3))  # beside the mean, not instead
    assert Reading.parse("2.max.shifted", (2, 3)).shifted
    np.testing.assert_array_equal(found.read(largest), weights[1].max(axis=0))
    np.testing.assert_array_equal(found.read(Reading.from_key("2.max.shifted")), weights[1].max(axis=0)[1:])
    assert ATTENTION.label(largest) == "layer 2, largest of its heads"
    assert Reading.from_key("2.mean").whole == "mean" and "max" not in {r.key for r in readings((2, 1))}


def test_without_registering_it_no_such_reading_exists():
    with pytest.raises(ValueError, match="not a reading"):
        Reading.from_key("2.max")


def test_the_translate_pages_picker_offers_it_and_the_heatmap_draws_it(registered):
    at = run_page(APP, model="transformer", text="A dog runs.", head="2.max")
    assert not at.exception and not at.error
    assert "Layer 2, largest of its heads" in [o.rstrip(" ★✓") for o in at.selectbox(key="head").options]
    assert title_of(figures(at)[0]).endswith("(layer 2, largest of its heads)")


def test_models_align_reading_all_scores_it(registered, tiny_tokenizers, tmp_path, capsys):
    gold = write_gold(tmp_path / "gold", ("test",))
    save_checkpoint(tmp_path / "transformer", make_transformer(tiny_tokenizers), tiny_tokenizers)
    assert align.main(["--model", str(tmp_path / "transformer"), "--data", str(gold), "--matrix", "attention",
                       "--reading", "all"]) == 0
    scored = {r["reading"] for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert {"1.max", "2.max", "1.max.shifted", "2.mean"} <= scored


def test_the_aer_by_head_table_has_a_column_for_it(registered):
    rows = [AlignmentRow("m", "test", 3, ATTENTION, LinkRule.parse("union"), aer, 0.0, 0.0, 0, reading=key)
            for key, aer in (("1.1", 40.0), ("1.2", 30.0), ("1.mean", 35.0), ("1.max", 25.0))]
    layers, columns, cells = aer_by_head(rows, "test")
    assert columns == ["head 1", "head 2", "mean", "max"] and cells == [[40.0, 30.0, 35.0, 25.0]]
