"""User and model text made safe for each renderer, escaped exactly once.

Every renderer has its own markup, so each gets its own function:

* :func:`plain` — widgets that show text literally (select boxes, ``st.code``, ``st.text``):
  only control characters are made visible.
* charts (Vega-Lite) draw labels as SVG text and tooltips as text: they take text as it is.
* :func:`for_markdown` — ``st.markdown``/``st.caption``: every ASCII punctuation
  character is backslash-escaped (CommonMark shows it literally), so ``*``, ``<``,
  ``$`` or ``:red[`` typed by a user stay text.
"""
from __future__ import annotations

import re
import unicodedata

_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def plain(text: str) -> str:
    """``text`` with control and format characters written as ``\\xNN`` (a right-to-left override included)."""
    return "".join(f"\\x{ord(c):02x}" if unicodedata.category(c) in ("Cc", "Cf") else c for c in text)


def for_markdown(text: str) -> str:
    return _MARKDOWN_SPECIAL.sub(r"\\\1", plain(text))
