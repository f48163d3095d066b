"""Guided alignment: the loss (models/network/learning/guided.py), the links it learns from (models/train/alignment_links.py,
grow-diag-final) and the training command that trains a head with it and marks it on the card."""
import json

import numpy as np
import pytest
import torch

from models import align, train
from models.analysis.aer import alignment_score
from models.network.learning.guided import GuidedAlignment, link_targets
from models.network.learning.step import loss_function, train_step
from models.network.tokenization import WORD_MARK
from models.nouns.attention_map import Reading
from models.nouns.link_rule import grow_diag_final, grown_diagonally
from models.nouns.matrix import FULL_CONTEXT
from models.storage.cards.metadata import Guided
from models.storage.data import pad
from models.storage.hub import load_model
from models.storage.pieces import tokenize_pairs
from models.train.alignment_links import RECIPES, align_corpus, piece_links, sentences

from .helpers import make_transformer, synthetic_pairs, write_gold

pytestmark = pytest.mark.usefixtures("few_examples")  # two curated examples, not 40, a point


def test_the_loss_is_zero_where_the_head_attends_as_the_links_say_and_positive_otherwise():
    links = [np.array([[0, 0], [1, 0], [2, 1]]), np.array([[1, 0]])]  # (source piece, target piece)
    p = link_targets(links, T=3, S=4)  # [B, T, S]
    assert torch.allclose(p[0, 0], torch.tensor([0.5, 0.5, 0, 0])) and p[0, 1, 2] == 1 and p[0, 2].sum() == 0
    assert p[1, 1:].sum() == 0  # rows without links stay empty
    guide = GuidedAlignment(layer=0, head=1, weight=0.05)
    attention = torch.softmax(torch.randn(2, 2, 3, 4), -1)  # [B, heads, T, S]
    attention[:, 1] = torch.where(p.sum(-1, keepdim=True) > 0, p, attention[:, 1])  # unlinked rows: anything
    assert guide.loss(attention, p).item() == pytest.approx(0.0, abs=1e-6)
    assert guide.loss(attention.flip(-1), p).item() > 0.5  # the other end of each row
    assert GuidedAlignment(0, 0).loss(attention, p).item() > 0.1  # the head the links were not given to
    assert guide.loss(attention, torch.zeros_like(p)).item() == 0  # nothing linked: nothing to learn
    shifted = GuidedAlignment(layer=0, head=1, shifted=True)  # piece t's links given to row t + 1
    later = torch.cat([attention[:, :, :1], attention[:, :, :-1]], dim=2)  # every row one step later
    assert shifted.loss(later, p).item() == pytest.approx(0.0, abs=1e-6) and shifted.loss(attention, p).item() > 0.1


def test_grow_diag_final_grows_where_either_word_is_unlinked_and_ends_with_the_union():
    forward, reverse = {(0, 0), (1, 1), (2, 1), (4, 4)}, {(0, 0), (1, 1), (1, 2)}
    # from the intersection {(0,0),(1,1)}: (1,2) and (2,1) neighbour (1,1), each with one word unlinked; (4,4) is
    # no neighbour of anything linked, and the final step adds it (both of its words are unlinked)
    assert grow_diag_final(forward, reverse) == {(0, 0), (1, 1), (1, 2), (2, 1), (4, 4)}
    assert grown_diagonally(forward, reverse) == {(0, 0), (1, 1)}  # lilt's: both words unlinked, no final step
    assert grow_diag_final({(0, 0)}, {(0, 0)}) == {(0, 0)} and grow_diag_final(set(), set()) == set()


