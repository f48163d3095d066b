"""The app's own install is enough (issue 57): run in a venv made from requirements-app.txt alone, it builds a tiny
Marian translator of 64 positions, a tiny NLLB-200 and a tiny Qwen2 chat model offline, translates with each through
the command line (NLLB into German, by ``--src-lang`` / ``--tgt-lang``), and opens every page on each under
Streamlit's AppTest, each without an exception — the Marian given a sentence longer than its positions (issue 65).
Each translator is built and checked in a process of its own, two at a time (``python .ci/app_install.py NAME`` checks
one). The test suite runs in the development install, which has more; this proves a user's install. Exits non-zero,
saying what broke, otherwise."""
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.hf_helpers import tiny_many_to_many, tiny_marian  # noqa: E402  (stdlib at its top; builds with the app's packages)
from tests.llm_helpers import tiny_llm  # noqa: E402
from tests.pages_helpers import MODEL_PAGES, page  # noqa: E402

PAGES = ["", *MODEL_PAGES]  # the default page and every other that draws the sidebar's model, as app.py lists them
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
        if name:
            at.switch_page(page(name)).run()
        broken = [e.message for e in at.exception] + [e.value for e in at.error]
        if broken:
            return f"page {name or 'translate'}: {broken}"
        print(f"page {name or 'translate'}: no exception, no error")
    return None


#: The translators checked, each built by the tests' own helpers: how to build it in a folder, its languages, a text.
MODELS = {"marian": (partial(tiny_marian, steps=60, positions=64), None, LONG),
          "nllb": (partial(tiny_many_to_many, family="nllb", steps=300), ("eng_Latn", "deu_Latn"), TEXT),
          "qwen2": (partial(tiny_llm, family="qwen2"), ("en", "fr"), TEXT)}


def build_and_check(name: str) -> int:
    """One translator built in a folder of its own and checked; 1 (saying what broke) if anything did."""
    build, languages, text = MODELS[name]
    with tempfile.TemporaryDirectory() as tmp:
        broken = check(str(build(Path(tmp) / name)), languages, text)
    if broken:
        print(broken, file=sys.stderr)
    return int(broken is not None)


def run_apart(name: str) -> subprocess.CompletedProcess:
    """``build_and_check(name)`` in a process of its own, one torch thread, its output kept."""
    return subprocess.run([sys.executable, __file__, name], capture_output=True, text=True, timeout=1200,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})


def main() -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["ATLAS_GOLD_URL"] = "http://127.0.0.1:1"  # human links by name: nothing fetched from the internet
    # two at a time, each in a process of its own: the checks are most of CI's wait before the suite, and the
    # development install beside them leaves a core
    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(run_apart, MODELS))
    for run in done:
        print(run.stdout + run.stderr, end="")
    return int(any(run.returncode for run in done))


if __name__ == "__main__":
    sys.exit(build_and_check(sys.argv[1]) if len(sys.argv) > 1 else main())
