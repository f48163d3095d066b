"""models/storage/examples.py: the curated sentences, each with its note."""
from models.storage.examples import first_example, load_examples


def test_examples_are_curated():
    examples = load_examples()
    assert 15 <= len(examples) <= 40
    assert len({e.text for e in examples}) == len(examples)
    assert all(e.note for e in examples)


def test_the_papers_sentences_come_first_under_their_heading_and_one_marked_sentence_opens():
    examples = load_examples()
    assert [e.group for e in examples[:4]] == ["The paper's Figure 3"] * 4
    assert examples[0].text.startswith("The agreement on the European Economic Area")
    assert all(e.group != "The paper's Figure 3" for e in examples[4:])
    opening = [e for e in examples if e.opens]
    assert [e.text for e in opening] == ["The little black dog jumps over the white fence."]
    assert first_example(examples) == opening[0]


def test_a_new_visitor_opens_on_the_marked_sentence():
    from tests.pages_helpers import APP, run_page

    at = run_page(APP)
    assert at.text_area(key="text").value == "The little black dog jumps over the white fence."
    assert at.text[0].value == "Le petit chien noir saute par-dessus la clôture blanche."  # read from its output
