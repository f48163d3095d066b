"""models/evaluate.py: the JSON it writes, with scores that are sacreBLEU's own."""
import json

import sacrebleu

from models import evaluate
from models.decoding.lines import translate_lines
from models.storage.data import read_parallel
from models.storage.hub import load_model, save_checkpoint


def test_writes_results_json(tiny_corpus, tmp_path, tiny_model, tiny_tokenizers):
    ck = tmp_path / "ck"
    save_checkpoint(ck, tiny_model, tiny_tokenizers)
    out = tmp_path / "results.json"
    evaluate.main(["--model", str(ck), "--data", str(tiny_corpus), "--beam", "2", "--out", str(out)])
    result = json.loads(out.read_text())
    for mode in ("greedy", "beam"):
        assert set(result[mode]) == {"bleu", "bleu_lc", "chrf"}
    assert result["beam_size"] == 2 and result["sentences"] == 40
    assert result["signatures"]["bleu"].startswith("nrefs:1|case:mixed")
    assert "case:lc" in result["signatures"]["bleu_lc"]
    assert sum(b["sentences"] for b in result["by_length"]) == 40
    assert result["command"].startswith("python -m models.evaluate --model")

    sources, refs = read_parallel(tiny_corpus, "test_2016_flickr", "en", "fr")
    loaded = load_model(str(ck), device="cpu")
    hyps = translate_lines(loaded.model, loaded.tokenizers, sources, 1)
    assert result["greedy"]["bleu"] == sacrebleu.corpus_bleu(hyps, [refs]).score
    assert result["greedy"]["chrf"] == sacrebleu.corpus_chrf(hyps, [refs]).score


def test_default_output_refreshes_the_card(tiny_corpus, tmp_path):
    from models import train

    ck = tmp_path / "ck"
    train.main(["--data", str(tiny_corpus), "--out", str(ck), "--epochs", "1", "--vocab-size", "100",
                "--emb-dim", "16", "--enc-hidden", "16", "--dec-hidden", "24", "--attn-dim", "12"])
    evaluate.main(["--model", str(ck), "--data", str(tiny_corpus), "--beam", "1"])
    assert (ck / "evaluation.json").exists()
    card = (ck / "README.md").read_text()
    assert "| greedy |" in card and "model-index" in card and "- type: bleu" in card
