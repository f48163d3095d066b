"""models.views.naming's pickers: what a head picker offers of a model (head_choice), how it names each reading, and
where a link's reading lands among them (linked_reading); which matrices the picker beside it offers
(matrix_choice); which language a many-to-many model's picker opens on (language_choice)."""
from models.nouns.matrix import ATTENTION, MATRICES

ATTENDED = ATTENTION
from models.nouns.attention_map import Reading
from models.storage.hub import load_model
from models.views.naming import head_choice


def test_a_transformers_picker_offers_every_head_and_mean_and_opens_on_the_models_own():
    loaded = load_model("transformer")
    choice = head_choice(loaded, ATTENDED)
    assert choice.options == tuple(ATTENDED.readings(loaded.model.attention_shape, False))
    assert choice.default == loaded.reading.plain and choice.name(choice.default).endswith(" ★")
    assert all(not r.shifted for r in choice.options)
    later = head_choice(loaded, ATTENDED, shifted=True)
    assert set(choice.options) < set(later.options) and any(r.shifted for r in later.options)


def test_a_link_lands_on_its_reading_its_plain_one_or_the_default():
    choice = head_choice(load_model("transformer"), ATTENDED)
    head = choice.options[0]
    assert choice.wanted(head) == head
    assert choice.wanted(Reading(head.layer, head.head, shifted=True)) == head  # only plain readings offered here
    assert choice.wanted(Reading(99, 0)) == choice.default
    assert choice.wanted(None) == choice.default


def test_the_head_trained_to_align_is_named_so_and_explained():
    loaded = load_model("transformer-align")
    plain, later = head_choice(loaded, ATTENDED), head_choice(loaded, ATTENDED, shifted=True)
    assert later.supervised == loaded.supervised and later.supervised.shifted
    assert plain.supervised == loaded.supervised.plain  # named on its plain reading where only those are offered
    assert plain.name(plain.supervised).endswith(" ✓") and "trained" in plain.help.lower()
    assert head_choice(load_model("transformer"), ATTENDED).supervised is None


def test_nothing_to_pick_without_attention_or_for_an_attribution():
    assert head_choice(load_model("none"), ATTENDED) is None
    sentence_wide = next(m for m in MATRICES.values() if m.per == "sentence")
    assert head_choice(load_model("transformer"), sentence_wide) is None
    assert len(head_choice(load_model("additive"), ATTENDED).options) == 1  # an RNN's one reading: no widget


def test_the_matrix_picker_offers_what_the_model_has_and_opens_on_a_links_or_the_models_own():
    from models.analysis.recipes import applicable
    from models.nouns.matrix import MATRICES
    from models.views.naming import matrix_choice

    loaded = load_model("transformer")
    choices, opened = matrix_choice(loaded, None)
    assert choices == list(applicable(loaded.model, loaded.fitted)) and len(choices) > 1
    assert opened == next((m for m in choices if m is loaded.card.aligning_matrix), choices[0])
    other = next(m for m in choices if m != opened)
    assert matrix_choice(loaded, other) == (choices, other)
    rnn = load_model("additive")  # one attention, no residual stream: no ALTI
    assert matrix_choice(rnn, MATRICES["ALTI"])[1] == matrix_choice(rnn, None)[1]  # a link naming one it lacks: its own


def test_a_links_reading_is_read_or_ignored_with_why():
    from models.views.naming import linked_reading

    loaded = load_model("transformer")
    assert linked_reading(loaded, None) == (loaded.reading, None)
    assert linked_reading(loaded, "2.1") == (Reading(1, 0), None)
    fallback = Reading(0, 1)
    reading, notice = linked_reading(loaded, "9.9", fallback)
    assert reading == fallback and notice.startswith("Ignored head='9.9' from the link: ")


def test_a_language_picker_opens_on_a_links_code_it_knows_else_its_default_saying_why():
    from models.views.naming import language_choice

    codes = ("eng_Latn", "fra_Latn", "deu_Latn")
    assert language_choice(codes, "fra_Latn", "eng_Latn") == ("fra_Latn", None)
    assert language_choice(codes, None, "eng_Latn") == ("eng_Latn", None)
    code, notice = language_choice(codes, "fra", "eng_Latn")
    assert code == "eng_Latn" and "has no language 'fra'" in notice and "fra_Latn" in notice
