"""models/nouns/link_rule.py and models/analysis/word_links.py: each extraction rule on a hand-made attention matrix,
and a model's matrices between the gold's words."""
import numpy as np
import pytest

from models.analysis import word_links
from models.nouns import link_rule as link_rules
from models.nouns.link_rule import METHODS, LinkRule, above, columns_argmax, grown_diagonally, rows_argmax
from models.nouns.matrix import ATTENTION

from .helpers import make_model, make_transformer

ATTENDED = ATTENTION

ALPHA = np.array([  # 3 French words (rows) over 3 English words (columns)
    [0.7, 0.2, 0.1],
    [0.6, 0.3, 0.1],
    [0.1, 0.25, 0.65],
])


def test_each_direction_links_its_words_to_their_strongest_partner():
    assert rows_argmax(ALPHA) == {(0, 0), (0, 1), (2, 2)}  # (english, french): both French words 0, 1 → English 0
    assert columns_argmax(ALPHA) == {(0, 0), (1, 1), (2, 2)}  # English 1's strongest French word is 1 (0.3)


def test_each_direction_reads_a_matrix_that_is_not_square():
    alpha = np.array([[0.1, 0.2, 0.6, 0.1], [0.5, 0.2, 0.2, 0.1]])  # 2 French words over 4 English words
    assert rows_argmax(alpha) == {(2, 0), (0, 1)}
    assert columns_argmax(alpha) == {(0, 1), (1, 0), (2, 0), (3, 0)}  # English 1 and 3: ties go to the first row
    transposed = lambda links: {(j, i) for i, j in links}  # noqa: E731
    assert rows_argmax(alpha.T) == transposed(columns_argmax(alpha))  # the two directions are each other's mirror
    assert columns_argmax(alpha.T) == transposed(rows_argmax(alpha))


def test_grow_diag_grows_beyond_the_shorter_sides_length():
    """Five English words, two French: growth from a link at English word 3 (past the French side's length)."""
    assert grown_diagonally({(3, 1), (4, 0)}, {(3, 1)}) == {(3, 1), (4, 0)}
    assert grown_diagonally({(1, 3), (0, 4)}, {(1, 3)}) == {(1, 3), (0, 4)}  # and the other way round


def test_intersection_and_union_combine_the_two_directions():
    assert METHODS["intersection"].read(ALPHA) == {(0, 0), (2, 2)}
    assert METHODS["union"].read(ALPHA) == {(0, 0), (0, 1), (1, 1), (2, 2)}


def test_grow_diag_grows_the_intersection_where_both_words_are_unlinked():
    alpha = np.array([  # 3 French words (rows) over 3 English words (columns)
        [0.8, 0.1, 0.1],  # f0 → e0, and e0's strongest French word is f0: the intersection
        [0.2, 0.3, 0.5],  # f1 → e2 (union only)
        [0.1, 0.6, 0.3],  # f2 → e1; e1's strongest is f2, e2's is f1: both in the intersection
    ])
    assert METHODS["intersection"].read(alpha) == {(0, 0), (1, 2), (2, 1)}
    assert METHODS["grow-diag"].read(alpha) == {(0, 0), (1, 2), (2, 1)}  # nothing is left unlinked to grow into
    alpha = np.array([
        [0.9, 0.05, 0.05],  # f0 → e0 (both directions)
        [0.6, 0.3, 0.1],    # f1 → e0 (union only: e0 is linked already)
        [0.1, 0.2, 0.7],    # f2 → e2 (union only: e2's strongest is f2, but see below)
    ])
    alpha[1, 1] = 0.35  # e1's strongest French word is f1: (1, 1) is in the union, diagonal to (0, 0)
    intersection, union = METHODS["intersection"].read(alpha), METHODS["union"].read(alpha)
    grown = METHODS["grow-diag"].read(alpha)
    assert intersection <= grown <= union
    assert (1, 1) in grown  # a diagonal neighbour whose two words were both unlinked
    assert (0, 1) not in grown  # e0 was linked already: lilt's rule skips it (Moses's would take it)


def test_two_aligners_directions_grow_as_attentions_do():
    """An aligner's forward and reverse links (English, French) grow like attention's two argmax directions."""
    forward = {(0, 0), (1, 1), (3, 2)}  # each French word to one English word
    reverse = {(0, 0), (1, 2), (2, 2), (3, 3)}  # each English word to one French word
    grown = grown_diagonally(forward, reverse)
    assert forward & reverse <= grown <= forward | reverse
    assert (1, 1) in grown  # diagonal to (0, 0), e1 and f1 both unlinked
    assert (1, 2) not in grown  # e1 is linked by then
    assert grown_diagonally(set(), set()) == set()


