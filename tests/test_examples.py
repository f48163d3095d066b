"""models/storage/examples.py: the curated sentences, each with its note; the sentence box that offers them
(models/views/naming.py)."""
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
    assert at.text_input(key="text").value == "The little black dog jumps over the white fence."
    assert at.text[0].value == "Le petit chien noir saute par-dessus la clôture blanche."  # read from its output


def test_the_sentence_box_offers_the_examples_to_english_readers_only_and_asks_in_the_models_language():
    from models.storage.examples import first_example
    from models.views.naming import sentence_box

    english = sentence_box("en")
    examples = load_examples()
    assert list(english.examples) == [e.text for e in examples] and english.first == first_example(examples).text
    assert all(label.startswith(e.group + ": ") for e, label in zip(examples, english.examples.values()) if e.group)
    assert english.prompt == "Type an English sentence above (or pick an example) to see its translation and attention."
    assert sentence_box(None).examples == english.examples  # a model that does not say may read English
    german = sentence_box("deu_Latn")
    assert german.examples == {} and german.first == ""
    assert german.prompt == "Type a German sentence above to see its translation and attention."


def test_a_long_text_is_cut_to_the_most_characters_and_said_so():
    from models.views.naming import sentence_box

    box = sentence_box("en")
    assert box.cut("abcdef", 6) == ("abcdef", None)
    text, warning = box.cut("x" * 1234, 1000)
    assert text == "x" * 1000 and warning == "The text is 1,234 characters long; only the first 1000 are translated."


def test_each_source_language_has_its_own_examples_and_a_language_without_any_has_none():
    """French→English models are offered French sentences; a language with no file is offered none, not English."""
    from models.storage.examples import examples_file
    from models.views.naming import sentence_box

    french = load_examples(examples_file("fr"))
    assert len(french) >= 10 and sum(e.opens for e in french) == 1
    assert not {e.text for e in french} & {e.text for e in load_examples()}
    assert sentence_box("fr").first == first_example(french).text
    assert sentence_box("en").first == first_example(load_examples()).text
    assert load_examples(examples_file("de")) == [] and sentence_box("de").first == ""
