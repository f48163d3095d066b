"""models/analysis/nearest_states.py and models/neighbours.py: the index agrees with brute force, finds a training
state's own sentence, survives a round trip, and refuses files that do not fit."""
from dataclasses import replace

import numpy as np
import pytest
from safetensors import safe_open
from safetensors.torch import load_file, save_file

from models import neighbours as cli
from models.analysis.nearest_states import (
    INDEX_FILE,
    IndexFileError,
    build_index,
    highlight,
    load_index,
    nearest,
    save_index,
)
from models.decoding.greedy import forced, greedy
from models.network.seq2seq import Seq2Seq

from .helpers import make_model, synthetic_pairs


@pytest.fixture
def index(tiny_tokenizers, tiny_model):
    return build_index(tiny_model, tiny_tokenizers, synthetic_pairs(30, seed=5), dim=8)


def test_rows_are_every_target_piece_of_every_sentence(index, tiny_model, tiny_tokenizers):
    assert len(index.vectors) == sum(len(p) for p in index.pieces) == len(index.sentence) == len(index.position)
    assert index.vectors.shape[1] == 8 and 0 < index.explained <= 1
    np.testing.assert_allclose(np.linalg.norm(index.vectors, axis=1), 1, atol=2e-3)  # float16-rounded unit vectors


def test_nearest_agrees_with_brute_force(index, tiny_model, tiny_tokenizers):
    state = greedy(tiny_model, tiny_tokenizers, "the red cat sees a dog").states[2]
    found = nearest(index, state, k=5)
    z = (state - index.mean) @ index.components
    cosine = index.vectors @ (z / np.linalg.norm(z))
    expected = np.argsort(-cosine, kind="stable")[:5]
    assert [(n.sentence, n.position) for n in found] == [(index.sentence[r], index.position[r]) for r in expected]
    np.testing.assert_allclose([n.similarity for n in found], cosine[expected], rtol=1e-5)
    assert all(a.similarity >= b.similarity for a, b in zip(found, found[1:]))


def test_a_training_state_finds_its_own_sentence_first(any_model, tiny_tokenizers, tmp_path):
    """For either architecture: the RNN's states s_t, the Transformer's last decoder layer (through a round trip)."""
    save_index(build_index(any_model, tiny_tokenizers, synthetic_pairs(30, seed=5), dim=8), tmp_path)
    index = load_index(tmp_path, any_model)
    assert index.mean.shape == (any_model.state_size,)
    src, tgt = synthetic_pairs(30, seed=5)[7]
    trace = forced(any_model, tiny_tokenizers, src, tgt)
    for t in range(len(trace.states)):
        best = nearest(index, trace.states[t], k=1)[0]
        assert best.similarity > 0.999
        assert index.pieces[best.sentence][best.position] == trace.target_pieces[t]


def test_highlight_marks_the_whole_word_of_a_piece():
    pieces = ("▁une", "▁ro", "be", "▁rouge", "</s>")
    assert highlight(pieces, 2) == ("une", "robe", "rouge </s>")
    assert highlight(pieces, 0) == ("", "une", "robe rouge </s>")


def test_saved_index_loads_equal(index, tiny_model, tmp_path):
    save_index(index, tmp_path)
    again = load_index(tmp_path, tiny_model)
    np.testing.assert_array_equal(again.vectors, index.vectors)
    np.testing.assert_array_equal(again.sentence, index.sentence)
    assert again.pieces == index.pieces and again.sources == index.sources and again.explained == index.explained


def test_a_checkpoint_without_an_index_has_none(tiny_model, tmp_path):
    assert load_index(tmp_path, tiny_model) is None


def test_unreadable_or_mismatched_files_are_refused(index, tiny_model, tiny_tokenizers, tmp_path):
    (tmp_path / INDEX_FILE).write_bytes(b"\x00garbage")
    with pytest.raises(IndexFileError, match="cannot be read"):
        load_index(tmp_path, tiny_model)
    save_index(index, tmp_path)
    wider = Seq2Seq(replace(tiny_model.config, dec_hidden=tiny_model.config.dec_hidden + 1))
    with pytest.raises(IndexFileError, match="does not fit"):
        load_index(tmp_path, wider)
    tensors = load_file(tmp_path / INDEX_FILE)
    tensors["sentence"] = tensors["sentence"] + 1000  # rows pointing past the sentences
    with safe_open(tmp_path / INDEX_FILE, "pt") as f:
        metadata = f.metadata()
    save_file(tensors, tmp_path / INDEX_FILE, metadata=metadata)
    with pytest.raises(IndexFileError, match="does not fit"):
        load_index(tmp_path, tiny_model)


def test_the_cli_writes_an_index_a_model_loads(tiny_corpus, tiny_tokenizers, tmp_path, capsys):
    from models.storage.hub import load_model, save_checkpoint

    save_checkpoint(tmp_path / "ck", make_model(tiny_tokenizers), tiny_tokenizers)
    assert cli.main(["--model", str(tmp_path / "ck"), "--data", str(tiny_corpus), "--sentences", "12",
                     "--dim", "4"]) == 0
    assert "from 12 sentences, 4 dimensions" in capsys.readouterr().out
    loaded = load_model(str(tmp_path / "ck"), device="cpu")
    assert len(load_index(tmp_path / "ck", loaded.model).sources) == 12


def test_a_french_to_english_models_training_pairs_are_read_french_first(tiny_corpus):
    from models.neighbours import sample_pairs

    english_first = sample_pairs([str(tiny_corpus)], 12, 0)
    french_first = sample_pairs([str(tiny_corpus)], 12, 0, ("fr", "en"))
    assert french_first == [(target, source) for source, target in english_first]
