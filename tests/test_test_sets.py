"""Test sets by name through sacreBLEU (``sacrebleu:NAME``): named for people, found for a model's pair, read by
sacreBLEU's own code from its cache offline, fetched by its own downloader (from a loopback server here), and every
way a set cannot be had said in a sentence."""
import hashlib
import io
import json
import os
import tarfile

import pytest
from sacrebleu.dataset import DATASETS

from models import corpus, evaluate
from models.datasets import test_sets
from models.datasets.sentences import read_named
from models.datasets.test_sets import TestSetError, find, label, read_test_set, sets_for_pair


def test_sets_are_named_for_people():
    assert label("wmt14") == "news: WMT newstest2014" and label("wmt14/full") == "news: WMT newstest2014 (full)"
    assert label("multi30k/2016") == "captions: Multi30k 2016 Flickr"
    assert label("iwslt17") == "talks: IWSLT 2017 TED" and label("wmt22") == "general: WMT generaltest2022"
    assert label("wmt08/europarl") == "parliament: WMT 2008 Europarl"


def test_the_sets_of_a_pair_are_sacrebleus_whatever_the_codes_spelling():
    names = [t.name for t in sets_for_pair(("en", "fr"))]
    assert {"wmt14", "wmt13", "multi30k/2016", "iwslt17"} <= set(names)
    assert names == [t.name for t in sets_for_pair(("eng", "fra"))]  # opus-mt's three-letter codes
    assert all("en-fr" in DATASETS[n].langpairs for n in names)
    assert "multi30k/2016" not in [t.name for t in sets_for_pair(("fr", "en"))]  # its one direction
    assert sets_for_pair((None, "fr")) == []


def test_an_unknown_name_or_pair_is_said_with_what_there_is():
    with pytest.raises(TestSetError, match="no test set named 'multi30k/2061'. Did you mean .*multi30k/2016"):
        find("multi30k/2061", ("en", "fr"))
    with pytest.raises(TestSetError, match=r"multi30k/2016 has no English→Malagasy text \(its pairs: en-cs, en-de, "
                                           r"en-fr\)"):
        find("multi30k/2016", ("en", "mg"))


def test_a_cached_set_is_read_offline_by_sacrebleus_own_code(multi30k_2016):
    english, french = multi30k_2016
    found = read_named("sacrebleu:multi30k/2016", ("en", "fr"), "test")
    assert list(found.sources) == english and [r[0] for r in found.references] == french
    assert found.name == "sacrebleu:multi30k/2016 en-fr" and found.languages == ("en", "fr")
    processed = os.path.join(os.environ["SACREBLEU"], "multi30k", "2016", "multi30k_2016.en-fr.src")
    assert os.path.exists(processed)  # sacreBLEU laid out its own text files, as it does after a download


def test_a_set_not_cached_and_not_reachable_gets_a_message(monkeypatch):
    monkeypatch.setattr(DATASETS["wmt08/europarl"], "data", ["http://127.0.0.1:1/test.tgz"])  # nothing listens
    wanted = find("wmt08/europarl", ("en", "fr"))
    for _ in range(2):  # the failed try leaves sacreBLEU's lock file behind: still not cached
        with pytest.raises(TestSetError, match="wmt08/europarl is not in sacreBLEU's cache .* and could not be "
                                               "downloaded .* Connect to the internet once"):
            read_test_set(wanted)
        assert not test_sets.is_cached(wanted)


def sgml_tarball(paths: list[str], lines: list[str]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for path in paths:
            body = "".join(f'<seg id="{i}">{line}</seg>\n' for i, line in enumerate(lines, 1)).encode()
            info = tarfile.TarInfo(path)
            info.size = len(body)
            tar.addfile(info, io.BytesIO(body))
    return out.getvalue()


def test_sacrebleus_downloader_fetches_a_set_once_and_a_size_cap_refuses_before_it(http_files, monkeypatch, capsys):
    base, files, asked = http_files.base, http_files.files, http_files.asked
    dataset = DATASETS["wmt09"]
    data = sgml_tarball(dataset.langpairs["en-fr"], ["A house.", "Two cats."])
    files["/wmt09.tgz"] = data
    monkeypatch.setattr(dataset, "data", [base + "/wmt09.tgz"])
    monkeypatch.setattr(dataset, "md5", [hashlib.md5(data).hexdigest()])
    wanted = find("wmt09", ("en", "fr"))
    assert test_sets.download_bytes(wanted) == len(data)
    with pytest.raises(TestSetError, match=r"news: WMT newstest2009 \(wmt09\) is 0 MB to download; this server "
                                           "fetches test sets of at most 1e-06 MB"):
        read_test_set(wanted, max_mb=1e-6)
    assert ("GET", "/wmt09.tgz") not in asked  # sized, never fetched
    sources, references = read_test_set(wanted, max_mb=1.0)
    assert sources == ["A house.", "Two cats."] and references == [["A house."], ["Two cats."]]
    assert "Fetching news: WMT newstest2009 (wmt09, 1 file) into sacreBLEU's cache" in capsys.readouterr().err
    assert test_sets.is_cached(wanted) and test_sets.download_bytes(wanted) == 0
    files.clear()  # the server has nothing now: the cache answers, and nothing is said
    assert read_test_set(wanted)[0] == sources and not capsys.readouterr().err


def test_corpus_and_evaluate_read_a_set_by_name_and_agree(multi30k_2016, tmp_path):
    """The bundled dot-product model (English→French) on the set: one row a sentence, the corpus BLEU evaluate's."""
    out = tmp_path / "table.json"
    corpus.main(["--model", "dot", "--data", "sacrebleu:multi30k/2016", "--out", str(out)])
    found = json.loads(out.read_text(encoding="utf-8"))
    assert len(found["rows"]) == len(multi30k_2016[0]) and found["summary"]["data"] == "sacrebleu:multi30k/2016 en-fr"
    scored = tmp_path / "evaluation.json"
    evaluate.main(["--model", "dot", "--data", "sacrebleu:multi30k/2016", "--beam", "1", "--out", str(scored)])
    result = json.loads(scored.read_text(encoding="utf-8"))["test_sets"][0]
    assert (result["data"], result["split"], result["sentences"]) == ("sacrebleu:multi30k/2016", "en-fr", 70)
    assert found["summary"]["models"]["dot"]["scores"] == result["greedy"]
