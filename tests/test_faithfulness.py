"""models/analysis/faithfulness and python -m models.faithfulness: deletion scores computed as defined, an oracle
ranking beats a random one, and the command prints and saves one row per matrix and layer."""
import json

import numpy as np
import pytest
import torch

from models import faithfulness as command
from models.analysis.deletion import DELETIONS, faithfulness, random_matrix, source_words
from models.decoding.greedy import greedy
from models.storage.hub import save_checkpoint

from .helpers import make_transformer

TEXT = "a big red dog runs on the grass"


@pytest.fixture
def transformer(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    return model, greedy(model, tiny_tokenizers, TEXT)


def log_p(model, trace, masked: list[int], step: int) -> float:
    """log p(y_step | y_<step, x with the pieces ``masked`` padded), straight from the model."""
    src = torch.tensor([trace.source.ids])
    src[0, masked] = model.specials.pad
    tgt = torch.tensor([[model.specials.start, *trace.target_ids]])
    with torch.inference_mode():
        logits = model(src, torch.ones_like(src, dtype=torch.bool), tgt[:, :-1])[0, step]
    return float(logits.log_softmax(-1)[trace.target_ids[step]])


def test_the_scores_are_the_mean_drops_of_masking_and_keeping_the_top_words(transformer):
    model, trace = transformer
    words = source_words(trace)
    weights = random_matrix(trace, seed=3)
    found = faithfulness(model, trace, {"r": weights})["r"]
    K = min(DELETIONS, len(words) - 1)
    for step in (0, len(trace.target_ids) - 1):
        order = np.argsort(-np.array([weights[step, g].sum() for g in words]), kind="stable")
        base = log_p(model, trace, [], step)
        top = [[i for w in order[:k] for i in words[w]] for k in range(1, K + 1)]
        rest = [[i for w in order[k:] for i in words[w]] for k in range(1, K + 1)]
        assert found.comprehensiveness[step] == pytest.approx(
            np.mean([base - log_p(model, trace, m, step) for m in top]), abs=1e-4)
        assert found.sufficiency[step] == pytest.approx(
            np.mean([base - log_p(model, trace, m, step) for m in rest]), abs=1e-4)
    assert trace.source.pieces[-1] not in {trace.source.pieces[i] for g in words for i in g}  # EOS never masked


def test_an_oracle_ranking_beats_a_random_one(transformer):
    """Rank each step's words by how far masking that word alone drops the written piece: the best k = 1 there is."""
    model, trace = transformer
    words = source_words(trace)
    oracle = np.zeros((len(trace.target_ids), len(trace.source.ids)))
    for t in range(len(trace.target_ids)):
        base = log_p(model, trace, [], t)
        for g in words:
            oracle[t, g[0]] = base - log_p(model, trace, g, t)
    found = faithfulness(model, trace, {"oracle": oracle, "random": random_matrix(trace, 0)})
    assert found["oracle"].comprehensiveness.mean() > found["random"].comprehensiveness.mean()


def test_a_one_word_sentence_has_nothing_to_mask(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    trace = greedy(model, tiny_tokenizers, "dog")
    assert faithfulness(model, trace, {"r": random_matrix(trace, 0)}) == {}


def test_the_command_prints_and_saves_a_row_per_matrix_and_layer(tiny_tokenizers, tiny_corpus, tmp_path, capsys):
    folder = tmp_path / "transformer"
    save_checkpoint(folder, make_transformer(tiny_tokenizers), tiny_tokenizers)
    assert command.main(["--model", str(folder), "--data", str(tiny_corpus), "--sentences", "2", "--save"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = [r["row"] for r in printed]
    assert {"attention.1.mean", "attention.2.mean", "attention-norm.2.mean", "ALTI.1.mean", "ALTI+-rollout.2.mean",
            "attention-rollout.1.mean", "value-zeroing.2.mean", "gradient-x-input", "integrated-gradients",
            "random"} <= set(names)
    assert all(r["steps"] == printed[0]["steps"] > 0 for r in printed)  # every row on the same steps
    saved = json.loads((folder / "faithfulness.json").read_text())
    assert saved["rows"] == printed and saved["sentences"] == 2


def test_the_command_refuses_no_sentences(tiny_corpus):
    with pytest.raises(SystemExit, match="at least 1"):
        command.main(["--model", "transformer", "--data", str(tiny_corpus), "--sentences", "0"])


def test_the_estimate_grows_with_the_matrices_and_is_zero_with_nothing_to_mask(transformer, tiny_tokenizers):
    from models.analysis.deletion import estimated_seconds

    model, trace = transformer
    assert estimated_seconds(trace, 2) > 0
    assert estimated_seconds(trace, 4) == pytest.approx(2 * estimated_seconds(trace, 2))
    assert estimated_seconds(greedy(model, tiny_tokenizers, "dog"), 4) == 0


def test_the_command_scores_only_the_matrices_asked_beside_the_floor_and_refuses_one_the_model_lacks(
        tiny_tokenizers, tiny_corpus, tmp_path, capsys):
    folder = tmp_path / "transformer"
    save_checkpoint(folder, make_transformer(tiny_tokenizers), tiny_tokenizers)
    assert command.main(["--model", str(folder), "--data", str(tiny_corpus), "--sentences", "2",
                         "--matrix", "ALTI"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["matrix"] for r in printed} == {"ALTI", "random"}
    with pytest.raises(SystemExit, match="fit to human links: no reading"):
        command.main(["--model", str(folder), "--data", str(tiny_corpus), "--matrix", "fit to human links"])
    with pytest.raises(SystemExit, match="--save writes every"):
        command.main(["--model", str(folder), "--data", str(tiny_corpus), "--matrix", "ALTI", "--save"])
