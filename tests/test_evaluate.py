"""models/evaluate.py: the JSON it writes, with scores that are sacreBLEU's own."""
import gzip
import json

import sacrebleu

from models import evaluate
from models.decoding.lines import translate_lines
from models.storage.data import read_parallel
from models.storage.hub import load_model, save_checkpoint
from models.tables.scores import by_length


def test_writes_results_json(tiny_corpus, tmp_path, tiny_model, tiny_tokenizers):
    ck = tmp_path / "ck"
    save_checkpoint(ck, tiny_model, tiny_tokenizers)
    out = tmp_path / "results.json"
    evaluate.main(["--model", str(ck), "--data", str(tiny_corpus), "--beam", "2", "--out", str(out)])
    result = json.loads(out.read_text())
    (test,) = result["test_sets"]
    assert test["beam_size"] == 2 and test["command"].startswith("python -m models.evaluate --model")
    for mode in ("greedy", "beam"):
        assert set(test[mode]) == {"bleu", "bleu_lc", "chrf"}
    assert test["split"] == "test_2016_flickr" and test["sentences"] == 40 and test["references"] == 1
    assert test["signatures"]["bleu"].startswith("nrefs:1|case:mixed")
    assert "case:lc" in test["signatures"]["bleu_lc"]
    assert sum(b["sentences"] for b in test["by_length"]) == 40

    sources, refs = read_parallel(tiny_corpus, "test_2016_flickr", "en", "fr")
    loaded = load_model(str(ck), device="cpu")
    hyps = translate_lines(loaded.model, loaded.tokenizers, sources, 1)
    assert test["greedy"]["bleu"] == sacrebleu.corpus_bleu(hyps, [refs]).score
    assert test["greedy"]["chrf"] == sacrebleu.corpus_chrf(hyps, [refs]).score


def test_each_test_set_apart_and_every_reference_counted(tiny_corpus, tmp_path, tiny_model, tiny_tokenizers):
    """A second set with two references per sentence: scored apart, as sacreBLEU scores two reference streams."""
    ck, everyday = tmp_path / "ck", tmp_path / "everyday"
    save_checkpoint(ck, tiny_model, tiny_tokenizers)
    everyday.mkdir()
    sources, refs = read_parallel(tiny_corpus, "val", "en", "fr")
    second = [" ".join(reversed(r.split())) for r in refs]  # a worse second reference
    with gzip.open(everyday / "test.refs.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write("\n".join(json.dumps({"en": s, "fr": [r, r2]}) for s, r, r2 in zip(sources, refs, second)) + "\n")
    out = tmp_path / "results.json"
    evaluate.main(["--model", str(ck), "--data", str(tiny_corpus), f"{everyday}:split=test", "--beam", "1",
                   "--out", str(out)])
    first, multi = json.loads(out.read_text())["test_sets"]
    assert (first["data"], multi["data"]) == (tiny_corpus.name, "everyday")
    assert (multi["split"], multi["references"]) == ("test", 2)
    loaded = load_model(str(ck), device="cpu")
    hyps = translate_lines(loaded.model, loaded.tokenizers, sources, 1)
    assert multi["greedy"]["bleu"] == sacrebleu.corpus_bleu(hyps, [refs, second]).score
    assert multi["signatures"]["bleu"].startswith("nrefs:2")


def test_default_output_refreshes_the_card(tiny_corpus, tmp_path, few_examples):
    from models import train

    ck = tmp_path / "ck"
    train.main(["--data", str(tiny_corpus), "--out", str(ck), "--epochs", "1", "--vocab-size", "100",
                "--emb-dim", "16", "--enc-hidden", "16", "--dec-hidden", "24", "--attn-dim", "12"])
    evaluate.main(["--model", str(ck), "--data", str(tiny_corpus), "--beam", "1"])
    assert (ck / "evaluation.json").exists()
    card = (ck / "README.md").read_text()
    assert "| greedy |" in card and "model-index" in card and "- type: bleu" in card


def test_the_first_sentences_only_and_never_into_the_card(tiny_corpus, tmp_path, tiny_model, tiny_tokenizers):
    import pytest

    ck = tmp_path / "ck"
    save_checkpoint(ck, tiny_model, tiny_tokenizers)
    out = tmp_path / "part.json"
    evaluate.main(["--model", str(ck), "--data", f"{tiny_corpus}:split=val", "--beam", "1", "--sentences", "7",
                   "--out", str(out)])
    (test,) = json.loads(out.read_text())["test_sets"]
    sources, refs = (rows[:7] for rows in read_parallel(tiny_corpus, "val", "en", "fr"))
    hyps = translate_lines(load_model(str(ck), device="cpu").model, tiny_tokenizers, sources, 1)
    assert test["sentences"] == 7 and test["greedy"]["bleu"] == sacrebleu.corpus_bleu(hyps, [refs]).score
    with pytest.raises(SystemExit, match="--out"):
        evaluate.main(["--model", str(ck), "--data", str(tiny_corpus), "--sentences", "7"])


def test_by_length_puts_each_sentence_in_the_bucket_of_its_word_count():
    """Buckets are inclusive at both ends (1–9, 10–14, …, 25+): sentences of 9, 10, 14, 15 and 30 words, each
    bucket scored by sacreBLEU on its own sentences."""
    lengths = [9, 10, 14, 15, 30, 9]
    sources = [" ".join(["word"] * n) for n in lengths]
    refs = [[f"le chat {i} dort sur le tapis"] for i in range(len(lengths))]
    hyps = {"greedy": [f"le chat {i} dort sur le lit" if i % 2 else r[0] for i, r in enumerate(refs)]}
    rows = by_length(sources, hyps, refs)
    assert [(r["min_words"], r["max_words"], r["sentences"]) for r in rows] == [
        (1, 9, 2), (10, 14, 2), (15, 19, 1), (25, 1000, 1)]  # 20–24 holds none: left out
    members = {(1, 9): [0, 5], (10, 14): [1, 2], (15, 19): [3], (25, 1000): [4]}
    for r in rows:
        idx = members[r["min_words"], r["max_words"]]
        expected = sacrebleu.corpus_bleu([hyps["greedy"][i] for i in idx], [[refs[i][0] for i in idx]]).score
        assert r["greedy_bleu"] == expected
