"""models/decoding/lines.py: whole files in order, blank lines kept, beam 1 equal to batched greedy."""
from models.decoding.beam import beam_search
from models.decoding.greedy import greedy
from models.decoding.lines import translate_lines


def test_blank_lines_stay_and_order_is_kept(tiny_model, tiny_tokenizers):
    lines = ["a dog runs", "", "the big cat sleeps", "   ", "a red man"]
    out = translate_lines(tiny_model, tiny_tokenizers, lines, beam=1)
    assert out[1] == "" and out[3] == ""
    assert [out[i] for i in (0, 2, 4)] == [greedy(tiny_model, tiny_tokenizers, lines[i]).translation for i in (0, 2, 4)]


def test_beam_lines_are_the_best_hypotheses(tiny_model, tiny_tokenizers):
    lines = ["a dog runs", "the grass"]
    out = translate_lines(tiny_model, tiny_tokenizers, lines, beam=3)
    assert out == [beam_search(tiny_model, tiny_tokenizers, line, 3).hypotheses[0].translation for line in lines]
