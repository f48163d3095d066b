"""models/storage/examples.py: the curated sentences, each with its note."""
from models.storage.examples import load_examples


def test_examples_are_curated():
    examples = load_examples()
    assert 15 <= len(examples) <= 40
    assert len({e.text for e in examples}) == len(examples)
    assert all(e.note for e in examples)
