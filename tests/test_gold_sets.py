"""Human links by name (``gold:en-fr``, ``gold:ro-en``, …): fetched once from ``ATLAS_GOLD_URL`` in awesome-align's
own layout (here a loopback server's), checked against pinned digests, cached, read offline after, turned round for
a model of the other direction, and scored exactly as the same pairs in a Hansards folder."""
import json

import pytest

from models import align
from models.datasets import gold_sets
from models.datasets.gold_sets import GoldSetError, find_gold, gold_for, load_gold

from .mirrors import ENFR, TRIAL, TRIAL_GOLD
from .pages_helpers import figures, page, run_page


@pytest.fixture
def hansards_folder(tmp_path):
    folder = tmp_path / "hansards"
    folder.mkdir()
    for ext, column in (("en", 0), ("fr", 1), ("gold", 2)):
        (folder / f"test.{ext}").write_text("\n".join(p[column] for p in ENFR) + "\n", encoding="utf-8")
    return folder


def test_sets_are_found_by_name_in_either_direction():
    assert find_gold("gold:en-fr").stem == "enfr" and find_gold("gold:en-ro").stem == "roen"
    assert gold_for(("eng", "fra")).stem == "enfr" and gold_for(("en", "zh")).stem == "zhen"
    assert gold_for(("de", "en")) is None and gold_for((None, "fr")) is None
    with pytest.raises(GoldSetError, match="no human-aligned set 'gold:de-en'; the sets by name are gold:en-fr, "):
        find_gold("gold:de-en")


def test_the_pins_are_awesome_aligns_files_at_its_commit_and_the_berkeley_aligners_trial_at_its():
    assert gold_sets.COMMIT == "5f150d45bbe51e167daf0a84abebaeb07c3323d1" and gold_sets.COMMIT in gold_sets.DEFAULT_URL
    assert gold_sets.TRIAL_COMMIT in gold_sets.TRIAL_URL and "mhajiloo/berkeleyaligner" in gold_sets.TRIAL_URL
    assert [g.stem for g in gold_sets.GOLD_SETS] == ["enfr", "roen", "jaen", "zhen"]
    assert [g.stem for g in gold_sets.GOLD_SETS if g.trial] == ["enfr"]
    digests = [d for g in gold_sets.GOLD_SETS for d in (*g.sha256, *(g.trial.sha256 if g.trial else ()))]
    assert len(digests) == 11 and all(len(d) == 64 and int(d, 16) >= 0 for d in digests)


def test_the_hansards_trial_pairs_come_by_name_from_the_berkeley_aligners_layout_as_in_a_gold_folder(
        mirror, tmp_path):
    from models.storage.gold import read_gold

    folder = tmp_path / "gold"
    folder.mkdir()
    for ext, lines in (("en", [e for e, _, _ in TRIAL]), ("fr", [f for _, f, _ in TRIAL]), ("gold", TRIAL_GOLD)):
        text = [line.split("> ", 1)[1].removesuffix(" </s>") if ext != "gold" else line for line in lines]
        (folder / f"trial.{ext}").write_text("\n".join(text) + "\n", encoding="utf-8")
    trial, languages = load_gold("gold:en-fr", ("en", "fr"), "trial")
    assert languages == ("en", "fr") and trial == read_gold(folder, "trial")
    assert trial[1].sure == {(1, 0)} and trial[1].possible == {(0, 0), (1, 0)}
    assert len(load_gold("gold:en-fr", ("en", "fr"), "test")[0]) == len(ENFR)  # the test split is all of it
    turned, _ = load_gold("gold:en-fr", ("fr", "en"), "trial")
    assert turned[0].source == ("la", "chambre", "se", "lève", ".") and turned[0].sure == {(0, 0), (1, 1), (3, 2),
                                                                                           (4, 3)}


def test_align_scores_a_set_by_name_as_the_same_pairs_in_a_folder_and_offline_the_second_time(
        mirror, hansards_folder, capsys):
    files, asked, server = mirror
    align.main(["--model", "additive", "--data", "gold:en-fr", "--method", "union"])
    by_name = json.loads(capsys.readouterr().out.splitlines()[-1])
    align.main(["--model", "additive", "--data", str(hansards_folder), "--method", "union"])
    from_folder = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert by_name["pairs"] == 3 and {k: by_name[k] for k in ("aer", "precision", "recall", "links")} == {
        k: from_folder[k] for k in ("aer", "precision", "recall", "links")}
    assert sorted(asked) == [("GET", "/examples/enfr.gold"), ("GET", "/examples/enfr.src-tgt")]
    server.stop()  # nothing answers now: the cache does
    align.main(["--model", "additive", "--data", "gold:en-fr", "--method", "union"])
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["aer"] == by_name["aer"]


