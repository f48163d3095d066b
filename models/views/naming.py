"""How the app names what it shows: a model by its variant or its reference, what each of the project's variants
is, a language by name beside its code, a code a model does not know, the readings a head picker offers; and the
example sentences a visitor is offered, in a model's source language; and which way the bundled models translate
(English→French, French→English), each direction's models, and the model a direction opens on, so a switch of
direction keeps the kind of model the visitor was looking at (a Hub model keeps its own languages)."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.recipes import applicable, why_not
from ..network.family import family
from ..network.hf.language_tags import unknown_code
from ..network.translator import Translator
from ..nouns.attention_map import Reading, readings
from ..nouns.matrix import MATRICES, Matrix
from ..storage.cards.metadata import SUPERVISION
from ..storage.examples import examples_file, first_example, load_examples
from ..storage.hub import bundled_cards, bundled_models, bundled_pairs, bundled_variants
from ..storage.languages import Languages, language_key, language_name, pair_name
from ..storage.loaded import LoadedModel


def model_name(ref: str) -> str:
    """A bundled model's label (with its direction where it is not the first bundled model's), or the reference
    itself (raw text: escape it for its renderer)."""
    found = bundled_variants().get(ref)
    if found is None:
        return ref
    label = family(found).label + (", trained to align" if bundled_cards()[ref].guided else "")
    pair, first = bundled_pairs()[ref], bundled_pairs()[bundled_models()[0]]
    return label if pair == first else f"{label.split(' (')[0]}, {pair_name(pair)}"  # short: titles name it in halves


def model_reading(ref: str, model: Translator, reading: Reading | None) -> str:
    """``ref``'s name, and ``reading``'s label where the model has more than one reading to tell apart."""
    if reading is None or model.attention_shape == (1, 1):
        return model_name(ref)
    return f"{model_name(ref)} · {reading.label}"


def two_sides(left: str, right: str) -> tuple[str, str]:
    """Two sides' names, told apart where they are one (the same model and reading on both sides)."""
    return (left, right) if left != right else (f"{left} (left)", f"{right} (right)")


def language_label(code: str) -> str:
    """A language code with its name first: "French · fra_Latn"."""
    return f"{language_name(code, code)} · {code}"


def language_choice(codes, wanted: str | None, default: str) -> tuple[str, str | None]:
    """The language a picker of a model's ``codes`` opens on: ``wanted`` (a link's) where the model knows it, else
    ``default``; and, for a code it does not know, why, with the close matches (None otherwise)."""
    if wanted is None or wanted in codes:
        return wanted or default, None
    return default, unknown_code(wanted, codes, "This model")


def linked_reading(loaded: LoadedModel, key: str | None, default: Reading | None = None) -> tuple[Reading, str | None]:
    """The reading a link names (``head=`` and the like), else ``default`` (the model's own by default); and, for
    a key that names none of the model's heads, what was ignored and why (None otherwise)."""
    default = default or loaded.reading
    if key is None:
        return default, None
    try:
        return Reading.parse(key, loaded.model.attention_shape), None
    except ValueError as e:
        return default, f"Ignored head={key[:20]!r} from the link: {e}."


@dataclass(frozen=True)
class SentenceBox:
    """The sentence box of a model reading ``source``: its language's name, the curated examples offered (text →
    label: those of its source language, where it has some; None, a model that does not say, is offered the English
    ones), the text it opens on, and what it asks for while empty."""

    language: str
    examples: dict[str, str]
    first: str
    prompt: str
    foreign: frozenset[str] = frozenset()  # the curated examples of the other languages

    def opens_on(self, current: str) -> str:
        """The sentence the box shows: ``current``, unless it is another language's curated example (the visitor
        switched direction without typing), which gives way to this language's first."""
        return self.first if current in self.foreign and self.first else current

    def cut(self, text: str, most: int) -> tuple[str, str | None]:
        """``text`` cut to ``most`` characters, and the warning that says so (None when it is not cut)."""
        if len(text) <= most:
            return text, None
        return text[:most], f"The text is {len(text):,} characters long; only the first {most} are translated."


def sentence_box(source: str | None) -> SentenceBox:
    """The sentence box for a model reading ``source`` (a language code, None where the model does not say)."""
    language = language_name(source, "Source")
    own = examples_file("en" if source is None else language_key(source))
    found = load_examples(own)
    foreign = frozenset(e.text for path in own.parent.glob("examples*.txt") if path != own for e in load_examples(path))
    labels = {e.text: (f"{e.group}: " if e.group else "") + f"{e.text}  — {e.note}" for e in found}
    article = "an" if language[0] in "AEIOU" else "a"
    return SentenceBox(language, labels, first_example(found).text if found else "",
                       f"Type {article} {language} sentence above" + " (or pick an example)" * bool(found)
                       + " to see its translation and attention.", foreign)


