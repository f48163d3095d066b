"""Which way the bundled models translate: the directions a visitor picks from (English→French, French→English),
each direction's models, and the model a direction opens on, so a link or a switch of direction keeps what the
visitor was looking at (the same kind of model the other way) wherever one exists. A Hub model keeps its own
languages and is in no direction of these.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..storage.hub import bundled_models, bundled_pairs, bundled_variants
from ..storage.languages import Languages, language_key, pair_name
from .naming import model_name


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