def test_word_links_become_links_between_every_piece_of_the_two_words(tiny_tokenizers):
    (ns, source), (_, target) = sentences(tiny_tokenizers.source, ["the bigdog runs."])[0], \
        sentences(tiny_tokenizers.target, ["le grandchien court."])[0]
    assert source.words == ("the", "bigdog", "runs", ".") and target.words == ("le", "grandchien", "court", ".")
    pieces = tiny_tokenizers.source.tokenizer.encode("the bigdog runs.").tokens
    assert len(pieces) == ns == len(source.piece_words)
    assert pieces[-1] == "<unk>"  # the tiny vocabulary has no "."; the word is still read from the line
    for w, word in enumerate(source.words[:3]):  # each word is exactly its pieces, joined
        assert "".join(p for p, k in zip(pieces, source.piece_words) if k == w).replace(WORD_MARK, "") == word
    codes = piece_links({(1, 1), (3, 3)}, source, target)
    found = {(int(c) // 256, int(c) % 256) for c in codes}
    expected = {(s, t) for s, a in enumerate(source.piece_words) for t, b in enumerate(target.piece_words)
                if (a, b) in {(1, 1), (3, 3)}}
    assert found == expected and len(expected) > 2  # "bigdog" and "grandchien" are several pieces each


def test_the_links_follow_the_pairs_the_training_command_keeps(tiny_tokenizers):
    pairs = synthetic_pairs(60, 5)
    sources = [s for s, _ in pairs] + ["", "dog " * 80, "a dog"]  # an empty and an over-long pair are dropped
    targets = [t for _, t in pairs] + ["chien", "chien", ""]
    (flat, starts), = align_corpus(tiny_tokenizers, [(sources, targets)], 64, RECIPES["eflomal"])
    kept = tokenize_pairs(tiny_tokenizers, sources, targets, 64).with_links(flat, starts)
    assert len(kept) == 60 and len(kept.take(np.array([3, 3])).links_of(1)) == len(kept.links_of(3))
    for i in range(len(kept)):
        src, tgt = kept[i]
        links = kept.links_of(i)
        assert len(links) and links[:, 0].max() < len(src) - 1 and links[:, 1].max() < len(tgt)  # never EOS


def test_intersection_links_are_those_both_directions_agree_on(tiny_tokenizers):
    forward, reverse = {(0, 0), (1, 1), (2, 1)}, {(0, 0), (1, 2), (2, 1)}
    assert RECIPES["eflomal-intersection"].combine(forward, reverse) == {(0, 0), (2, 1)}
    pairs = synthetic_pairs(60, 5)
    text = [([s for s, _ in pairs], [t for _, t in pairs])]
    (narrow, n), = align_corpus(tiny_tokenizers, text, 64, RECIPES["eflomal-intersection"])
    (wide, w), = align_corpus(tiny_tokenizers, text, 64, RECIPES["eflomal"])
    shared = sum(len(set(narrow[n[i]:n[i + 1]]) & set(wide[w[i]:w[i + 1]])) for i in range(len(n) - 1))
    assert 0 < len(narrow) <= len(wide) and shared > 0.8 * len(narrow)  # eflomal samples: runs differ slightly


def reversed_links(n_pairs: int, tokenizers):
    """The toy corpus's pairs and their true piece links: its target is the source reversed, word for word."""
    pairs = synthetic_pairs(n_pairs, 7)
    src = sentences(tokenizers.source, [s for s, _ in pairs])
    tgt = sentences(tokenizers.target, [t for _, t in pairs])
    links = []
    for (_, s), (_, t) in zip(src, tgt):
        n = len(s.words)
        codes = piece_links({(n - 1 - f, f) for f in range(n)}, s, t)
        links.append(np.stack([codes // 256, codes % 256], axis=1))
    return pairs, links


def head_aer(model, batch, links, guide: GuidedAlignment) -> float:
    """AER of the guided head's argmax links (each target piece to one source piece) against the true links."""
    src, mask, tgt_in, tgt_out = batch
    with torch.no_grad():
        _, attention = model(src, mask, tgt_in, watch=guide.layer, full_context=guide.full_context)
    predicted, gold = [], []
    for b, pair in enumerate(links):
        rows = sorted({int(t) for t in pair[:, 1]})
        predicted.append({(int(attention[b, guide.head, t].argmax()), t) for t in rows})
        gold.append(frozenset((int(s), int(t)) for s, t in pair))
    return alignment_score(predicted, gold, gold).aer


@pytest.mark.parametrize("full_context", [False, True], ids=["causal", "full context"])
def test_a_few_guided_steps_lower_the_heads_aer_against_the_toy_links(tiny_tokenizers, full_context):
    pairs, links = reversed_links(48, tiny_tokenizers)
    ids = tokenize_pairs(tiny_tokenizers, [s for s, _ in pairs], [t for _, t in pairs], 64)
    batch = pad([ids[i] for i in range(len(ids))])
    p = link_targets(links, batch[3].shape[1], batch[0].shape[1])
    model = make_transformer(tiny_tokenizers, seed=1).train()
    guide = GuidedAlignment(layer=1, head=0, weight=1.0, full_context=full_context)
    before = head_aer(model, batch, links, guide)
    optimizer, loss_fn = torch.optim.Adam(model.parameters(), lr=3e-3), loss_function()
    for _ in range(40):
        train_step(model, batch, optimizer, loss_fn, guide=guide, links=p)
    after = head_aer(model, batch, links, guide)
    assert before > 50 and after < before - 30, (before, after)


SMALL_TRANSFORMER = ["--arch", "transformer", "--d-model", "32", "--heads", "2", "--enc-layers", "1", "--dec-layers",
                     "2", "--ffn-dim", "64", "--vocab-size", "100", "--batch-size", "32", "--threads", "1"]


def test_the_training_command_guides_a_head_and_its_card_marks_it(tiny_corpus, tmp_path):
    out = tmp_path / "guided"
    train.main(["--data", str(tiny_corpus), "--out", str(out), *SMALL_TRANSFORMER, "--steps", "3",
                "--guided-alignment", "eflomal", "--guided-reading", "1.2.shifted"])
    record = json.loads((out / "training.json").read_text())["guided_alignment"]
    assert record["reading"] == "1.2.shifted" and record["weight"] == 0.05 and record["links_seconds"] >= 0
    assert "Trained to align: cross-attention layer 1, head 2, read one step later" in (out / "README.md").read_text()
    assert load_model(str(out)).supervised == Reading(0, 1, shifted=True)
    default = tmp_path / "default"  # Marian's head: the last layer's first, at the step that writes each piece
    train.main(["--data", str(tiny_corpus), "--out", str(default), *SMALL_TRANSFORMER, "--steps", "1",
                "--guided-alignment", "eflomal"])
    assert load_model(str(default)).supervised == Reading(1, 0)


def test_a_head_trained_with_full_context_is_marked_so_and_aligned_under_its_own_matrix(tiny_corpus, tmp_path,
                                                                                        capsys):
    out = tmp_path / "guided"
    train.main(["--data", str(tiny_corpus), "--out", str(out), *SMALL_TRANSFORMER, "--steps", "3",
                "--guided-alignment", "eflomal", "--guided-reading", "1.2.shifted", "--full-context"])
    assert json.loads((out / "training.json").read_text())["guided_alignment"]["full_context"] is True
    assert ("Trained to align: cross-attention layer 1, head 2, read one step later, with the whole translation in "
            "view") in (out / "README.md").read_text()
    loaded = load_model(str(out))
    assert loaded.card.guided == Guided(0, 1, shifted=True, full_context=True)
    gold = write_gold(tmp_path / "gold", ("trial", "test"))
    align.main(["--model", str(out), "--data", str(gold), "--split", "trial", "--matrix", FULL_CONTEXT.name,
                "--reading", "1.2.shifted", "--method", "intersection", "--save"])
    capsys.readouterr()
    align.main(["--model", str(out), "--data", str(gold)])  # the card's head, under its matrix, by the trial's rule
    row = json.loads(capsys.readouterr().out)
    assert (row["matrix"], row["reading"], row["method"], row["trained to align"]) == (
        FULL_CONTEXT.name, "1.2.shifted", "intersection", True)
    align.main(["--model", str(out), "--data", str(gold), "--matrix", "attention", "--reading", "1.2.shifted"])
    assert "trained to align" not in json.loads(capsys.readouterr().out)  # the causal pass's head was not trained


def test_guided_alignment_is_refused_where_there_is_no_such_head(tiny_corpus, tmp_path):
    with pytest.raises(SystemExit, match="one head of a Transformer"):
        train.main(["--data", str(tiny_corpus), "--out", str(tmp_path / "rnn"), "--steps", "1", "--vocab-size", "100",
                    "--guided-alignment", "eflomal"])
    with pytest.raises(SystemExit, match="give --guided-alignment too"):
        train.main(["--data", str(tiny_corpus), "--out", str(tmp_path / "t"), *SMALL_TRANSFORMER, "--steps", "1",
                    "--full-context"])
    for wrong, reason in (("1.3", "names no layer or head"), ("2.mean", "names one head")):
        with pytest.raises(SystemExit, match=reason):
            train.main(["--data", str(tiny_corpus), "--out", str(tmp_path / "t"), *SMALL_TRANSFORMER, "--steps", "1",
                        "--guided-alignment", "eflomal", "--guided-reading", wrong])
