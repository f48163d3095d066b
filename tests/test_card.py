"""models/storage/card.py: the results rows, length buckets and sizes come from the records and the config."""
from models.storage.card import LENGTH_BUCKETS, bucket_label, render_card, results_rows
from models.storage.hub import BUNDLED_DIR

EVALUATION = {"beam_size": 5, "greedy": {"bleu": 50.0, "bleu_lc": 51.0, "chrf": 70.0},
              "beam": {"bleu": 52.0, "bleu_lc": 53.0, "chrf": 71.0}}


def test_results_rows_name_each_decoding():
    assert results_rows(EVALUATION) == [
        {"decoding": "greedy", "BLEU": 50.0, "BLEU (lowercased)": 51.0, "chrF": 70.0},
        {"decoding": "beam 5", "BLEU": 52.0, "BLEU (lowercased)": 53.0, "chrF": 71.0}]
    assert results_rows({"greedy": EVALUATION["greedy"]})[0]["decoding"] == "greedy"


def test_bucket_labels():
    assert [bucket_label({"min_words": lo, "max_words": hi}) for lo, hi in LENGTH_BUCKETS] == [
        "1–9", "10–14", "15–19", "20–24", "25+"]


def test_card_states_the_sizes_of_its_config():
    card = render_card(BUNDLED_DIR / "en-fr-dot")
    assert "embeddings 256, encoder 256 each way, decoder 512, attention 256, dropout 0.2" in card
    assert "scaled dot-product attention" in card and "| beam 5 |" in card
