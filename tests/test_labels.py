"""pages/_shared/labels.py: each renderer's escaping, applied once."""
import re

import pytest

from pages._shared.labels import for_markdown, for_plotly, plain

HOSTILE = 'He said "Go" & <b>run</b> </script> *x* $y$ :red[z] \\ ok'


def test_plain_makes_control_characters_visible_and_leaves_the_rest():
    assert plain("a\x1bb\u202ec") == "a\\x1bb\\x202ec"
    assert plain(HOSTILE) == HOSTILE


def test_plotly_escapes_exactly_the_entities_plotly_decodes():
    out = for_plotly(HOSTILE)
    assert "<" not in out and ">" not in out
    assert '"Go"' in out  # plotly shows &quot; literally, so quotes must stay quotes
    decoded = out.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")  # what plotly renders
    assert decoded == HOSTILE


def test_plotly_escaping_is_not_applied_twice():
    assert for_plotly("&") == "&amp;" and for_plotly("&amp;") == "&amp;amp;"


@pytest.mark.parametrize("text", [HOSTILE, "**bold**", "[link](http://x)", "# heading", "1. item", "`code`"])
def test_markdown_escapes_every_ascii_punctuation_once(text):
    out = for_markdown(text)
    assert re.sub(r"\\(.)", r"\1", out) == plain(text)  # removing one backslash per escape gives the text back
    assert all(out[m.start() - 1] == "\\" for m in re.finditer(r"[*_\[\]<>&$:`#]", out))