@dataclass(frozen=True)
class HeadChoice:
    """What a head picker offers of a model's ``matrix`` (the model's default reading first named so) and how it
    names each; the head trained to align, where the card names one among them."""

    options: tuple[Reading, ...]
    default: Reading
    matrix: Matrix
    supervised: Reading | None

    def wanted(self, linked: Reading | None) -> Reading:
        """The reading a link (or an earlier choice) names, as offered here: itself, its plain reading where only
        plain ones are, else the default."""
        if linked in self.options:
            return linked
        return linked.plain if linked is not None and linked.plain in self.options else self.default

    def name(self, reading: Reading) -> str:
        """A reading as listed, short enough for a laptop's column: its name under the matrix, ★ where it is shown
        first, ✓ where it was trained to align (the help says which is which)."""
        return (self.matrix.label(reading).capitalize() + " ★" * (reading == self.default)
                + " ✓" * (reading == self.supervised))

    @property
    def help(self) -> str:
        """What the picker offers, which it shows first (★), and, where the model's card says so, what its head
        trained to align (✓) is."""
        return ("Each decoder layer has several heads, each with its own attention over the source; a layer's mean "
                "averages them. Read one step later, each word's row is the step where it is the decoder's input. "
                f"★ shown first: {self.matrix.label(self.default)}."
                + (f" ✓ trained to align: {self.matrix.label(self.supervised)}. {SUPERVISION}"
                   if self.supervised is not None else ""))


def head_choice(loaded: LoadedModel, matrix: Matrix, shifted: bool = False,
                shape: tuple[int, int] | None = None) -> HeadChoice | None:
    """The readings of ``matrix`` a page may pick among (:meth:`~models.nouns.matrix.Matrix.readings`; with
    ``shifted`` one step later too; of another attention of ``shape`` layers × heads); None where there is nothing to
    pick: a model without attention, or a matrix of the whole sentence (an attribution)."""
    if loaded.reading is None or matrix.per == "sentence":
        return None
    options = tuple(readings(shape, shifted) if shape else matrix.readings(loaded.model.attention_shape, shifted))
    default = matrix.at(loaded.reading if shifted else loaded.reading.plain)
    default = default if default in options else options[-1]  # another kind may have fewer layers
    # a head trained one step later is named on its plain reading too, where a page offers only those
    aligner = loaded.supervised if matrix is loaded.card.aligning_matrix else None
    supervised = next((r for r in (aligner, aligner and aligner.plain) if r is not None and r in options), None)
    return HeadChoice(options, default, matrix, supervised)


def matrix_choice(loaded: LoadedModel, linked: Matrix | None) -> tuple[list[Matrix], Matrix]:
    """The matrices a picker offers for ``loaded`` (every one it has: :func:`applicable`) and the one it opens on:
    the one a link names where the model has it, else the model's own (the one its head trained to align is read
    under)."""
    choices = list(applicable(loaded.model, loaded.fitted))
    own = next((m for m in choices if m is loaded.card.aligning_matrix), choices[0])
    return choices, linked if linked in choices else own


def matrix_name(matrix: Matrix) -> str:
    """A matrix as the Show picker lists it: its name alone, short enough for a laptop's column (the help says what
    each is)."""
    return matrix.name


def show_help(loaded: LoadedModel) -> str:
    """What the Show picker offers, each in a sentence, and each matrix ``loaded`` lacks with the reason, grouped by
    reason."""
    lacking: dict[str, list[str]] = {}
    for m in MATRICES.values():
        if (reason := why_not(m, loaded.model, loaded.fitted)) is not None:
            lacking.setdefault(reason, []).append(m.name)
    return ("The attention, what it adds (its norm, ALTI, value zeroing), a rollout through the layers, or an "
            "attribution (Captum), which works on any model. Integrated gradients take a pass per point along their "
            "path and value zeroing one pass per source token: seconds for a short sentence, longer for a long one. "
            "Which of them to believe: the “Which matrix to believe?” page.\n\n"
            + "\n".join(f"- {m.name}: {m.about}" for m in applicable(loaded.model, loaded.fitted))
            + "".join(f"\n\nNot for this model — {', '.join(names)}: {reason}." for reason, names in lacking.items()))