def test_grow_diag_sweeps_again_until_nothing_is_added():
    """A chain that grows against the sweep's order needs a second sweep: (1, 1) is added while (2, 2) is visited,
    after (1, 1)'s own cell was passed, so (0, 0) is reached only by sweeping again."""
    start = {(2, 2)}
    chain = {(0, 0), (1, 1), (2, 2)}
    assert grown_diagonally(start, chain) == chain


def test_grow_diag_visits_neighbours_in_lilts_order_when_two_compete_for_a_word():
    """Worked by hand: the intersection is {(1, 2)}; the union adds (2, 1) and (2, 3), both diagonal to it and both
    wanting English word 2. lilt/alignment-scripts visits neighbour (+1, +1) before (+1, −1), so (2, 3) takes word 2
    and (2, 1) is then refused (word 2 is linked). Visiting (+1, −1) first would give {(1, 2), (2, 1)}."""
    assert link_rules.NEIGHBOURS[:5] == ((0, 1), (-1, -1), (-1, 1), (1, 1), (1, -1))
    assert grown_diagonally({(1, 2), (2, 1), (2, 3)}, {(1, 2)}) == {(1, 2), (2, 3)}
    assert grown_diagonally({(1, 1), (0, 2), (2, 2)}, {(1, 1)}) == {(1, 1), (0, 2)}  # (−1, +1) before (+1, +1)
    # A side neighbour shares a word with the link beside it, so under "both words unlinked" it never grows.
    assert grown_diagonally({(1, 1), (1, 2), (0, 1)}, {(1, 1)}) == {(1, 1)}


def test_grow_diag_on_random_links_is_a_fixed_point_between_intersection_and_union():
    """The definition's invariants, on 300 random pairs of link sets: the intersection is kept, nothing outside the
    union is added, and the result cannot grow further (no union link beside a kept one has both words free)."""
    rng = np.random.default_rng(7)
    for _ in range(300):
        E, F = rng.integers(1, 7, size=2)
        one = {(int(e), int(f)) for e, f in np.argwhere(rng.random((E, F)) < 0.3)}
        other = {(int(e), int(f)) for e, f in np.argwhere(rng.random((E, F)) < 0.3)}
        grown = grown_diagonally(set(one), set(other))
        assert one & other <= grown <= one | other
        linked_e, linked_f = {e for e, _ in grown}, {f for _, f in grown}
        for e, f in grown:
            for de, df in link_rules.NEIGHBOURS:
                new = (e + de, f + df)
                assert not (new in one | other and new[0] not in linked_e and new[1] not in linked_f), (one, other)


def test_threshold_keeps_every_pair_at_or_above_it():
    assert above(0.6)(ALPHA) == {(0, 0), (0, 1), (2, 2)}
    assert above(0.25)(ALPHA) == {(0, 0), (0, 1), (1, 1), (1, 2), (2, 2)}
    assert above(0.9)(ALPHA) == set()


def test_written_french_contracts_and_elides_and_remembers_the_tokens():
    tokens = tuple("de le homme de les gens à le ordre et à les autres , aujourd' hui si il ne empiète pas".split())
    words, groups = word_links.written_french(tokens)
    assert " ".join(words) == "de l'homme des gens à l'ordre et aux autres , aujourd'hui s'il n'empiète pas"
    assert [tokens[i] for group in groups for i in group] == list(tokens)  # every token, once, in order
    assert groups[1] == (1, 2) and groups[2] == (3, 4)  # l'homme, des


@pytest.mark.parametrize("tokens, written", [
    ("que il dit", "qu'il dit"), ("jusque à demain", "jusqu'à demain"),  # three letters and more lose their last
    ("si il vient", "s'il vient"), ("si ils viennent", "s'ils viennent"), ("si elle vient", "si elle vient"),
    ("Si il vient", "S'il vient"),  # "si" elides before "il(s)" only, in any case
    ("parle de le", "parle du"), ("parle à les", "parle aux"),  # a contraction at the very end
    ("parle de le homme", "parle de l'homme"),  # "le" elides before a vowel, even at the end
    ("aujourd'", "aujourd'"),  # an apostrophe with nothing after it stays as it is
])
def test_written_french_at_the_edges(tokens, written):
    words, groups = word_links.written_french(tuple(tokens.split()))
    assert " ".join(words) == written
    assert [i for group in groups for i in group] == list(range(len(tokens.split())))


