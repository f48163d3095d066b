"""A kind of attention is one object (``models.nouns.attention_map.Kind``): it says whether its rows are the decoding
steps, it reads back from the strings records, URLs and families write, and a record naming no kind is refused."""
import json

import pytest

from models.network.contract import ENCODER_DECODER_KINDS
from models.nouns.attention_map import KINDS, Kind, NamedKind, Reading
from models.storage.records.head_scores import HeadScore
from models.storage.records.strict import read_record


def test_only_the_cross_attention_is_stepwise_and_every_kind_is_named_once():
    assert [k for k in KINDS if k.stepwise] == [Kind.CROSS]
    assert tuple(k.key for k in ENCODER_DECODER_KINDS) == KINDS


def test_a_kind_written_as_a_string_reads_back_as_the_kind():
    assert Reading(0, 1, kind="encoder").kind is Kind.ENCODER
    assert Reading.from_key("decoder.2.1").kind is Kind.DECODER and Reading.from_key("2.1").kind is Kind.CROSS
    assert NamedKind("decoder", "itself", "itself", "Rows and columns.").key is Kind.DECODER
    assert json.dumps({Kind.CROSS: Reading.from_key("1.2.shifted").key}) == '{"cross": "1.2.shifted"}'
    assert {"cross": 1}[Kind.CROSS] == 1  # a dict keyed by the string finds the kind


def test_a_record_naming_no_kind_is_refused_with_its_file():
    found = {"kind": "encoder", "layer": 1, "head": 2, "bleu_without": 30.0, "drop": 1.0, "confidence": 0.5}
    assert read_record(HeadScore, found, "heads.json").kind is Kind.ENCODER
    with pytest.raises(ValueError, match="heads.json: expected one of"):
        read_record(HeadScore, {**found, "kind": "sideways"}, "heads.json")
    with pytest.raises(ValueError):
        Reading(0, kind="sideways")