def test_a_file_that_is_not_the_pinned_one_is_refused_and_not_kept(mirror):
    files, asked, _ = mirror
    files["/examples/enfr.gold"] = b"1-1\n1-1\n1-1\n"
    with pytest.raises(GoldSetError, match="is not the file gold:en-fr was pinned to"):
        load_gold("gold:en-fr", ("en", "fr"), "test")
    assert not gold_sets.is_cached(find_gold("gold:en-fr"))


def test_a_model_of_the_other_direction_reads_the_set_turned_round_and_a_tenth_is_its_trial(mirror):
    pairs, languages = load_gold("gold:ro-en", ("en", "ro"), "test")  # an English→Romanian model
    assert languages == ("en", "ro") and len(pairs) == 18
    assert pairs[0].source == ("one", "two", "2") and pairs[0].target == ("unu", "doi", "2")
    assert pairs[0].sure == {(0, 0), (1, 1)} and pairs[0].possible == {(0, 0), (1, 1), (2, 2)}
    trial, _ = load_gold("gold:ro-en", ("ro", "en"), "trial")
    assert [p.source[2] for p in trial] == ["0", "1"]  # the first tenth, held out of test
    with pytest.raises(GoldSetError, match="gold:ro-en has no split 'val': its splits are test and trial"):
        load_gold("gold:ro-en", ("ro", "en"), "val")
    with pytest.raises(GoldSetError, match="links Romanian→English words; this model translates German→English"):
        load_gold("gold:ro-en", ("de", "en"), "test")


def test_the_human_links_page_fetches_the_set_by_name_then_draws_from_the_cache(mirror):
    _, asked, server = mirror
    at = run_page(page("Human_links"), pair="2")
    assert not at.exception, [e.message for e in at.exception]
    assert figures(at) and len(asked) == 2
    server.stop()
    again = run_page(page("Human_links"), pair="2")
    assert not again.exception and not again.error and figures(again)


def test_a_corpus_table_of_a_set_by_name_has_each_rows_aer(mirror, tmp_path):
    from models import corpus

    out = tmp_path / "table.json"
    corpus.main(["--model", "additive", "--data", "gold:en-fr", "--out", str(out)])
    rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    assert [r["source"] for r in rows] == [s for s, _, _ in ENFR] and all(r["additive AER"] is not None
                                                                          for r in rows)


def test_a_heads_scores_mark_the_head_its_card_says_was_trained_to_align(mirror, tmp_path, capsys):
    from .hf_helpers import OPUS_CARD, tiny_marian

    marian = tiny_marian(tmp_path / "opus", card=OPUS_CARD)  # transformer-align: its last layer's first head
    align.main(["--model", str(marian), "--data", "gold:en-fr", "--reading", "all", "--method", "argmax"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    marked = [r["reading"] for r in rows if r.get("trained to align")]
    assert len(rows) == 2 * (2 * 2 + 2) and marked == ["2.1"]  # 2 layers × (2 heads + mean), each also shifted


def test_a_hansards_folder_serves_a_french_to_english_model_each_pair_turned_round(tmp_path):
    from models.datasets.gold_sets import load_gold
    from models.views.matrix_views import gold_source

    (tmp_path / "test.en").write_text("the cat .\n")
    (tmp_path / "test.fr").write_text("le chat .\n")
    (tmp_path / "test.gold").write_text("1-1 2-2 3p3\n")
    english, _ = load_gold(str(tmp_path), ("en", "fr"), "test")
    french, pair = load_gold(str(tmp_path), ("fr", "en"), "test")
    assert pair == ("fr", "en") and french == [p.reversed() for p in english]
    assert french[0].source == ("le", "chat", ".") and (1, 1) in french[0].sure
    assert gold_source(("fr", "en"), tmp_path) == (str(tmp_path), ["test"])  # the folder, not a fetch by name
