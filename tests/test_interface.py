"""models/network/translator.py and models/decoding/trace.py: decoding through the one translator interface
agrees with each bundled network's teacher-forced forward, and readings name every head."""

from dataclasses import replace

import numpy as np
import pytest
import torch

from models.decoding.beam import beam_search
from models.decoding.greedy import forced, greedy
from models.network.contract import select_rows
from models.network.tokenization import BOS_ID, EOS_ID, PAD_ID
from models.network.translator import Translator
from models.nouns.attention_map import RNN_READING, AttentionMap, Kind, Reading, readings
from models.storage.hub import load_model

SENTENCES = ["A black dog is running on the beach.", "The children are jumping into the swimming pool.",
             "I think that the weather will be nice tomorrow, don't you?"]
#: Step by step against all at once: the same float32 operations in another order (the Transformer's cached
#: keys, the log-softmax over 16 k pieces); measured up to 2.3e-7 on CPU.
AGREE = 1e-4


@pytest.mark.parametrize("name", ["none", "additive", "dot", "transformer"])
def test_each_bundled_models_steps_agree_with_its_teacher_forced_forward(name):
    """Decoding goes step by step through the interface (encode, start, decode_step, reorder); training reads
    the same network all at once (``model(src, mask, tgt_in)``), a separate computation. On the bundled weights
    both give every written piece the same log-probability, greedy writes each step's argmax, and a beam's
    hypotheses rescore, forced, to the log-probabilities the search gave them."""
    loaded = load_model(name)
    model, tokenizers = loaded.model, loaded.tokenizers
    for text in SENTENCES:
        trace = greedy(model, tokenizers, text)
        src = torch.tensor([trace.source.ids], device=model.device)  # [1, S]
        tgt_in = torch.tensor([[BOS_ID, *trace.target_ids[:-1]]], device=model.device)  # [1, T]
        with torch.inference_mode():
            logprobs = model(src, src != PAD_ID, tgt_in)[0].float().log_softmax(-1).cpu()  # [T, V]
        assert list(trace.target_ids) == logprobs.argmax(-1).tolist(), text
        picked = logprobs.gather(1, torch.tensor(trace.target_ids)[:, None]).squeeze(1).numpy()  # [T]
        np.testing.assert_allclose(trace.token_logprobs, picked, atol=AGREE, err_msg=text)
        for hypothesis in beam_search(model, tokenizers, text, 3).hypotheses:
            again = forced(model, tokenizers, text, hypothesis.target_ids)
            np.testing.assert_allclose(again.token_logprobs, hypothesis.token_logprobs, atol=AGREE, err_msg=text)


def test_readings_name_each_head_and_each_layers_mean():
    assert [r.key for r in readings((2, 2))] == ["1.1", "1.2", "1.mean", "2.1", "2.2", "2.mean"]
    assert readings((1, 1)) == [RNN_READING]  # one head: its mean is itself
    assert Reading.parse("2.mean", (3, 4)) == Reading(1, None) and Reading.parse(" 3.4 ", (3, 4)) == Reading(2, 3)
    for bad in ["4.1", "1.5", "0.1", "x", "1", "1.mean.2", "1.1.later", "shifted"]:
        with pytest.raises(ValueError):
            Reading.parse(bad, (3, 4))


def test_a_shifted_reading_reads_each_piece_one_step_later():
    assert Reading.parse("2.mean.shifted", (3, 4)) == Reading(1, None, shifted=True)
    assert Reading(0, 0, shifted=True).key == "1.1.shifted" and Reading(0, 0, True).plain == RNN_READING
    both = readings((2, 2), shifted=True)
    assert len(both) == 12 and [r.key for r in both[6:]][:2] == ["1.1.shifted", "1.2.shifted"]
    attention = np.random.default_rng(0).dirichlet(np.ones(5), size=(2, 3, 4))  # [L, heads, T=4, S=5]
    later = attention_map(attention).read(Reading(1, 2, shifted=True))
    np.testing.assert_array_equal(later, attention[1, 2, 1:])  # piece t's row is step t + 1's: BOS row dropped


