"""What the Translate page draws of a Transformer's three attentions and of its heads: a self-attention's reading
labelled piece by piece, the sentence's three attentions for bertviz's model view, and a translation decoded again
with some heads switched off, its changed words marked."""
from __future__ import annotations

from dataclasses import dataclass

from ..analysis.heatmaps import Heatmap, piece_label, reading_heatmap
from ..analysis.bertviz_export import bertviz_html
from ..analysis.head_removal import changed_words, every_head, head_key, parse_head, without_heads
from ..decoding.every_attention import attention_kinds
from ..decoding.greedy import greedy
from ..decoding.trace import Trace
from ..extras import EXTRAS, available
from ..nouns.attention_map import KINDS, AttentionMap, Kind, NamedKind, Reading
from ..network.translator import Translator
from ..storage.loaded import LoadedModel


def kinds_of(model: Translator) -> tuple[NamedKind, ...]:
    """The attentions ``model`` has to switch between, as it names them, in :data:`KINDS` order: none to switch
    for one."""
    found = model.named_kinds
    return found if len(found) > 1 else ()


def kind_named(model: Translator, key: str | None) -> NamedKind:
    """``model``'s attention of ``key`` (a link's ``attn``); its step-by-step one for any other."""
    return next((k for k in model.named_kinds if k.key == key), model.steps_kind)


def offers_bertviz(model: Translator) -> bool:
    """Whether bertviz's model view draws ``model``: it draws three attentions."""
    return {k.key for k in model.named_kinds} == set(KINDS)


def sentence_kinds(model: Translator, trace: Trace, written: int) -> dict[Kind, AttentionMap]:
    """Every attention of ``trace``'s sentence, its first ``written`` pieces (forcing adds an end of sentence to a
    translation cut at its length limit; its row is not shown)."""
    return {kind: found.first(written) for kind, found in attention_kinds(model, trace).items()}


def shown_map(trace: Trace, kinds: dict[Kind, AttentionMap] | None, kind: NamedKind) -> AttentionMap:
    """The attention a page draws of ``kind``: the trace's own, step by step, else the sentence's other one."""
    return trace.attention if kind.stepwise else kinds[kind.key]


def shown_heatmap(trace: Trace, kinds: dict[Kind, AttentionMap] | None, kind: NamedKind, reading: Reading,
               words: bool) -> Heatmap:
    """What a heatmap draws of ``kind`` at ``reading``: the trace's own, step by step (words or pieces), else another
    attention piece by piece."""
    if kind.stepwise:
        return reading_heatmap(trace, reading, words)
    return kind_heatmap(kinds[kind.key], reading)


@dataclass(frozen=True, eq=False)
class HeadGrid:
    """Heads of one attention as small multiples (a layer's heads, or bertviz's model view: every layer × head)."""

    views: tuple[Heatmap, ...]  # a head each, layer-major
    cells: tuple[Reading, ...]  # which head each view is
    titles: tuple[str, ...]  # "head 2", or "layer 1 · head 2" where several layers are drawn
    selected: int | None  # the index of the head shown above, marked ▶; None: not among them
    columns: int  # panels a row: a layer's heads where several layers are drawn, else 4


def head_grid(trace: Trace, kinds: dict[Kind, AttentionMap] | None, kind: NamedKind, reading: Reading | None,
              words: bool, layers: range) -> HeadGrid:
    """The heads of ``kind`` in ``layers``, the ``reading`` shown above marked (None: none)."""
    heads = shown_map(trace, kinds, kind).shape[1]
    cells = tuple(Reading(n, h) for n in layers for h in range(heads))
    titles = tuple((f"layer {r.layer + 1} · " if len(layers) > 1 else "") + f"head {r.head + 1}" for r in cells)
    selected = next((i for i, r in enumerate(cells) if reading and (r.layer, r.head) == (reading.layer, reading.head)),
                    None)
    return HeadGrid(tuple(shown_heatmap(trace, kinds, kind, r, words) for r in cells), cells, titles, selected,
                    heads if len(layers) > 1 else 4)


def kind_heatmap(found: AttentionMap, reading: Reading) -> Heatmap:
    """One reading of an attention, piece by piece, rows and columns labelled as the map labels them."""
    return Heatmap(rows=tuple(piece_label(r) for r in found.rows),
                         columns=tuple(piece_label(c) for c in found.columns),
                         unknown=(False,) * len(found.columns), weights=found.read(reading), energies=None)


def heads(model: Translator) -> list[str]:
    """Every head the model can switch off, by key (``cross.1.2``)."""
    return [head_key(h) for h in every_head(model)]


def head_keys(keys: str, model: Translator) -> tuple[list[str], list[str]]:
    """The heads a link's comma-separated ``keys`` name, as keys, and why each one the model lacks is dropped."""
    found, dropped = [], []
    for key in filter(None, keys.split(",")):
        try:
            found.append(head_key(parse_head(key, model)))
        except ValueError as e:
            dropped.append(f"Ignored off={key[:20]!r} from the link: {e}.")
    return found, dropped


def head_name(key: str, model: Translator) -> str:
    """A head's key in words, its attention as ``model`` names it: "cross-attention, layer 1, head 2"."""
    reading = Reading.from_key(key)
    return f"{kind_named(model, reading.kind).name}, layer {reading.layer + 1}, head {reading.head + 1}"


def without(loaded: LoadedModel, text: str, off: tuple[str, ...]) -> Trace:
    """The greedy translation of ``text`` by a copy of the model with the heads ``off`` switched off."""
    pruned = without_heads(loaded.model, [parse_head(k, loaded.model) for k in off])
    return greedy(pruned, loaded.tokenizers, text)


def changed(before: str, after: str) -> list[tuple[str, bool]]:
    """Each word of the translation ``after``, and whether it is not in ``before`` (inserted or replaced)."""
    words = after.split()
    return list(zip(words, changed_words(before.split(), words)))


def bertviz(kinds: dict[Kind, AttentionMap]) -> str:
    """bertviz's model view of a sentence's three attentions, as a page."""
    return bertviz_html(kinds, "model")


def bertviz_missing() -> str | None:
    """Why bertviz's model view cannot be written here (an optional extra not installed), or None."""
    return None if available("bertviz") else EXTRAS["bertviz"].message
