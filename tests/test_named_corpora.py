"""Training corpora by name: ``opus:CORPUS`` through OpusTools (its packaged index, its downloader) from a loopback
server standing in for OPUS's storage, in OPUS's Moses layout; ``multi30k`` from a pinned mirror; each laid out as
a data folder with a held-out val split, read offline the second time, and trained on by ``models.train``."""
import gzip
import json
from pathlib import Path

import pytest

from models import train
from models.datasets import named_corpora
from models.datasets.named_corpora import NamedCorpusError, resolve

from .mirrors import TATOEBA
from .test_train import SMALL

pytestmark = pytest.mark.usefixtures("few_examples")  # two curated examples, not 40, a point


def read(folder, split, lang):
    with gzip.open(f"{folder}/{split}.{lang}.gz", "rt", encoding="utf-8") as f:
        return f.read().splitlines()


def test_an_opus_corpus_is_fetched_once_and_split_by_source_sentence(opus, capsys):
    pairs, server = opus
    spec = resolve("opus:Tatoeba:weight=2", ("en", "fr"))
    folder, _, options = spec.partition(":")
    assert options == "weight=2" and folder.endswith("corpora/opus-Tatoeba-v2022-03-03-en-fr")
    train_en, val_en = read(folder, "train", "en"), read(folder, "val", "en")
    assert len(set(val_en)) == len(val_en) == 20 and not set(val_en) & set(train_en)  # no sentence on both sides
    assert sorted(zip(train_en, read(folder, "train", "fr"))) == sorted(p for p in pairs if p[0] not in val_en)
    assert all((s, t) in pairs for s, t in zip(val_en, read(folder, "val", "fr")))
    assert ("GET", TATOEBA) in server.asked
    server.stop()  # the second time, nothing is fetched
    assert resolve("opus:Tatoeba", ("en", "fr")) == folder


def test_the_other_direction_reads_the_same_file_with_its_sides_swapped(opus):
    folder = resolve("opus:Tatoeba", ("fr", "en"))
    assert folder.endswith("opus-Tatoeba-v2022-03-03-fr-en")
    sources, targets = read(folder, "train", "fr"), read(folder, "train", "en")
    assert all((t, s) in opus[0] for s, t in zip(sources, targets))


def test_a_corpus_opus_does_not_have_is_said_with_what_it_has(opus):
    with pytest.raises(NamedCorpusError, match="OPUS has no corpus 'Tatoeeba' for en–fr in Moses format. OPUS has "
                                               r"\d+ for it: .*"):
        resolve("opus:Tatoeeba", ("en", "fr"))


def test_an_unreachable_opus_is_a_sentence_and_a_broken_archive_is_not_kept(opus):
    _, server = opus
    server.files.clear()
    with pytest.raises(NamedCorpusError, match="Tatoeba could not be fetched from http://127.0.0.1:.* set "
                                               "ATLAS_OPUS_URL to a mirror"):
        resolve("opus:Tatoeba", ("en", "fr"))
    server.files[TATOEBA] = b"not a zip"
    with pytest.raises(NamedCorpusError, match="is not the Moses archive expected .* it was deleted"):
        resolve("opus:Tatoeba", ("en", "fr"))


def test_multi30k_comes_from_its_pinned_files_and_only_for_english_french(multi30k):
    folder = resolve("multi30k:weight=2", ("en", "fr")).partition(":")[0]
    assert {p.name for p in Path(folder).iterdir()} == set(multi30k)
    with pytest.raises(NamedCorpusError, match="multi30k by name is its English–French captions; this run "
                                               "translates English→German"):
        resolve("multi30k", ("en", "de"))


def test_the_pins_are_multi30ks_own_files_at_its_commit():
    assert named_corpora.MULTI30K_COMMIT in named_corpora.MULTI30K_URL
    assert set(named_corpora.MULTI30K_FILES) == {f"{s}.{lang}.gz" for s in ("train", "val") for lang in ("en", "fr")}


def test_models_train_trains_on_corpora_by_name(opus, multi30k, tmp_path):
    out = tmp_path / "ck"
    train.main(["--data", "multi30k:weight=2", "opus:Tatoeba", "--out", str(out), *SMALL, "--epochs", "1"])
    record = json.loads((out / "training.json").read_text(encoding="utf-8"))
    assert [(d["name"], d["weight"]) for d in record["data"]] == [("multi30k", 2.0),
                                                                  ("opus-Tatoeba-v2022-03-03-en-fr", 1.0)]
    assert set(record["history"][0]["by_corpus"]) == {"multi30k", "opus-Tatoeba-v2022-03-03-en-fr"}


def test_the_nearest_states_index_samples_corpora_by_name(multi30k, tmp_path):
    from models import neighbours

    assert neighbours.main(["--model", "additive", "--data", "multi30k", "--sentences", "20", "--dim", "8",
                            "--out", str(tmp_path)]) == 0
    assert any(tmp_path.iterdir())
