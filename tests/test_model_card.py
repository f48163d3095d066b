"""models/storage/cards/metadata.py: what a card says — its licence, and whether a head was trained to align — and
nothing where it says nothing or cannot be read."""
from models.nouns.attention_map import Reading
from models.storage.cards.metadata import MAX_CARD_BYTES, CardFacts, Guided, read_card

from .hf_helpers import OPUS_CARD


def test_an_opus_mt_card_names_its_licence_and_guided_alignment(tmp_path):
    (tmp_path / "README.md").write_text(OPUS_CARD, encoding="utf-8")
    facts = read_card(tmp_path)
    assert facts == CardFacts("apache-2.0", Guided(-1, 0))
    assert facts.supervised_head((6, 8)) == Reading(5, 0)  # opus-mt-en-fr: the first head of decoder layer 6


def test_a_card_that_says_nothing_claims_nothing(tmp_path):
    assert read_card(tmp_path) == CardFacts(None, None)  # no card
    (tmp_path / "README.md").write_text("# my model\n\n* model: transformer\n", encoding="utf-8")
    assert read_card(tmp_path) == CardFacts(None, None)  # plain Transformer: no head was supervised
    assert CardFacts(None, None).supervised_head((6, 8)) is None
    assert CardFacts(None, Guided(-1, 0)).supervised_head((0, 0)) is None  # a model without attention has no such head


def test_a_card_of_ours_names_the_head_it_trained_to_align(tmp_path):
    (tmp_path / "README.md").write_text("# a model\n\n- Trained to align: cross-attention layer 2, head 3 (guided "
                                        "alignment)\n", encoding="utf-8")
    facts = read_card(tmp_path)
    assert facts == CardFacts(None, Guided(1, 2))
    assert facts.supervised_head((3, 4)) == Reading(1, 2)
    (tmp_path / "README.md").write_text("- Trained to align: cross-attention layer 1, head 4, read one step later\n")
    assert read_card(tmp_path).supervised_head((3, 4)) == Reading(0, 3, shifted=True)
    (tmp_path / "README.md").write_text("- Trained to align: cross-attention layer 1, head 4, read one step later, "
                                        "with the whole translation in view (guided alignment)\n")
    assert read_card(tmp_path).guided == Guided(0, 3, shifted=True, full_context=True)
    assert facts.supervised_head((1, 4)) is None  # a head the model does not have is no claim
    assert facts.supervised_head((3, 2)) is None


def test_a_broken_or_oversized_card_is_not_read(tmp_path):
    (tmp_path / "README.md").write_text("---\nlicense: [unclosed\n---\n* model: transformer-align\n", encoding="utf-8")
    assert read_card(tmp_path).licence is None
    (tmp_path / "README.md").write_bytes(b"\xff\xfe\x00binary")
    assert read_card(tmp_path) == CardFacts(None, None)
    (tmp_path / "README.md").write_text("* model: transformer-align\n" + " " * MAX_CARD_BYTES, encoding="utf-8")
    assert read_card(tmp_path) == CardFacts(None, None)


def test_the_bundled_cards_name_their_licence():
    from models.storage.hub import resolve

    assert read_card(resolve("additive")) == CardFacts("mit", None)
