"""models/align/statistical.py and eflomal.py: eflomal reads its links the right way round and tokenises like the
gold."""
import json

import pytest

from models.align import eflomal, statistical

from .helpers import LEXICON, synthetic_pairs


def test_french_is_written_out_as_the_gold_writes_it():
    style = eflomal.GoldStyle()
    assert style("L'homme s'adresse au président des Communes aujourd'hui.", "fr") == \
        "le homme se adresse à le président de les communes aujourd' hui ."
    assert style("Is it well-known?", "en") == "is it well - known ?"


def rotated_pairs(n: int, seed: int) -> list[tuple[str, str]]:
    """English words, and French: the same words translated and rotated by one (English i is French i − 1)."""
    pairs = []
    for english, _ in synthetic_pairs(n, seed):
        words = english.split()
        pairs.append((english, " ".join(LEXICON[w] for w in words[1:] + words[:1])))
    return pairs


def test_eflomal_finds_the_links_of_a_word_for_word_corpus(tmp_path, capsys):
    """Rotation, not reversal: read the wrong way round (French first) the links would score an AER near 100."""
    pytest.importorskip("eflomal", reason="eflomal (requirements-extras.txt) is the statistical aligner under test")
    corpus, gold = tmp_path / "corpus", tmp_path / "gold"
    corpus.mkdir(), gold.mkdir()
    for lang, column in (("en", 0), ("fr", 1)):
        (corpus / f"train.{lang}").write_text("\n".join(p[column] for p in rotated_pairs(400, seed=3)) + "\n")
    gold_pairs = rotated_pairs(20, seed=4)
    (gold / "test.en").write_text("\n".join(e for e, _ in gold_pairs) + "\n")
    (gold / "test.fr").write_text("\n".join(f for _, f in gold_pairs) + "\n")
    (gold / "test.gold").write_text("\n".join(
        " ".join(f"{i + 1}-{(i - 1) % len(e.split()) + 1}" for i in range(len(e.split()))) for e, _ in gold_pairs
    ) + "\n")
    assert statistical.main(["--data", str(gold), "--corpus", str(corpus)]) == 0
    results = {r["method"]: r for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(results) == {"forward", "reverse", "intersection", "grow-diag"}
    assert results["forward"]["training_pairs"] == 420
    assert results["forward"]["aer"] < 25 and results["grow-diag"]["aer"] < 25


def test_each_link_carries_the_share_of_eflomals_runs_that_found_it(monkeypatch):
    """eflomal samples, so the probe reads several runs: a link found by two of three runs has 2/3, and the sets
    come back apart, each pair its own."""
    pytest.importorskip("eflomal", reason="eflomal (requirements-extras.txt) is the statistical aligner under test")
    runs = iter([  # each run: (forward, reverse) links of the two gold pairs, Pharaoh lines
        ("0-0 1-1\n0-0\n", "0-0\n0-0\n"), ("0-0 1-2\n0-0\n", "0-0\n0-0\n"), ("0-0 1-1\n0-0\n", "1-1\n0-0\n")])

    def three_runs(english, french, workdir):
        paths = (workdir / "forward.links", workdir / "reverse.links")
        for path, lines in zip(paths, next(runs)):
            path.write_text(lines)
        return paths

    monkeypatch.setattr(eflomal, "align_with_eflomal", three_runs)
    pair = eflomal.GoldPair(("a", "dog"), ("un", "chien"), frozenset({(0, 0)}), frozenset({(0, 0)}))
    (forward, reverse), (other, _) = eflomal.eflomal_links([[pair], [pair]], [], runs=3)
    assert forward == [{(0, 0): 1.0, (1, 1): pytest.approx(2 / 3), (1, 2): pytest.approx(1 / 3)}]
    assert reverse == [{(0, 0): pytest.approx(2 / 3), (1, 1): pytest.approx(1 / 3)}]
    assert other == [{(0, 0): 1.0}]


def test_pairs_read_french_first_are_aligned_english_first_and_their_links_given_back_turned(monkeypatch):
    """A French→English model's pairs: eflomal, learning English→French, is given them English first, and each link
    comes back as the model reads the pair (French word, English word)."""
    pytest.importorskip("eflomal", reason="eflomal (requirements-extras.txt) is the statistical aligner under test")
    given = {}

    def one_run(english, french, workdir):
        given.update(english=english, french=french)
        paths = (workdir / "forward.links", workdir / "reverse.links")
        paths[0].write_text("0-1\n"), paths[1].write_text("1-1\n")  # English word 0 ↔ French word 1
        return paths

    monkeypatch.setattr(eflomal, "align_with_eflomal", one_run)
    pair = eflomal.GoldPair(("le", "chien"), ("the", "dog"), frozenset({(1, 1)}), frozenset({(1, 1)}))
    [(forward, reverse)] = eflomal.eflomal_links([[pair]], [], french_first=True)
    assert (given["english"], given["french"]) == (["the dog"], ["le chien"])
    assert forward == [{(1, 0): 1.0}] and reverse == [{(1, 1): 1.0}]