def test_every_holder_of_a_matrix_reads_one_step_later_by_the_readings_own_rule(tiny_tokenizers):
    """The attention, its energies and a layered matrix all take a shifted reading's rows the same way (the
    reading's ``rows``): each one's plain rows but the first."""
    from models.analysis.contributions import Layered

    from .helpers import make_model

    trace = greedy(make_model(tiny_tokenizers), tiny_tokenizers, "a dog runs")
    later, plain = Reading(0, 0, shifted=True), RNN_READING
    np.testing.assert_array_equal(trace.attention.read_energies(later), trace.attention.read_energies(plain)[1:])
    np.testing.assert_array_equal(trace.read(later), trace.read(plain)[1:])
    later, plain = Reading(1, 2, shifted=True), Reading(1, 2)
    attention = np.random.default_rng(1).dirichlet(np.ones(5), size=(2, 3, 4))  # [L, heads, T, S]
    layered = Layered(attention.mean(1), attention_map(attention))
    for reading in (later, Reading(1, None, shifted=True)):
        np.testing.assert_array_equal(layered.read(reading), layered.read(reading.plain)[1:])
    assert later.rows(np.arange(4)).tolist() == [1, 2, 3] and plain.rows(np.arange(4)).tolist() == [0, 1, 2, 3]


def test_a_reading_of_the_heads_is_a_distribution():
    attention = np.random.default_rng(0).dirichlet(np.ones(5), size=(2, 3, 4))  # [L, heads, T, S]
    mean = attention_map(attention).read(Reading(1, None))
    np.testing.assert_allclose(mean, attention[1].mean(0))
    np.testing.assert_allclose(mean.sum(-1), 1)
    np.testing.assert_array_equal(attention_map(attention).read(Reading(0, 2)), attention[0, 2])


def test_a_map_lists_the_readings_its_kind_has():
    cross, one = attention_map(np.ones((2, 3, 4, 5)) / 5), attention_map(np.ones((1, 1, 4, 5)) / 5)
    assert cross.several_heads and not one.several_heads and cross.shape == (2, 3)
    assert cross.readings(shifted=True) == readings((2, 3), shifted=True) and one.readings() == [RNN_READING]
    encoder = AttentionMap(Kind.ENCODER, np.ones((2, 3, 5, 5)) / 5, ("a",) * 5, ("a",) * 5)
    assert encoder.readings(shifted=True) == [replace(r, kind=Kind.ENCODER) for r in readings((2, 3))]
    assert {r.key for r in encoder.readings()} >= {"encoder.1.1", "encoder.2.mean"}


def test_an_attention_map_refuses_arrays_that_do_not_fit_its_labels():
    fits = dict(kind=Kind.CROSS, weights=np.full((1, 2, 3, 4), 0.25), rows=("a", "b", "c"),
                columns=("w", "x", "y", "z"))
    assert AttentionMap(**fits, energies=np.zeros((1, 2, 3, 4)), values=np.zeros((1, 2, 4, 8))).shape == (1, 2)
    for wrong in ({"rows": ("a", "b")}, {"columns": ("w",) * 5}, {"weights": np.full((2, 3, 4), 0.25)},
                  {"energies": np.zeros((1, 2, 3, 5))}, {"values": np.zeros((1, 1, 4, 8))}):
        with pytest.raises(ValueError):
            AttentionMap(**{**fits, **wrong})


def attention_map(weights: np.ndarray) -> AttentionMap:
    """A cross-attention map of ``weights`` [L, heads, T, S], its pieces named by position."""
    T, S = weights.shape[2:]
    return AttentionMap(Kind.CROSS, weights, tuple(f"t{t}" for t in range(T)), tuple(f"s{s}" for s in range(S)))


def test_select_rows_picks_rows_of_nested_batch_first_tensors():
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Cache:
        keys: tuple
        count: int
        state: torch.Tensor | None

    cache = Cache((torch.arange(6).view(3, 2), torch.arange(3)), 7, None)
    picked = select_rows(cache, torch.tensor([2, 0, 2]))
    assert picked.keys[0].tolist() == [[4, 5], [0, 1], [4, 5]] and picked.keys[1].tolist() == [2, 0, 2]
    assert picked.count == 7 and picked.state is None


