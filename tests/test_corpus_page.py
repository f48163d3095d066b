"""pages/Corpus.py through AppTest: the table of the app's examples, pasted pairs, two models or one, a public
server's limits, and pasted text that cannot be read."""
import pytest

from models.datasets.test_sets import sets_for_pair
from models.decoding.greedy import greedy
from models.storage.examples import load_examples
from models.storage.hub import load_model
from models.views.prose import for_markdown

from .helpers import synthetic_pairs
from .pages_helpers import figures, page, run_page, title_of

CORPUS = page("Corpus")


def paste(at, lines: list[str]):
    at.radio(key="corpus_from").set_value("paste").run()
    return at.text_area(key="corpus_text").input("\n".join(lines)).run()


def table(at):
    return at.dataframe(key="corpus_table").value


def test_the_examples_table_has_every_example_both_translations_and_disagreement_first():
    at = run_page(CORPUS)
    assert not at.exception, [e.message for e in at.exception]
    rows = table(at)
    examples = [e.text for e in load_examples()]
    assert sorted(rows["source"]) == sorted(examples)
    additive = load_model("additive")
    first = rows.sort_values("#").iloc[0]
    assert first["Additive (Bahdanau) translation"] == greedy(additive.model, additive.tokenizers, examples[0]).translation
    assert "Dot-product (scaled) translation" in rows
    assert list(rows["JSD"]) == sorted(rows["JSD"], reverse=True)  # the most disagreement first
    assert rows["agreement"].between(0, 1).all() and rows["JSD"].between(0, 1).all()


def test_pasted_pairs_give_scores_charts_and_bleu_by_length():
    pairs = synthetic_pairs(30, 7)
    at = paste(run_page(CORPUS), [f"{s}\t{t}" for s, t in pairs] + ["", "  "])
    assert not at.exception, [e.message for e in at.exception]
    rows = table(at)
    assert len(rows) == 30 and set(rows["reference"]) == {t for _, t in pairs}
    assert rows["Additive (Bahdanau) BLEU"].notna().all() and rows["Dot-product (scaled) chrF"].notna().all()
    assert any("Skipped 2 blank lines." in c.value for c in at.caption)
    summary = at.dataframe[0].value  # the summary, above the table
    assert list(summary["model"]) == ["Additive (Bahdanau)", "Dot-product (scaled)"]
    titles = [title_of(spec) for spec in figures(at)]
    assert "BLEU per sentence" in titles and any("BLEU by source length" in t for t in titles)


def test_sorting_filtering_and_one_model_only():
    at = paste(run_page(CORPUS), [s for s, _ in synthetic_pairs(12, 8)] + ["a cat sleeps on the beach"])
    at.selectbox(key="corpus_sort").set_value("words").run()
    words = list(table(at)["words"])
    assert words == sorted(words, reverse=True)
    at.text_input(key="corpus_filter").input("CAT SLEEPS ON").run()
    assert all("cat sleeps on" in s for s in table(at)["source"])
    assert len(table(at)) >= 1
    at.toggle(key="corpus_two").set_value(False).run()
    assert not at.exception
    rows = table(at)
    assert "JSD" not in rows and not any("Dot-product" in c for c in rows.columns)


def test_a_public_server_says_its_limits_before_starting_and_goes_on_when_asked(monkeypatch):
    monkeypatch.setenv("ATLAS_PUBLIC", "1")
    monkeypatch.setenv("ATLAS_CORPUS_SENTENCES", "70")
    monkeypatch.setenv("ATLAS_CORPUS_SECONDS", "0")  # every request stops after its first batch
    at = paste(run_page(CORPUS), [s for s, _ in synthetic_pairs(80, 9)])
    assert any("at most 70 sentences" in i.value and "first 70 of 80" in i.value for i in at.info)
    assert any("at most 0 s on one request: 64 of 70" in w.value for w in at.warning)
    assert len(table(at)) == 64
    at.button(key="corpus_continue").click().run()
    assert len(table(at)) == 70 and not at.exception


@pytest.mark.parametrize("text, message", [("a dog\tun chien\na cat\n", "Line 2: expected two columns"),
                                           ("a\tb\tc\n", "Line 1: expected two columns")])
def test_a_malformed_tsv_gets_its_message(text, message):
    at = paste(run_page(CORPUS), text.splitlines())
    assert not at.exception
    assert any(for_markdown(message) in e.value for e in at.error)  # the message, escaped as markdown


def test_a_transformer_is_read_as_its_card_chose_and_named_so():
    at = run_page(CORPUS, model="transformer")
    assert not at.exception, [e.message for e in at.exception]
    shown = load_model("transformer").reading.label  # the reading in words, never its key
    assert any(c.endswith(f"{shown} entropy") for c in table(at).columns)


