"""models/analysis/head_removal.py: a head switched off is its output zeroed before W^O, on a copy; importance, confidence
and the pruning curve over a tiny Transformer."""
import numpy as np
import pytest
import torch

from models.analysis.head_removal import confidence, every_head, importance, pruning, without_heads
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
    found = pruned.attention_modules()
    assert found["cross"][1].removed == {0} and found["encoder"][0].removed == {1}
    assert all(not attn.removed for layers in model.attention_modules().values() for attn in layers)  # still whole
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
    from models.storage.cards.render import write_card
    from models.storage.hub import BUNDLED_DIR, save_checkpoint
    from models.storage.records.head_scores import importance_grid, read_heads

    shutil.copy(BUNDLED_DIR / "en-fr-transformer" / "training.json", tmp_path / "training.json")
    save_checkpoint(tmp_path, make_transformer(tiny_tokenizers), tiny_tokenizers)
    write_card(tmp_path)
    assert "Not measured yet: run `python -m models.heads" in (tmp_path / "README.md").read_text()
    assert command.main(["--model", str(tmp_path), "--data", str(tiny_corpus), "--sentences", "3"]) == 0
    record = read_heads(tmp_path)
    assert len(record.heads) == 12 and record.sentences == 3
    printed = json.loads(capsys.readouterr().out)
    assert printed["of"] == 12 and printed["can_go"] == record.pruning.can_go
    card = (tmp_path / "README.md").read_text()
    assert "## Which heads matter" in card and f"{record.pruning.can_go} of 12 heads can be switched off" in card
    rows, columns, values = importance_grid(record)
    assert rows[0] == "cross 1" and columns == ["head 1", "head 2"] and len(values) == 6


def test_the_command_refuses_an_rnn(tiny_tokenizers, tiny_corpus, tmp_path):
    from models import heads as command
    from models.storage.hub import save_checkpoint

    from .helpers import make_model

    save_checkpoint(tmp_path, make_model(tiny_tokenizers), tiny_tokenizers)
    with pytest.raises(SystemExit, match="no heads to switch off"):
        command.main(["--model", str(tmp_path), "--data", str(tiny_corpus)])


def test_head_keys_round_trip_and_bad_ones_are_refused(tiny_tokenizers):
    from models.analysis.head_removal import head_key, parse_head

    model = make_transformer(tiny_tokenizers)
    for head in every_head(model):
        assert parse_head(head_key(head), model) == head
    assert head_key(("cross", 1, 0)) == "2.1" and head_key(("encoder", 0, 1)) == "encoder.1.2"  # as readings are
    assert parse_head("cross.2.1", model) == parse_head("2.1", model) == ("cross", 1, 0)  # old links still open
    for bad in ("cross.3.1", "cross.1.3", "self.1.1", "cross.1", "cross.a.b", "", "2.mean", "2.1.shifted",
                "encoder.1.1.shifted", "0.1"):
        with pytest.raises(ValueError):
            parse_head(bad, model)


def test_changed_words_mark_what_is_new_in_the_second_translation():
    from models.analysis.head_removal import changed_words

    assert changed_words("un chien noir court".split(), "un chien blanc court vite".split()) == [
        False, False, True, False, True]
    assert changed_words([], ["un"]) == [True] and changed_words(["un"], []) == []


def _zeroed_before_w_o(model, head):
    """The independent reference for a switched-off head: a copy whose W^O ignores that head's slice (its columns
    zeroed), so the head's output is zeroed before the output projection with no help from ``removed``."""
    import copy

    kind, layer, h = head
    found = copy.deepcopy(model)
    attn = found.attention_modules()[kind][layer]
    with torch.no_grad():
        attn.W_o.weight[:, h * attn.d_k : (h + 1) * attn.d_k] = 0
    return found


