"""docs/embedding.py, the atlas inside another Streamlit app: it draws the Translate page's heatmap of the sentence
typed, and says in a sentence why not for one the model cannot read (AppTest)."""
from pathlib import Path

from streamlit.testing.v1 import AppTest

from models import atlas

from .pages_helpers import figures, title_of

EXAMPLE = str(Path(__file__).resolve().parent.parent / "docs" / "embedding.py")


def test_another_app_draws_the_heatmap_of_the_sentence_typed():
    at = AppTest.from_file(EXAMPLE, default_timeout=120).run()
    assert not at.exception
    at.text_input[0].set_value("Two girls play in the park.").run()
    assert not at.exception
    seen = atlas.load("transformer").translate("Two girls play in the park.")
    assert at.markdown[0].value == seen.translation
    [chart] = figures(at)
    assert title_of(chart) == title_of(seen.heatmap().to_dict())


def test_a_sentence_it_cannot_read_is_said_not_raised():
    at = AppTest.from_file(EXAMPLE, default_timeout=120).run()
    at.text_input[0].set_value("   ").run()
    assert not at.exception and not figures(at)
    assert at.info and "Type" in at.info[0].value
