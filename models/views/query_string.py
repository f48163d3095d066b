"""The query string every page reads, parsed and validated in one place.

Any visitor can type any URL, so every parameter a page reads goes through
:func:`parse`: a value that is missing, malformed or out of range becomes the
default, with a short notice naming what was ignored. Pure Python (no
Streamlit), so it is tested on arbitrary input.

Whether a *model reference* may be loaded (public mode: bundled names and Hub
ids only) is the loader's decision (:class:`models.storage.hub.LoadPolicy`); here a
reference is only checked to be short, printable text.
"""
from __future__ import annotations

import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields

from ..nouns.attention_map import KINDS
from ..nouns.matrix import MATRICES, Matrix
from ..storage.languages import MAX_INSTRUCTION_CHARS

MAX_TEXT_CHARS = 500  # the longest sentence translated; longer text is cut with a notice
MAX_BEAM = 8
LEVELS = ("words", "subwords")
MAX_REF_CHARS = 200  # a Hub id is at most 96 characters; paths get some room
MAX_REVISION_CHARS = 100
MAX_HEAD_CHARS = 20  # "24.64", "24.mean.shifted": the page checks it against the model's layers and heads
MAX_LANGUAGE_CHARS = 20  # "fra_Latn", "__fr__": the sidebar checks it against the model's languages
MAX_STEP = 10_000  # pages clamp a step (or training point) to what they show; this only bounds the integer


@dataclass(frozen=True)
class UrlState:
    """What a page may take from its URL; ``None`` means "not given, use the page's default"."""

    text: str | None = None
    beam: int = 1
    level: str = "words"
    step: int = 1  # 1-based decoding step of the step explorer
    matrix: Matrix | None = None  # the matrix a page shows, by its slug (whether the model has it: the page's)
    head: str | None = None  # a reading of the attention, "2.3", "2.mean", "1.1.shifted" (checked by the page)
    shifted: int | None = None  # 1: the Translate page draws the reading one step later beside the plain one (None:
    # as the model's card chose its reading)
    layers: int = 0  # 1: the Translate page draws the model view, every layer × head, below the head grid
    attn: str = KINDS[0]  # the attention shown on the Translate page, by the interface's key (a model names it)
    beside: str = "dot"  # what the Context vectors page draws beside the additive RNN: "dot" or "transformer"
    foil: str | None = None  # the piece the step explorer contrasts with the one written, "▁chat" (checked there)
    off: str | None = None  # heads switched off, readings' keys: "2.1,encoder.1.3" (checked by the page)
    point: int | None = None  # 1-based moment of training replayed by the learning page (None: its last)
    pair: int = 1  # 1-based sentence pair of the human-links page (clamped to the set it shows)
    model: str | None = None
    direction: str | None = None  # which way the bundled models translate, "fr-en" (checked by the sidebar)
    model_rev: str | None = None
    left: str | None = None
    left_rev: str | None = None
    right: str | None = None
    right_rev: str | None = None
    src_lang: str | None = None  # a many-to-many model's languages, in its own codes (checked against the model)
    tgt_lang: str | None = None
    instruction: str | None = None  # what a chat model is asked, with {sentence} (checked by the sidebar)
    left_head: str | None = None  # the Compare page's readings of multi-head models, as ``head``
    right_head: str | None = None
    notices: tuple[str, ...] = ()  # one line per ignored or shortened value


def _int_in(low: int, high: int) -> Callable[[str], int]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError:  # "2.5", "abc", ""
            raise ValueError("not a whole number") from None
        if not low <= value <= high:
            raise ValueError(f"outside {low}–{high}")
        return value

    return parse


def _one_of(choices: tuple[str, ...]) -> Callable[[str], str]:
    def parse(raw: str) -> str:
        if raw not in choices:
            raise ValueError(f"not one of {', '.join(choices)}")
        return raw

    return parse


def _printable(limit: int) -> Callable[[str], str | None]:
    def parse(raw: str) -> str | None:
        value = raw.strip()
        if len(value) > limit:
            raise ValueError(f"longer than {limit} characters")
        if any(unicodedata.category(c).startswith("C") for c in value):
            raise ValueError("contains control characters")
        return value or None

    return parse


def _instruction(raw: str) -> str | None:
    """An instruction of one's own: its lines kept, no other control characters."""
    if len(raw) > MAX_INSTRUCTION_CHARS:
        raise ValueError(f"longer than {MAX_INSTRUCTION_CHARS} characters")
    if any(unicodedata.category(c).startswith("C") for c in raw.replace("\n", "")):
        raise ValueError("contains control characters")
    return raw if raw.strip() else None


def _matrix(raw: str) -> Matrix:
    """The registered matrix a link names by its slug."""
    found = {m.slug: m for m in MATRICES.values()}
    if raw not in found:
        raise ValueError("no such matrix")
    return found[raw]


_PARSERS: dict[str, Callable[[str], object]] = {
    "beam": _int_in(1, MAX_BEAM),
    "level": _one_of(LEVELS),
    "step": _int_in(1, MAX_STEP),
    "shifted": _int_in(0, 1),
    "layers": _int_in(0, 1),
    "attn": _one_of(KINDS),
    "beside": _one_of(("dot", "transformer")),  # naming.BESIDE's keys (checked here, below the views)
    "point": _int_in(1, MAX_STEP),
    "pair": _int_in(1, MAX_STEP),
    **{key: _printable(MAX_HEAD_CHARS) for key in ("head", "left_head", "right_head")},
    "matrix": _matrix,
    "direction": _printable(MAX_LANGUAGE_CHARS),
    "foil": _printable(40),
    **{key: _printable(MAX_LANGUAGE_CHARS) for key in ("src_lang", "tgt_lang")},
    "off": _printable(400),
    "instruction": _instruction,
    **{key: _printable(MAX_REF_CHARS) for key in ("model", "left", "right")},
    **{f"{key}_rev": _printable(MAX_REVISION_CHARS) for key in ("model", "left", "right")},
}


#: Parameters renamed since links were first shared, by their old name: an old link still opens what it showed.
#: (``read=`` named the matrix drawn; "reading" now means one head or layer only, ``head=``.)
RENAMED = {"read": "matrix"}
_OLD_NAME = {new: old for old, new in RENAMED.items()}


def parse(params: Mapping[str, str]) -> UrlState:
    """Every known parameter of ``params`` validated (a renamed one read under its old name too, the new name
    first); unknown keys are ignored."""
    values: dict[str, object] = {}
    notices: list[str] = []
    for field in fields(UrlState):
        raw = params.get(field.name, params.get(_OLD_NAME.get(field.name, "")))
        if raw is None or field.name == "notices":
            continue
        if field.name == "text":
            values["text"] = raw[:MAX_TEXT_CHARS]
            if len(raw) > MAX_TEXT_CHARS:
                notices.append(f"The text in the link was cut to its first {MAX_TEXT_CHARS} characters.")
            continue
        try:
            values[field.name] = _PARSERS[field.name](raw)
        except ValueError as e:
            notices.append(f"Ignored {field.name}={_shorten(raw)!r} from the link ({e}).")
    return UrlState(**values, notices=tuple(notices))


def _shorten(raw: str, limit: int = 40) -> str:
    return raw if len(raw) <= limit else raw[:limit] + "…"
