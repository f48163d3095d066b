"""models/views/query_string.py: every query parameter validated; nothing a visitor types can raise."""
import pytest

from models.nouns.matrix import ATTENTION, MATRICES
from models.views import query_string as url
from models.views.query_string import UrlState, parse


def test_defaults_when_nothing_is_given():
    assert parse({}) == UrlState()


def test_valid_values_are_kept():
    state = parse({"beam": "4", "level": "subwords", "step": "3", "model": "owner/name", "model_rev": "v1",
                   "left": "dot", "right": "additive", "text": "A dog runs."})
    assert (state.beam, state.level, state.step, state.model, state.model_rev) == (4, "subwords", 3, "owner/name", "v1")
    assert (state.left, state.right, state.text) == ("dot", "additive", "A dog runs.")
    assert state.notices == ()


def test_an_old_links_renamed_parameter_is_read_under_its_new_name_the_new_first():
    for old, new in url.RENAMED.items():
        assert getattr(parse({old: "ALTI"}), new) is MATRICES["ALTI"]
        assert getattr(parse({old: "ALTI", new: "attention"}), new) is ATTENTION
        assert getattr(parse({old: "a\x00b"}), new) is None and len(parse({old: "a\x00b"}).notices) == 1


@pytest.mark.parametrize("key, raw", [
    ("beam", "abc"), ("beam", "2.5"), ("beam", "10000"), ("beam", "0"), ("beam", "-1"), ("beam", ""),
    ("level", "letters"), ("step", "0"), ("step", "1e9"), ("step", "x"),
    ("model", "a\x00b"), ("model", "m" * 201), ("model_rev", "\u202e"), ("left_rev", "r" * 101),
    ("instruction", "{sentence}\x1b[2J"), ("instruction", "{sentence}" + "x" * 500), ("matrix", "no-such-matrix"),
])
def test_bad_values_fall_back_to_the_default_with_a_notice(key, raw):
    state = parse({key: raw})
    assert getattr(state, key) == getattr(UrlState(), key)
    assert len(state.notices) == 1 and key in state.notices[0]


def test_notice_quotes_a_long_value_shortened():
    (notice,) = parse({"beam": "9" * 500}).notices
    assert len(notice) < 120 and "…" in notice


def test_text_is_capped():
    state = parse({"text": "x" * 5000})
    assert len(state.text) == url.MAX_TEXT_CHARS and "500 characters" in state.notices[0]


def test_empty_text_is_kept_empty_and_unknown_keys_are_ignored():
    assert parse({"text": "", "utm_source": "mail", "embed": "true"}) == UrlState(text="")


def test_whitespace_around_numbers_and_refs_is_tolerated():
    state = parse({"beam": " 3 ", "model": "  owner/name  "})
    assert state.beam == 3 and state.model == "owner/name" and not state.notices


def test_an_instruction_keeps_its_lines_and_its_fields_for_the_sidebar_to_check():
    state = parse({"instruction": "Into {target}, please:\n\n{sentence}"})
    assert state.instruction == "Into {target}, please:\n\n{sentence}" and not state.notices
    assert parse({"instruction": "  "}).instruction is None
