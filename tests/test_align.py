"""models/align: links from forced attention or attribution, one per French word, scored as the written file scores;
the eflomal baseline on the same gold."""
import json
import shutil

import pytest

from models import align
from models.align import every
from models.nouns.matrix import MATRICES
from models.storage.cards.render import write_card
from models.storage.gold import read_gold
from models.storage.hub import BUNDLED_DIR, save_checkpoint
from models.storage.records.alignment_rows import ALIGNMENT_FILE, read_alignment

from .helpers import make_model, make_transformer, synthetic_pairs, write_gold


@pytest.fixture
def gold(tmp_path):
    return write_gold(tmp_path)


def checkpoint(tmp_path, tokenizers, score="additive"):
    save_checkpoint(tmp_path / score, make_model(tokenizers, score), tokenizers)
    return str(tmp_path / score)


def test_the_printed_aer_is_the_written_links_aer(gold, tiny_tokenizers, tmp_path, capsys):
    out = tmp_path / "links.txt"
    assert align.main(["--model", checkpoint(tmp_path, tiny_tokenizers), "--data", str(gold), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["aer"] == pytest.approx(file_aer(out, read_gold(gold, "test"), one_per_word=True), abs=0.01)


def file_aer(path, pairs, one_per_word: bool = False) -> float:
    """AER (%) of a links file, scored here from the file alone: every gold link of the fixture is Sure."""
    written = path.read_text().splitlines()
    assert len(written) == len(pairs)
    a = s = a_s = 0
    for line, pair in zip(written, pairs):
        links = {tuple(int(x) - 1 for x in token.split("-")) for token in line.split()}
        assert not one_per_word or len(links) == len(pair.target)  # one English word for every French word
        assert all(i < len(pair.source) and j < len(pair.target) for i, j in links)
        a, s, a_s = a + len(links), s + len(pair.sure), a_s + len(links & pair.sure)
    return 100 * (1 - 2 * a_s / (a + s))


def test_every_row_of_every_matrix_rescores_to_its_printed_aer(gold, tiny_tokenizers, tmp_path, capsys):
    for ext in ("en", "fr", "gold"):  # the rules are chosen on a trial split: here the same pairs
        shutil.copy(gold / f"test.{ext}", gold / f"trial.{ext}")
    save_checkpoint(tmp_path / "transformer", make_transformer(tiny_tokenizers), tiny_tokenizers)
    out = tmp_path / "rows"
    assert align.main(["--model", str(tmp_path / "transformer"), "--data", str(gold), "--matrix", "all",
                       "--out", str(out)]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    names = {row["row"] for row in printed}
    assert {"attention.1.2.shifted", "attention-norm.2.mean", "ALTI.1.mean", "ALTI+-rollout.2.mean",
            "attention-rollout.2.mean.shifted", "value-zeroing.1.mean", "gradient-x-input",
            "integrated-gradients"} <= names
    assert sorted(f.stem for f in out.iterdir()) == sorted(names) and len(names) == len(printed)
    pairs = read_gold(gold, "test")
    for row in printed:
        assert row["aer"] == pytest.approx(file_aer(out / f"{row['row']}.txt", pairs), abs=0.01), row["row"]


def test_a_model_without_attention_is_pointed_to_attribution(gold, tiny_tokenizers, tmp_path):
    with pytest.raises(SystemExit, match="no attention.*--matrix"):
        align.main(["--model", checkpoint(tmp_path, tiny_tokenizers, "none"), "--data", str(gold)])


def test_attribution_aligns_a_model_without_attention(gold, tiny_tokenizers, tmp_path, capsys):
    out = tmp_path / "links.txt"
    assert align.main(["--model", checkpoint(tmp_path, tiny_tokenizers, "none"), "--data", str(gold),
                       "--matrix", "gradient×input", "--method", "threshold", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["matrix"] == "gradient×input"
    assert printed["method"] == f"threshold {MATRICES['gradient×input'].least_weight:g}"
    assert 0 <= printed["aer"] <= 100 and printed["links"] == sum(len(line.split()) for line in out.open())


def test_a_missing_gold_set_is_a_clear_error(tiny_tokenizers, tmp_path):
    with pytest.raises(SystemExit, match="error: .*nowhere is neither a human-aligned set by name .* nor a folder"):
        align.main(["--model", checkpoint(tmp_path, tiny_tokenizers), "--data", str(tmp_path / "nowhere")])
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit, match="error: --data empty has no test split: test.en, test.fr, test.gold missing"):
        align.main(["--model", checkpoint(tmp_path, tiny_tokenizers), "--data", str(tmp_path / "empty")])


def test_a_sweep_scores_every_rule_from_one_pass(gold, tiny_tokenizers, tmp_path, capsys):
    model = checkpoint(tmp_path, tiny_tokenizers)
    assert align.main(["--model", model, "--data", str(gold), "--sweep"]) == 0
    swept = {r["method"]: r["aer"] for r in map(json.loads, capsys.readouterr().out.splitlines())}
    assert set(swept) == {"argmax", "intersection", "union", "grow-diag",
                           *(f"threshold {t:g}" for t in every.SWEEP)}
    align.main(["--model", model, "--data", str(gold), "--method", "threshold", "--threshold", "0.3"])
    assert json.loads(capsys.readouterr().out)["aer"] == swept["threshold 0.3"]  # the same as scored alone


def test_save_records_one_result_per_reading_beside_the_checkpoint(gold, tiny_tokenizers, tmp_path, capsys):
    model = checkpoint(tmp_path, tiny_tokenizers)
    for method in ("argmax", "union", "argmax"):  # the second argmax replaces the first
        align.main(["--model", model, "--data", str(gold), "--method", method, "--save"])
    recorded = read_alignment(tmp_path / "additive" / ALIGNMENT_FILE)
    assert [(r.matrix.name, str(r.method)) for r in recorded] == [("attention", "union"), ("attention", "argmax")]
    assert recorded[1].command.startswith("python -m models.align --model")


def test_a_saved_result_shows_in_the_card(gold, tmp_path, capsys):
    shutil.copytree(BUNDLED_DIR / "en-fr-dot", tmp_path / "dot")
    (tmp_path / "dot" / ALIGNMENT_FILE).unlink(missing_ok=True)
    write_card(tmp_path / "dot")
    assert "Not measured yet" in (tmp_path / "dot" / "README.md").read_text()
    align.main(["--model", str(tmp_path / "dot"), "--data", str(gold), "--save"])
    printed = json.loads(capsys.readouterr().out)
    assert f"| attention | argmax | test | {printed['aer']:.1f} |" in (tmp_path / "dot" / "README.md").read_text()


def test_every_head_of_a_transformer_is_scored_and_the_trial_best_becomes_its_default(tiny_tokenizers, tmp_path,
                                                                                      capsys):
    from models.nouns.attention_map import readings
    from models.storage.records.alignment_rows import aer_by_head, default_reading

    from .helpers import make_transformer

    pairs = synthetic_pairs(3, seed=7)
    for split in ("trial", "test"):
        for ext, lines in (("en", [e for e, _ in pairs]), ("fr", [f for _, f in pairs]),
                           ("gold", [" ".join(f"{i + 1}-{len(e.split()) - i}" for i in range(len(e.split())))
                                     for e, _ in pairs])):
            (tmp_path / f"{split}.{ext}").write_text("\n".join(lines) + "\n")
    model = make_transformer(tiny_tokenizers)
    save_checkpoint(tmp_path / "t", model, tiny_tokenizers)
    assert default_reading(tmp_path / "t", (2, 2)).key == "2.mean"  # nothing scored yet: the last layer's mean
    align.main(["--model", str(tmp_path / "t"), "--data", str(tmp_path), "--split", "trial", "--reading", "all",
                "--method", "union", "--save"])
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # every head and each layer's mean, each read at its own step and one step later
    assert [r["reading"] for r in printed] == [r.key for r in readings((2, 2), shifted=True)]
    best = min(printed, key=lambda r: r["aer"])
    assert default_reading(tmp_path / "t", (2, 2)).key == best["reading"]
    align.main(["--model", str(tmp_path / "t"), "--data", str(tmp_path), "--reading", "all", "--method", "union",
                "--save"])
    test = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    rows, columns, values = aer_by_head(read_alignment(tmp_path / "t" / ALIGNMENT_FILE), "test")
    assert rows == ["layer 1", "layer 2"] and columns == ["head 1", "head 2", "mean"]
    assert values[1][2] == next(r["aer"] for r in test if r["reading"] == "2.mean")
    assert default_reading(tmp_path / "t", (2, 2)).key == best["reading"]  # the test set chose nothing


def test_a_reading_the_model_lacks_is_a_clear_error(gold, tiny_tokenizers, tmp_path):
    from .helpers import make_transformer

    save_checkpoint(tmp_path / "t", make_transformer(tiny_tokenizers), tiny_tokenizers)
    with pytest.raises(SystemExit, match="names no layer or head"):
        align.main(["--model", str(tmp_path / "t"), "--data", str(gold), "--reading", "3.1"])


def test_a_shifted_reading_scores_the_next_steps_rows(gold, tiny_tokenizers, tmp_path, capsys):
    """``1.1.shifted`` reads French word t at the step where it is the decoder's input: the forced trace's rows from
    the second on. Scored through the command, its links are those of that matrix."""
    from models.analysis.word_links import rows_argmax, word_matrix
    from models.nouns.attention_map import Reading
    from models.storage.hub import load_model

    model = checkpoint(tmp_path, tiny_tokenizers)
    out = tmp_path / "links.txt"
    align.main(["--model", model, "--data", str(gold), "--reading", "1.1.shifted", "--out", str(out)])
    printed = json.loads(capsys.readouterr().out)
    assert printed["reading"] == "1.1.shifted"
    loaded = load_model(model, device="cpu")
    for pair, line in zip(read_gold(gold, "test"), out.read_text().splitlines()):
        weights = word_matrix(loaded.model, loaded.tokenizers, pair.source, pair.target, reading=Reading(0, 0, True))
        assert weights.shape == (len(pair.target), len(pair.source))
        assert {f"{i + 1}-{j + 1}" for i, j in rows_argmax(weights)} == set(line.split())


def test_several_matrices_score_only_their_rows_and_one_the_model_lacks_is_refused(gold, tiny_tokenizers, tmp_path,
                                                                                    capsys):
    for ext in ("en", "fr", "gold"):
        shutil.copy(gold / f"test.{ext}", gold / f"trial.{ext}")
    model = checkpoint(tmp_path, tiny_tokenizers)  # an RNN: the attention and its norm, no stack of layers
    assert align.main(["--model", model, "--data", str(gold), "--matrix", "attention", "attention norm"]) == 0
    printed = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["row"] for r in printed] == ["attention.1.1", "attention.1.1.shifted", "attention-norm.1.1",
                                           "attention-norm.1.1.shifted"]
    with pytest.raises(SystemExit, match="ALTI: the attentional RNN has one attention and no residual stream"):
        align.main(["--model", model, "--data", str(gold), "--matrix", "attention", "ALTI"])
