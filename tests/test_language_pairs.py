"""A model of other languages than English→French (a tiny German→English Marian): every command and page that
needs English→French data says why in one sentence, and one that needs two models of one pair says so."""
import pytest

from models.storage.languages import EN_FR, may_translate, pair_name

from .hf_helpers import tiny_marian
from .pages_helpers import figures, page, run_page


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    return str(tiny_marian(tmp_path_factory.mktemp("de-en"), languages=("de", "en")))


@pytest.fixture
def folder(tmp_path):
    """An English–French test split with human links: one pair, its two words linked in order."""
    for ext, line in (("en", "a dog"), ("fr", "un chien"), ("gold", "1-1 2-2")):
        (tmp_path / f"test.{ext}").write_text(line + "\n", encoding="utf-8")
    return tmp_path


def test_a_pair_is_named_and_matched_side_by_side_and_an_unnamed_side_may_be_anything():
    assert pair_name(("de", "en")) == "German→English" and pair_name((None, "fr")) == "source→French"
    assert may_translate(("en", "fr"), EN_FR) and may_translate(("eng", "fra"), EN_FR)  # opus-mt's 3-letter codes
    assert may_translate((None, None), EN_FR) and may_translate(("en", None), EN_FR)
    assert not may_translate(("de", "en"), EN_FR) and not may_translate(("en", "de"), EN_FR)


def test_align_refuses_a_model_that_does_not_read_english(german, folder):
    from models.align import main

    with pytest.raises(SystemExit, match="join English and French words; .* translates German→English"):
        main(["--model", german, "--data", str(folder), "--split", "test"])


def test_evaluate_refuses_languages_the_model_does_not_translate(german, folder, tmp_path):
    from models.evaluate import main

    with pytest.raises(SystemExit, match="is English→French, not German→English"):
        main(["--model", german, "--data", f"{folder}:split=test", "--out", str(tmp_path / "e.json")])
    with pytest.raises(SystemExit, match="translates German→English, not English→French; give --src and --tgt"):
        main(["--model", german, "--data", f"{folder}:split=test", "--src", "en", "--tgt", "fr",
              "--out", str(tmp_path / "e.json")])


def test_corpus_refuses_a_test_set_in_other_languages_and_two_models_of_different_pairs(german, folder, tmp_path):
    from models.corpus import main

    out = str(tmp_path / "t.csv")
    with pytest.raises(SystemExit, match="are English→French, and .* translates German→English: paste or upload "
                                         "German sentences instead"):
        main(["--model", german, "--data", f"{folder}:split=test", "--out", out])
    lines = tmp_path / "lines.txt"
    lines.write_text("ein Hund\n", encoding="utf-8")  # a file says no language: the one model may read it
    main(["--model", german, "--data", str(lines), "--out", out])
    with pytest.raises(SystemExit, match="translates German→English and .* English→French: two models set side by "
                                         "side must translate the same way"):
        main(["--model", german, "--compare", "additive", "--data", str(lines), "--out", out])


def test_the_corpus_page_says_why_it_has_no_table_of_english_examples_for_a_german_model(german):
    at = run_page(page("Corpus"), model=german, corpus_two="0")
    assert not at.exception, [e.message for e in at.exception]
    said = [i.value.replace("\\", "") for i in at.info]
    assert any("(the app's example sentences) are in English, and" in s and "paste or upload German sentences" in s
               for s in said), said
    assert not figures(at)


def test_heads_refuses_a_german_model_and_measures_an_english_french_marian(german, tmp_path):
    """The command reads validation sets in the model's pair: an English→French folder has none for a German→English
    model; on an English→French Marian every head of its three attentions is switched off in turn."""
    import json

    from models.heads import main

    for ext, lines in (("en", ["a dog runs on the beach", "the black cat sleeps"]),
                       ("fr", ["un chien court sur la plage", "le chat noir dort"])):
        (tmp_path / f"val.{ext}").write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="has no German→English text .*val.de"):
        main(["--model", german, "--data", str(tmp_path), "--out", str(tmp_path / "h.json")])
    english = str(tiny_marian(tmp_path / "en-fr"))
    main(["--model", english, "--data", str(tmp_path), "--sentences", "2", "--out", str(tmp_path / "h.json")])
    found = json.loads((tmp_path / "h.json").read_text(encoding="utf-8"))
    assert sorted((r["kind"], r["layer"], r["head"]) for r in found["heads"]) == sorted(
        (kind, layer, head) for kind in ("cross", "encoder", "decoder") for layer in (1, 2) for head in (1, 2))
    assert found["pruning"]["of"] == 12


def test_the_corpus_page_draws_the_first_models_table_alone_beside_a_model_of_another_pair(german):
    at = run_page(page("Corpus"), model=german)  # the second model, by default the dot-product one: English→French
    at.radio(key="corpus_from").set_value("paste").run()
    at.text_area(key="corpus_text").input("ein Hund\nzwei Katzen").run()
    assert not at.exception, [e.message for e in at.exception]
    notes = [c.value.replace("\\", "") for c in at.caption]
    assert any("translates German→English and" in n and "English→French" in n and "alone." in n
               for n in notes), notes
    rows = at.dataframe(key="corpus_table").value
    assert len(rows) == 2 and not any("Dot-product" in c for c in rows.columns) and "JSD" not in rows