def test_a_word_matrix_is_the_forced_traces_word_view_without_end_of_sentence(tiny_tokenizers):
    """Independent of the function's own joining: force the French, read the word heatmap, drop EOS."""
    from models.analysis.heatmaps import word_heatmap
    from models.nouns.attention_map import RNN_READING
    from models.decoding.greedy import forced
    from models.network.tokenization import EOS

    model = make_model(tiny_tokenizers)
    english, french = "a big dog runs".split(), "un grand chien court".split()
    view = word_heatmap(trace := forced(model, tiny_tokenizers, "a big dog runs", "un grand chien court"),
                     trace.read(RNN_READING))
    rows = [t for t, w in enumerate(view.rows) if w != EOS]
    columns = [s for s, w in enumerate(view.columns) if w != EOS]
    np.testing.assert_allclose(word_links.word_matrix(model, tiny_tokenizers, english, french),
                               view.weights[rows][:, columns])


def test_written_french_keeps_every_reading_asked_for(tiny_tokenizers):
    from models.nouns.attention_map import Reading

    model = make_transformer(tiny_tokenizers)
    english, french = "a dog runs on the grass".split(), "le chien court sur le herbe".split()
    chosen = [Reading(1, 0), Reading(0, None, shifted=True)]
    written = word_links.word_matrices(model, tiny_tokenizers, english, french, {ATTENDED: chosen},
                                       written=True)[ATTENDED]
    plain = word_links.word_matrices(model, tiny_tokenizers, english, ["le", "chien", "court", "sur", "l'herbe"],
                                     {ATTENDED: chosen})[ATTENDED]
    for w, p in zip(written, plain):
        np.testing.assert_allclose(w, p[[0, 1, 2, 3, 4, 4][: len(w)]])
    assert not np.allclose(written[0][:4], written[1][:4])  # two readings, not one read twice


def test_a_written_word_gives_its_row_to_every_token_it_stands_for(tiny_tokenizers):
    model = make_model(tiny_tokenizers)
    english, french = "a dog runs on the grass".split(), "le chien court sur le herbe".split()
    written = word_links.word_matrix(model, tiny_tokenizers, english, french, written=True)
    plain = word_links.word_matrix(model, tiny_tokenizers, english, ["le", "chien", "court", "sur", "l'herbe"])
    assert written.shape == (6, 6)
    np.testing.assert_array_equal(written[4], written[5])  # "le herbe" is read as one word, "l'herbe"
    np.testing.assert_allclose(written, plain[[0, 1, 2, 3, 4, 4]])


def test_a_recorded_rule_name_reads_back_as_its_rule():
    assert LinkRule.parse("union").read(ALPHA) == METHODS["union"].read(ALPHA)
    assert LinkRule.parse("threshold 0.25").read(ALPHA) == above(0.25)(ALPHA)
    assert LinkRule.parse("threshold 0.6").read(ALPHA) == {(0, 0), (0, 1), (2, 2)}
    assert all(LinkRule.parse(name) is rule for name, rule in METHODS.items())  # the registry's own, function and all
    for name in (*METHODS, "threshold 0.05", "threshold 0.3"):
        assert str(LinkRule.parse(name)) == name  # as a record writes it


@pytest.mark.parametrize("name", ["", "threshold", "threshold x", "threshold 0.2 0.3", "unions", "Union"])
def test_an_unknown_rule_name_is_refused(name):
    with pytest.raises(ValueError, match="link rule"):
        LinkRule.parse(name)


def test_one_pairs_scores_under_each_rule_worked_by_hand():
    """ALPHA's links against Sure {(0, 0), (1, 1), (2, 1)} and Possible {(2, 2)} too (English, French):
    argmax {(0,0), (0,1), (2,2)}: AER 1 − (1 + 2)/(3 + 3) = 50, precision 2/3, recall 1/3;
    union adds (1, 1): AER 1 − (2 + 3)/(4 + 3) = 28.6, precision 3/4, recall 2/3;
    every weight ≥ 0.2 links six: AER 1 − (2 + 3)/(6 + 3) = 44.4, precision 1/2, recall 2/3."""
    sure = {(0, 0), (1, 1), (2, 1)}
    rows = word_links.pair_scores(ALPHA, sure, sure | {(2, 2)}, ATTENDED, chosen=LinkRule.parse("union"))
    assert rows == [
        {"links read as": "most weighed English word (how a heatmap is read)", "AER %": 50.0, "precision %": 66.7,
         "recall %": 33.3, "links": 3},
        {"links read as": "union (chosen on the trial set)", "AER %": 28.6, "precision %": 75.0, "recall %": 66.7,
         "links": 4},
        {"links read as": "every weight ≥ 0.2", "AER %": 44.4, "precision %": 50.0, "recall %": 66.7, "links": 6},
    ]
