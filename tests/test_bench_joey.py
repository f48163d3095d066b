"""bench/joey.py: Joey NMT gets our pieces, in our batch order, with our sizes and recipe.

(Running Joey NMT itself needs its own virtual environment: `python -m bench joey`.)"""
import yaml

from bench.joey import INTERVALS, joey_config, run_ours, write_joey_data
from models.network.learning.step import DEFAULT_LR
from models.network.seq2seq import RNNConfig
from models.storage.data import batch_order
from models.storage.pieces import tokenize_pairs

from .helpers import synthetic_pairs


def test_joey_reads_our_pieces_in_our_batch_order(tiny_tokenizers, tmp_path):
    pairs = tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(40)), max_len=50)
    rows = [j for batch in batch_order(pairs, 8) for j in batch]
    write_joey_data(tiny_tokenizers, pairs, rows, tmp_path)
    english = (tmp_path / "train.en").read_text().splitlines()
    french = (tmp_path / "train.fr").read_text().splitlines()
    assert len(english) == len(french) == len(rows)
    for line_en, line_fr, j in zip(english, french, rows):
        assert line_en.split() == tiny_tokenizers.source.pieces(pairs[j][0][:-1])  # our EOS left to Joey
        assert line_fr.split() == tiny_tokenizers.target.pieces(pairs[j][1])
    vocab = (tmp_path / "vocab.fr").read_text().splitlines()
    assert len(vocab) == tiny_tokenizers.target.vocab_size - 4 and "<pad>" not in vocab


def test_joey_config_has_our_sizes_and_recipe(tmp_path):
    config = RNNConfig(8000, 8000)
    cfg = yaml.safe_load(joey_config(tmp_path, 100, False, config))
    assert cfg["model"]["encoder"]["hidden_size"] == config.enc_hidden and cfg["model"]["encoder"]["bidirectional"]
    assert cfg["model"]["decoder"]["hidden_size"] == config.dec_hidden
    assert cfg["model"]["decoder"]["attention"] == "bahdanau"
    training = cfg["training"]
    assert (training["batch_size"], training["learning_rate"], training["label_smoothing"]) == (64, DEFAULT_LR, 0.1)
    assert training["updates"] == 100 and training["validation_freq"] > 100 and training["shuffle"] is False


def test_our_rates_come_one_per_interval(tiny_tokenizers):
    pairs = tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(64 * 20)), max_len=50)
    order = batch_order(pairs, 64)
    rates, params = run_ours(pairs, order, 20, RNNConfig(tiny_tokenizers.source.vocab_size,
                                                           tiny_tokenizers.target.vocab_size, emb_dim=16,
                                                           enc_hidden=16, dec_hidden=24, attn_dim=12), "float32")
    assert len(rates) == INTERVALS and all(r > 0 for r in rates) and params > 0