def test_each_architecture_says_which_attentions_it_has_and_which_heads_can_go(tiny_tokenizers):
    from .helpers import make_model, make_transformer

    rnn, none, transformer = (make_model(tiny_tokenizers), make_model(tiny_tokenizers, "none"),
                              make_transformer(tiny_tokenizers, layers=2, heads=2))
    assert rnn.attention_shapes == {"cross": (1, 1)} and none.attention_shapes == {}
    assert transformer.attention_shapes == {"cross": (2, 2), "encoder": (2, 2), "decoder": (2, 2)}
    assert rnn.switchable_heads == {} and transformer.switchable_heads == transformer.attention_shapes
    with pytest.raises(ValueError, match="no heads to switch off"):
        rnn.switch_off([("cross", 0, 0)])
    with pytest.raises(ValueError, match="no head"):
        transformer.switch_off([("encoder", 2, 0)])
    src = torch.tensor([[5, 6, EOS_ID]])
    assert rnn.attention_kinds(src, src != 0, torch.tensor([[BOS_ID, 7]])) is None


def test_a_new_architecture_missing_a_verb_fails_when_it_is_built():
    class Half(Translator):  # a family that has only learnt to encode
        def encode(self, src, mask):
            return src

    with pytest.raises(TypeError, match="abstract") as caught:
        Half()
    for verb in ("start", "decode_step", "forward", "own_step_log_probs", "state_size"):
        assert verb in str(caught.value)
    assert "encode" not in str(caught.value).replace("decode", "")


def test_decoding_starts_and_stops_with_the_models_own_special_ids(tiny_tokenizers, monkeypatch):
    """Another family's ids (Marian: eos 0, its <pad> as the decoder's start) reach the loops from the model, not
    from this project's fixed first four: with the ids shuffled, greedy starts from the model's start id and stops
    at its end-of-sentence id (made the third step's choice)."""
    from dataclasses import replace

    from models.network.contract import Specials

    from .helpers import make_model

    model = make_model(tiny_tokenizers)
    shuffled = Specials(pad=3, eos=0, start=2, unk=1)  # a permutation of ours: id 0 (our <pad>) ends a sentence
    monkeypatch.setattr(type(model), "specials", property(lambda self: shuffled))
    seen = []
    original = type(model).decode_step

    def third_step_ends(self, prev, cache, memory, focus=None):
        seen.append(prev.tolist())
        step, cache = original(self, prev, cache, memory, focus)
        if len(seen) == 3:
            step = replace(step, log_probs=step.log_probs.index_fill(1, torch.tensor([shuffled.eos]), 0.0))
        return step, cache

    monkeypatch.setattr(type(model), "decode_step", third_step_ends)
    trace = greedy(model, tiny_tokenizers, "a dog runs")
    assert seen[0] == [shuffled.start] and len(seen) == 3
    assert len(trace.target_ids) == 3 and trace.target_ids[-1] == shuffled.eos


def test_one_key_grammar_names_every_attention_and_one_parser_reads_it():
    shapes = {"cross": (3, 4), "encoder": (2, 4), "decoder": (3, 4)}
    for key, reading in {"2.3": Reading(1, 2), "1.mean.shifted": Reading(0, None, True),
                         "encoder.2.4": Reading(1, 3, kind="encoder"), "decoder.3.mean": Reading(2, None, kind="decoder")
                         }.items():
        assert Reading.parse(key, shapes) == reading and reading.key == key
    assert Reading.parse("cross.2.3", shapes).key == "2.3"  # cross is the kind a key leaves out
    assert Reading.parse("1.4.shifted", (3, 4)) == Reading(0, 3, True)  # the cross-attention's shape alone
    for bad in ("encoder.3.1", "encoder.1.1.shifted", "4.1", "1.5", "self.1.1", "1", "a.b", "", "0.1"):
        with pytest.raises(ValueError):
            Reading.parse(bad, shapes)
    assert Reading(1, 3, kind="encoder").label == "encoder self-attention, layer 2, head 4"


def test_both_tokenizer_families_are_piece_tokenizers(tiny_tokenizers, tmp_path):
    from models.network.hf.tokenizer import HFTokenizer
    from models.network.tokenization import PieceTokenizer, TokenizerPair
    from models.storage.hub import load_model

    from .hf_helpers import tiny_marian

    assert isinstance(tiny_tokenizers.source, PieceTokenizer) and isinstance(tiny_tokenizers.target, PieceTokenizer)
    marian = load_model(str(tiny_marian(tmp_path / "marian")), device="cpu").tokenizers
    assert isinstance(marian, TokenizerPair) and isinstance(marian.source, HFTokenizer)
    assert isinstance(marian.source, PieceTokenizer) and isinstance(marian.target, PieceTokenizer)
    assert not isinstance(object(), PieceTokenizer)  # the check looks at the verbs
