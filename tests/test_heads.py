"""models/analysis/heads.py: a head switched off is its output zeroed before W^O, on a copy; importance, confidence
and the pruning curve over a tiny Transformer."""
import pytest
import torch

from models.analysis.heads import confidence, every_head, importance, modules, pruning, without_heads
from models.network.multihead import MultiHeadAttention

from .helpers import make_transformer, synthetic_pairs


@torch.no_grad()
def test_a_removed_head_is_its_output_zeroed_before_the_output_projection():
    torch.manual_seed(0)
    attn = MultiHeadAttention(8, 2)
    x = torch.randn(2, 3, 8)
    keys, values = attn.project_kv(x)
    full = attn(x, keys, values)
    heads = torch.softmax(attn._split(attn.W_q(x)) @ keys.transpose(-1, -2) / 2, -1) @ values  # [B, 2, N, 4]
    attn.removed = frozenset({1})
    head_1 = heads[:, 1] @ attn.W_o.weight[:, 4:].T  # head 1's share of the product with W^O
    torch.testing.assert_close(attn(x, keys, values), full - head_1, atol=1e-5, rtol=1e-4)
    attn.removed = frozenset({0, 1})
    torch.testing.assert_close(attn(x, keys, values), attn.W_o.bias.expand(2, 3, 8))  # only the bias is left


def test_heads_are_removed_on_a_copy(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    assert len(every_head(model)) == 3 * 2 * 2  # three kinds × 2 layers × 2 heads
    pruned = without_heads(model, [("cross", 1, 0), ("encoder", 0, 1)])
    assert modules(pruned)["cross"][1].removed == {0} and modules(pruned)["encoder"][0].removed == {1}
    assert all(not attn.removed for layers in modules(model).values() for attn in layers)  # the original: whole
    with pytest.raises(ValueError, match="no head"):
        without_heads(model, [("cross", 5, 0)])


def test_importance_confidence_and_pruning_on_a_tiny_model(tiny_tokenizers):
    model = make_transformer(tiny_tokenizers)
    pairs = synthetic_pairs(3, seed=4)
    sources, references = [s for s, _ in pairs], [t for _, t in pairs]
    sure = confidence(model, tiny_tokenizers, sources)
    assert set(sure) == set(every_head(model)) and all(0 < v <= 1 for v in sure.values())
    rows = importance(model, tiny_tokenizers, sources, references)
    assert len(rows) == 12 and {r["kind"] for r in rows} == {"encoder", "decoder", "cross"}
    found = pruning(model, tiny_tokenizers, sources, references, rows, budget=1.0)
    assert 0 <= found["can_go"] <= 12 and found["curve"][0]["removed"] == 0
    assert [p["removed"] for p in found["curve"]] == list(range(len(found["curve"])))
    kept = found["curve"][found["can_go"]]["bleu"]
    assert found["base_bleu"] - kept <= 1.0  # what can go stays within the budget


def test_the_command_writes_its_record_and_the_card_shows_it(tiny_tokenizers, tiny_corpus, tmp_path, capsys):
    import json
    import shutil

    from models import heads as command
    from models.storage.card import write_card
    from models.storage.heads import importance_grid, read_heads
    from models.storage.hub import BUNDLED_DIR, save_checkpoint

    shutil.copy(BUNDLED_DIR / "en-fr-transformer" / "training.json", tmp_path / "training.json")
    save_checkpoint(tmp_path, make_transformer(tiny_tokenizers), tiny_tokenizers)
    write_card(tmp_path)
    assert "Not measured yet: run `python -m models.heads" in (tmp_path / "README.md").read_text()
    assert command.main(["--model", str(tmp_path), "--data", str(tiny_corpus), "--sentences", "3"]) == 0
    record = read_heads(tmp_path)
    assert len(record["heads"]) == 12 and record["sentences"] == 3
    printed = json.loads(capsys.readouterr().out)
    assert printed["of"] == 12 and printed["can_go"] == record["pruning"]["can_go"]
    card = (tmp_path / "README.md").read_text()
    assert "## Which heads matter" in card and f"{record['pruning']['can_go']} of 12 heads can be switched off" in card
    rows, columns, values = importance_grid(record)
    assert rows[0] == "cross 1" and columns == ["head 1", "head 2"] and len(values) == 6


def test_the_command_refuses_an_rnn(tiny_tokenizers, tiny_corpus, tmp_path):
    from models import heads as command
    from models.storage.hub import save_checkpoint

    from .helpers import make_model

    save_checkpoint(tmp_path, make_model(tiny_tokenizers), tiny_tokenizers)
    with pytest.raises(SystemExit, match="not heads"):
        command.main(["--model", str(tmp_path), "--data", str(tiny_corpus)])


def test_head_keys_round_trip_and_bad_ones_are_refused(tiny_tokenizers):
    from models.analysis.heads import head_key, parse_head

    model = make_transformer(tiny_tokenizers)
    for head in every_head(model):
        assert parse_head(head_key(head), model) == head
    assert head_key(("cross", 1, 0)) == "cross.2.1"
    for bad in ("cross.3.1", "cross.1.3", "self.1.1", "cross.1", "cross.a.b", ""):
        with pytest.raises(ValueError):
            parse_head(bad, model)


def test_changed_words_mark_what_is_new_in_the_second_translation():
    from models.analysis.heads import changed_words

    assert changed_words("un chien noir court".split(), "un chien blanc court vite".split()) == [
        False, False, True, False, True]
    assert changed_words([], ["un"]) == [True] and changed_words(["un"], []) == []
