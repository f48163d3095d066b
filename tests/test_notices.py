"""What to doubt in a translation (models/tables/doubts.py, read by the pages through models/views/translate): a phrase written over
and over, a translation stopped at the length limit, a text in the model's other language (Lingua, between the
model's two languages), said on the pages and in the command's JSON; nothing said of a plain sentence."""
import json
import subprocess
import sys
from dataclasses import replace

import pytest

from models.decoding.greedy import greedy
from models.tables.doubts import looks_like, notices, repeated_phrase

from .pages_helpers import APP, run_page

FRENCH = "Un chien noir court sur la plage avec une balle rouge."


def test_a_phrase_written_three_times_in_a_row_is_found_longest_first():
    words = "le chat de la maison de la maison de la maison dort".split()
    assert repeated_phrase(words) == ("de la maison", 3)
    assert repeated_phrase("a b a b c a b".split()) is None  # twice in a row, and once apart: no loop
    assert repeated_phrase(["très"] * 4) == ("très", 4) and repeated_phrase([]) is None


def test_the_other_language_is_told_between_the_models_two_and_only_with_enough_words():
    assert looks_like(FRENCH, ("en", "fr")) == "fr" and looks_like(FRENCH, ("eng_Latn", "fra_Latn")) == "fr"
    assert looks_like("A black dog runs on the beach with a red ball.", ("en", "fr")) is None
    assert looks_like("Un chien", ("en", "fr")) is None  # two words: too few to tell
    assert looks_like(FRENCH, ("fr", "en")) is None  # French for a French→English model
    assert looks_like(FRENCH, (None, "fr")) is None and looks_like(FRENCH, ("en", "qya")) is None  # unknown: no guess


def test_a_loop_cut_at_the_length_limit_gets_both_notices_and_a_plain_sentence_none(tiny_model, tiny_tokenizers):
    trace = greedy(tiny_model, tiny_tokenizers, "the cat sees a dog")
    ends = tiny_model.specials.ends
    ended = replace(trace, target_ids=(*trace.target_ids[:-1], ends[0]), translation="le chat voit un chien")
    assert notices(ended, ends, ("en", "fr"), "the cat sees a dog").warnings == ()
    looping = replace(trace, target_ids=(*trace.target_ids[:-1], ends[0] + 1), translation="le chat le chat le chat")
    said = notices(looping, ends, ("en", "fr"), "the cat sees a dog").warnings
    assert any("stopped at the model's length limit" in s for s in said)
    assert any("repeats “le chat” 3 times in a row" in s for s in said)


def test_the_translate_page_says_a_french_sentence_looks_like_french_and_an_english_one_nothing():
    at = run_page(APP, text=FRENCH)
    assert not at.exception
    assert any("This looks like French, not English" in w.value.replace("\\", "") for w in at.warning)  # markdown
    plain = run_page(APP, text="A black dog runs on the beach with a red ball.")
    assert not plain.exception and not any("looks like" in w.value for w in plain.warning)


def test_the_commands_json_carries_the_notices_and_a_chat_model_prints_nothing_on_stderr():
    done = subprocess.run([sys.executable, "-m", "models.translate", "--model", "decoder-only", "--json"],
                          input=f"{FRENCH}\nA dog runs.\n", capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == ""  # transformers' "Loading weights" bar is off by default
    french, english = (json.loads(line) for line in done.stdout.splitlines())
    assert any("looks like French" in n for n in french["notices"]) and english["notices"] == []
    loud = subprocess.run([sys.executable, "-m", "models.translate", "--model", "decoder-only", "--verbose"],
                          input="A dog runs.\n", capture_output=True, text=True, timeout=300)
    assert loud.returncode == 0 and "Loading weights" in loud.stderr


@pytest.mark.parametrize("text", ["", "😀 😀 😀", "<b>run</b> & </script>"])
def test_odd_text_gets_no_language_guess(text):
    assert looks_like(text, ("en", "fr")) is None
