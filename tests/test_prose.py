"""models/views/prose.py: the pages' fixed words, and each renderer's escaping, applied once."""
import re

import pytest

from models.views import prose
from models.views.prose import for_markdown, plain

HOSTILE = 'He said "Go" & <b>run</b> </script> *x* $y$ :red[z] \\ ok'


def test_plain_makes_control_characters_visible_and_leaves_the_rest():
    assert plain("a\x1bb\u202ec") == "a\\x1bb\\x202ec"
    assert plain(HOSTILE) == HOSTILE


@pytest.mark.parametrize("text", [HOSTILE, "**bold**", "[link](http://x)", "# heading", "1. item", "`code`"])
def test_markdown_escapes_every_ascii_punctuation_once(text):
    out = for_markdown(text)
    assert re.sub(r"\\(.)", r"\1", out) == plain(text)  # removing one backslash per escape gives the text back
    assert all(out[m.start() - 1] == "\\" for m in re.finditer(r"[*_\[\]<>&$:`#]", out))


FIXED = {name: value for name, value in vars(prose).items() if name.isupper() and isinstance(value, str)}
NOT_FOR_VISITORS = r"python -m|ATLAS_|HF_TOKEN|--[a-z]|\.(json|md|py|safetensors)\b|docs/|assets/"


@pytest.mark.parametrize("name", sorted(FIXED))
def test_the_pages_fixed_words_name_no_shell_line_setting_or_file(name):
    """A visitor reads plain words: no command, no deployment setting, no server file."""
    words = FIXED[name]
    assert not re.search(NOT_FOR_VISITORS, words), words


def _said_elsewhere() -> dict[str, str]:
    """The other sentences the pages show as they are: why a matrix cannot be read, why a model has no neighbour
    index, what a public server's limit keeps."""
    from models.analysis import recipes
    from models.datasets.sentences import Sentences
    from models.views import inside
    from models.views.corpus import within_limit

    needs = {name: need.why_not for name, need in vars(recipes).items() if isinstance(need, recipes.Need)}
    many = Sentences("mine", tuple(f"sentence {k}" for k in range(5)), None)
    return needs | {"NO_INDEX": inside.NO_INDEX, "within_limit": within_limit(many, 3, 20.0)[1]}


SAID = _said_elsewhere()


@pytest.mark.parametrize("name", sorted(SAID))
def test_why_a_thing_cannot_be_shown_names_no_shell_line_or_file(name):
    words = SAID[name]
    assert len(words) > 20 and not re.search(NOT_FOR_VISITORS, words), words