def directions() -> list[Languages]:
    """Each pair a bundled model translates, the first bundled model's first."""
    return list(dict.fromkeys(bundled_pairs()[name] for name in bundled_models()))


def direction_key(pair: Languages) -> str:
    """How a link names a direction: ``fr-en``."""
    return "-".join(language_key(code) for code in pair)


def direction_label(pair: Languages) -> str:
    """How a visitor reads it: ``French → English``."""
    return pair_name(pair).replace("→", " → ")


def direction_of(ref: str) -> Languages | None:
    """The direction of a bundled model; None for any other (a Hub model's, a folder's, keep their own)."""
    return bundled_pairs().get(ref)


def linked_direction(key: str | None, ref: str) -> tuple[Languages, str | None]:
    """The direction a link asks for (``direction=fr-en``), else ``ref``'s, else the first; and, for a key that
    names no bundled direction, what was ignored (None otherwise)."""
    found = {direction_key(pair): pair for pair in directions()}
    default = direction_of(ref) or directions()[0]
    if key is None or key in found:
        return found.get(key, default), None
    return default, f"Ignored direction={key!r} from the link: the bundled models translate {', '.join(found)}."


def models_of(pair: Languages) -> list[str]:
    """The bundled models translating ``pair``, in the app's order."""
    return [name for name in bundled_models() if bundled_pairs()[name] == pair]


def opened_model(pair: Languages, wanted: str) -> str:
    """The bundled model ``pair`` opens on: ``wanted`` where it translates that way; else the model of the same
    kind (an RNN's score, the Transformer) that does; else the direction's first."""
    names = models_of(pair)
    if wanted in names:
        return wanted
    kind = bundled_variants().get(wanted)
    return next((name for name in names if bundled_variants()[name] == kind), names[0])


def other_direction(pair: Languages) -> Languages | None:
    """The bundled direction translating ``pair`` the other way, where there is one."""
    return pair[::-1] if pair[::-1] in directions() else None


def not_in_direction(models: tuple[str, ...], pair: Languages | None) -> str | None:
    """Why a view of the bundled ``models`` does not apply to direction ``pair`` (None where it does, or where no
    direction is picked)."""
    theirs = {direction_of(name) for name in models}
    if pair is None or theirs == {pair}:
        return None
    names = " and ".join(model_name(name) for name in models)
    ways = " and ".join(direction_label(p) for p in theirs if p)
    return (f"This page takes apart the bundled {names} ({ways}); no such model translates {direction_label(pair)} "
            f"yet. Pick {ways} in the sidebar to use it.")


@dataclass(frozen=True)
class Offer:
    """Another direction to translate a sentence in, offered in one click: its pair, the model it opens on, and
    the button's words."""

    pair: Languages
    model: str
    label: str


def offer(language: str | None, ref: str) -> Offer | None:
    """Where a sentence given to ``ref`` looks like ``language`` (a key, :func:`models.tables.doubts.looks_like`),
    the bundled direction that reads it, on the model of the same kind; None where there is none."""
    pair = next((p for p in directions() if language is not None and language_key(p[0]) == language), None)
    if pair is None:
        return None
    return Offer(pair, opened_model(pair, ref), f"Translate it {direction_label(pair)}")


#: The two models a page sets side by side unless asked otherwise, by the variant each is: Bahdanau's additive score
#: beside the dot product (Compare, A corpus at a time, Score anatomy).
PAIRED = ("additive", "dot")


@dataclass(frozen=True)
class Beside:
    """What the Context vectors page may draw beside the additive RNN (the URL's ``beside``): a bundled model of a
    variant, its label, and whether its paths are a head's (a Transformer's) rather than the RNN's one context."""

    variant: str
    label: str
    heads: bool


BESIDE = {"dot": Beside("dot", "Dot-product RNN", False), "transformer": Beside("transformer", "A Transformer head", True)}


def bundled_of(variant: str, pair: Languages | None = None) -> str:
    """The bundled model of ``variant`` (of direction ``pair``, else of any), one not trained to align before one
    that is; else the direction's first model."""
    names = models_of(pair) if pair else bundled_models()
    fitting = [n for n in names if bundled_variants()[n] == variant]
    return min(fitting, key=lambda n: bundled_cards()[n].guided is not None) if fitting else names[0]


def paired(pair: Languages | None = None) -> tuple[str, str]:
    """The two models set side by side by default (:data:`PAIRED`), of direction ``pair``."""
    return bundled_of(PAIRED[0], pair), bundled_of(PAIRED[1], pair)