def test_a_public_test_set_is_offered_by_name_for_the_models_pair_and_drawn_from_sacrebleus_cache(multi30k_2016):
    at = run_page(CORPUS)
    at.radio(key="corpus_from").set_value("a public test set").run()
    picker = at.selectbox(key="corpus_set")
    assert picker.label == "English→French test sets (sacreBLEU)" and picker.value is None  # nothing fetched unasked
    assert any("Choose a test set above." in i.value for i in at.info)
    cached = [o.endswith(" · cached") for o in picker.options]
    assert "captions: Multi30k 2016 Flickr · cached" in picker.options and cached == sorted(cached, reverse=True)
    assert "news: WMT newstest2014" in picker.options  # not cached: after every cached one
    picker.set_value(next(t for t in sets_for_pair(("en", "fr")) if t.name == "multi30k/2016")).run()
    assert not at.exception, [e.message for e in at.exception]
    rows = table(at)
    assert sorted(rows["source"]) == sorted(multi30k_2016[0]) and set(rows["reference"]) == set(multi30k_2016[1])


def test_a_public_test_set_neither_cached_nor_reachable_gets_a_message(monkeypatch):
    from sacrebleu.dataset import DATASETS

    monkeypatch.setattr(DATASETS["wmt08/europarl"], "data", ["http://127.0.0.1:1/test.tgz"])  # nothing listens
    at = run_page(CORPUS)
    at.radio(key="corpus_from").set_value("a public test set").run()
    at.selectbox(key="corpus_set").set_value(next(t for t in sets_for_pair(("en", "fr"))
                                                  if t.name == "wmt08/europarl")).run()
    assert not at.exception, [e.message for e in at.exception]
    assert any("wmt08/europarl is not in sacreBLEU's cache" in e.value.replace("\\", "") for e in at.error)
    assert at.status[0].state == "error" and "not fetched" in at.status[0].label


def test_the_shown_rows_contain_the_text_in_any_case_and_sort_with_missing_values_last():
    import pandas as pd

    from models.views.corpus import shown

    frame = pd.DataFrame({"#": [1, 2, 3], "source": ["A Dog", "a cat", "Birds"],
                          "additive translation": ["un chien", None, "des oiseaux"],
                          "additive entropy": [0.5, None, 0.2]})
    assert list(shown(frame, ["additive"], " dog", "#", False)["#"]) == [1]  # any case, spaces trimmed
    assert list(shown(frame, ["additive"], "OISEAU", "#", False)["#"]) == [3]  # a translation is searched too
    assert list(shown(frame, ["additive"], "", "additive entropy", True)["#"]) == [1, 3, 2]  # no value: last
    assert list(shown(frame, ["additive"], "", "additive entropy", False)["#"]) == [3, 1, 2]
    assert shown(frame, ["additive"], "zebra", "#", False).empty


def test_a_public_servers_limit_keeps_the_first_sentences_and_says_so_and_no_limit_keeps_all():
    from models.datasets.sentences import Sentences
    from models.views.corpus import within_limit

    sentences = Sentences("mine", tuple(f"sentence {k}" for k in range(5)), None)
    kept, note = within_limit(sentences, 3, 20.0)
    assert kept.sources == sentences.sources[:3]
    assert "at most 3 sentences" in note and "at most 20 s" in note and "first 3 of 5" in note
    assert "s on one request" not in within_limit(sentences, 3, None)[1]
    assert within_limit(sentences, None, 20.0) == (sentences, None)
    assert within_limit(sentences, 5, None) == (sentences, None)  # within the limit: nothing said


def test_a_rows_compare_link_names_both_models_with_only_the_revisions_and_readings_they_have():
    from models.views.corpus import compare_link

    assert compare_link([("additive", None, None), ("you/model", "v2", "2.mean")]) == {
        "left": "additive", "right": "you/model", "right_rev": "v2", "right_head": "2.mean"}


def test_the_numeric_columns_leave_the_sentence_number_and_texts_out_and_the_summary_drops_empty_columns():
    import pandas as pd

    from models.views.corpus import Figures, numeric

    frame = pd.DataFrame({"#": [1, 2], "source": ["a", "b"], "words": [1, 1], "JSD": [0.1, None]})
    assert numeric(frame) == ["words", "JSD"]
    summary = {"models": {"m": {"means": {"entropy": 1.23456, "BLEU": 3.0}}}}
    by_model = Figures(summary, []).by_model()
    assert list(by_model.columns) == ["model", "mean entropy"]  # no references: no corpus BLEU or chrF column
    assert by_model["mean entropy"][0] == 1.235
