"""The app's own install is enough (issue 57): run in a venv made from requirements-app.txt alone, it builds a tiny
Marian translator, a tiny NLLB-200 and a tiny Qwen2 chat model offline, translates with each through the command line
(NLLB into German, by ``--src-lang`` / ``--tgt-lang``), and opens every page on each under Streamlit's AppTest, each
without an exception — also on a Marian with 64 positions, given a sentence longer than that (issue 65). The test suite runs in the
development install, which has more; this proves a user's install. Exits non-zero, saying what broke, otherwise."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.hf_helpers import tiny_many_to_many, tiny_marian  # noqa: E402  (stdlib at its top; builds with the app's packages)
from tests.llm_helpers import tiny_llm  # noqa: E402

PAGES = ["translate", "Compare_scoring", "Context_vectors", "Score_anatomy", "Learning", "Models_and_results",
         "Human_links", "Corpus", "Which_reading"]  # each file named as its page's URL (pages/_shared/ui.settings)
TEXT = "a dog runs on the beach"
LONG = " ".join([TEXT] * 20)  # over 64 pieces


def check(folder: str, languages: tuple[str, str] | None, text: str) -> str | None:
    """What broke for the model in ``folder`` (set to ``languages``) given ``text``, or None."""
    pair = ["--src-lang", languages[0], "--tgt-lang", languages[1]] if languages else []
    done = subprocess.run([sys.executable, "-m", "models.translate", "--model", folder, *pair], input=text + "\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    if done.returncode or done.stdout.count("\n") != 1:  # one line out for the one line in (empty is a translation)
        return f"models.translate failed ({done.returncode}):\n{done.stderr}"
    print(f"models.translate {' '.join(pair)}: {text[:40]!r} → {done.stdout.strip()[:40]!r}")
    for name in PAGES:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
        at.query_params.update({"text": text, "model": folder} | (
            {"src_lang": languages[0], "tgt_lang": languages[1]} if languages else {}))
        at.run()
        if name != "translate":
            at.switch_page(f"pages/{name}.py").run()
        broken = [e.message for e in at.exception] + [e.value for e in at.error]
        if broken:
            return f"page {name}: {broken}"
        print(f"page {name}: no exception, no error")
    return None


def main() -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["ATLAS_GOLD_URL"] = "http://127.0.0.1:1"  # human links by name: nothing fetched from the internet
    with tempfile.TemporaryDirectory() as tmp:
        models = [(str(tiny_marian(Path(tmp) / "marian", steps=60)), None, TEXT),
                  (str(tiny_many_to_many(Path(tmp) / "nllb", "nllb", steps=300)), ("eng_Latn", "deu_Latn"), TEXT),
                  (str(tiny_marian(Path(tmp) / "short", steps=60, positions=64)), None, LONG),
                  (str(tiny_llm(Path(tmp) / "qwen2", "qwen2")), ("en", "fr"), TEXT)]
        for folder, languages, text in models:
            if broken := check(folder, languages, text):
                print(broken, file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