@pytest.mark.parametrize("head", [("encoder", 0, 1), ("decoder", 1, 0), ("cross", 1, 1), ("cross", 0, 0)])
@torch.no_grad()
def test_a_switched_off_head_is_off_in_every_path_as_if_its_w_o_slice_were_zero(tiny_tokenizers, head):
    """Teacher forcing (the fused kernel), each decoding step (the written-out softmax and the cache) and the
    three written-out attentions all match a model whose W^O never sees the head — and differ from the whole model,
    so the comparison can fail."""
    from bench.kernels import stepwise_log_probs
    from models.storage.data import pad
    from models.storage.pieces import tokenize_pairs

    model = make_transformer(tiny_tokenizers, seed=3)
    src, mask, tgt_in, _ = pad(list(tokenize_pairs(tiny_tokenizers, *zip(*synthetic_pairs(3, seed=5)), 50)))
    off, reference = without_heads(model, [head]), _zeroed_before_w_o(model, head).eval()
    expected = reference(src, mask, tgt_in)  # [B, T, V]
    torch.testing.assert_close(off(src, mask, tgt_in), expected, atol=1e-5, rtol=1e-4)
    every = torch.ones_like(tgt_in, dtype=torch.bool)  # each position, through decode_step, its cache and read
    torch.testing.assert_close(stepwise_log_probs(off, src, mask, tgt_in, every), expected.flatten(0, 1).log_softmax(-1), atol=1e-5,
                               rtol=1e-4)
    got, want = off.attention_kinds(src, mask, tgt_in), reference.attention_kinds(src, mask, tgt_in)
    for kind in ("encoder", "decoder", "cross"):
        torch.testing.assert_close(getattr(got, kind), getattr(want, kind), atol=1e-5, rtol=1e-4)
    assert (model(src, mask, tgt_in) - expected).abs().max() > 1e-3  # the head mattered to these logits


def _trained_a_little(tokenizers, steps: int = 150):
    """A tiny Transformer fitted to the synthetic corpus for a few steps: enough that BLEU is far above 0 and its
    heads differ in what they are worth (an untrained model's every drop is 0)."""
    from models.network.learning.step import loss_function, train_step
    from models.storage.data import batches
    from models.storage.pieces import tokenize_pairs

    model = make_transformer(tokenizers, seed=1).train()
    pairs = tokenize_pairs(tokenizers, *zip(*synthetic_pairs(256, seed=9)), max_len=50)
    optimizer, loss_fn = torch.optim.Adam(model.parameters(), lr=3e-3), loss_function()
    rng = np.random.default_rng(0)
    done = 0
    while done < steps:
        for batch in batches(pairs, 32, rng):
            train_step(model, batch, optimizer, loss_fn)
            done += 1
            if done == steps:
                break
    return model.eval()


def test_each_heads_drop_is_the_bleu_lost_without_it_on_a_trained_model(tiny_tokenizers):
    """Every row's drop is sacreBLEU of the whole model minus sacreBLEU of the W^O-zeroed reference, computed here
    from the translations themselves; and the heads differ."""
    import sacrebleu

    from models.decoding.greedy import translate_batch

    model = _trained_a_little(tiny_tokenizers)
    pairs = synthetic_pairs(24, seed=11)
    sources, references = [s for s, _ in pairs], [t for _, t in pairs]
    score = lambda m: sacrebleu.corpus_bleu(translate_batch(m, tiny_tokenizers, sources), [references]).score  # noqa: E731
    base = score(model)
    assert base > 20  # it learned something: a drop can be seen
    rows = importance(model, tiny_tokenizers, sources, references)
    assert len(rows) == 12
    for row in rows:
        head = (row["kind"], row["layer"] - 1, row["head"] - 1)
        without = score(_zeroed_before_w_o(model, head).eval())
        assert row["bleu_without"] == pytest.approx(round(without, 2), abs=0.011)
        assert row["drop"] == pytest.approx(round(base - without, 2), abs=0.011)
    assert len({row["drop"] for row in rows}) > 2 and max(row["drop"] for row in rows) > 1


def test_every_bundled_heads_record_reads_back_as_it_was_written_and_a_stray_field_is_refused():
    import json

    import pytest

    from models.storage.hub import BUNDLED_DIR
    from models.storage.records.head_scores import HEADS_FILE, heads_record, read_heads
    from models.storage.records.strict import record_json

    files = sorted(BUNDLED_DIR.glob(f"*/{HEADS_FILE}"))
    assert files  # the Transformers' records
    for path in files:
        assert record_json(read_heads(path.parent)) == json.loads(path.read_text())
    found = json.loads(files[0].read_text())
    with pytest.raises(ValueError, match="heads.json: a HeadsRecord has the fields"):
        heads_record({**found, "note": "from another version"})
    with pytest.raises(ValueError, match="expected int, got .400."):
        heads_record({**found, "sentences": "400"})
