"""How word links are read from a word matrix, as a record: a method by name (``union``) or every weight of at least
a threshold (``threshold 0.2``). Applied by :mod:`models.analysis.link_rules`; chosen on a gold's trial set and kept
in the records storage reads and writes (``alignment.json``, a fitted probe) — which is why it sits here, below
both: a name and a number, nothing computed from a model.
"""
from __future__ import annotations

from dataclasses import dataclass

#: The rules that read links without a threshold, by name (:data:`models.analysis.link_rules.METHODS` applies them).
METHOD_NAMES = ("argmax", "intersection", "union", "grow-diag")


@dataclass(frozen=True)
class LinkRule:
    """One way to read links: a method of :data:`METHOD_NAMES`, or every weight of at least ``threshold``."""

    method: str  # a name of METHOD_NAMES, or "threshold"
    threshold: float | None = None  # the least weight linked: "threshold" only

    def __post_init__(self):
        if self.method not in (*METHOD_NAMES, "threshold") or (self.method == "threshold") != (self.threshold
                                                                                               is not None):
            raise ValueError(f"unknown link rule {self!r}; expected one of {METHOD_NAMES} or 'threshold W'")

    @classmethod
    def parse(cls, name: str) -> LinkRule:
        """The rule a record names: ``union`` or ``threshold 0.2``."""
        if name.startswith("threshold "):
            try:
                return cls("threshold", float(name.removeprefix("threshold ")))
            except ValueError:
                raise ValueError(f"unknown link rule {name!r}: a threshold is a number") from None
        return cls(name)

    def __str__(self) -> str:
        return self.method if self.threshold is None else f"threshold {self.threshold:g}"
