"""The app's own install is enough (issue 57): run in a venv made from requirements-app.txt alone, it builds a tiny
Marian translator offline, translates with it through the command line, and opens every page on it under
Streamlit's AppTest, each without an exception. The test suite runs in the development install, which has more;
this proves a user's install. Exits non-zero, saying what broke, otherwise."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.hf_helpers import tiny_marian  # noqa: E402  (stdlib at its top; builds with the app's packages)

PAGES = ["translate", "compare_scoring", "context_vectors", "score_anatomy", "learning", "models_and_results",
         "human_links", "corpus"]
TEXT = "a dog runs on the beach"


def main() -> int:
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["ATLAS_GOLD_URL"] = "http://127.0.0.1:1"  # human links by name: nothing fetched from the internet
    with tempfile.TemporaryDirectory() as tmp:
        folder = str(tiny_marian(Path(tmp) / "marian", steps=60))
        done = subprocess.run([sys.executable, "-m", "models.translate", "--model", folder], input=TEXT + "\n",
                              capture_output=True, text=True, cwd=ROOT, timeout=300)
        if done.returncode or not done.stdout.strip():
            print(f"models.translate failed ({done.returncode}):\n{done.stderr}", file=sys.stderr)
            return 1
        print(f"models.translate: {TEXT!r} → {done.stdout.strip()!r}")
        for name in PAGES:
            at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)
            at.query_params.update({"text": TEXT, "model": folder})
            at.run()
            if name != "translate":
                at.switch_page(f"pages/{name}.py").run()
            broken = [e.message for e in at.exception] + [e.value for e in at.error]
            if broken:
                print(f"page {name}: {broken}", file=sys.stderr)
                return 1
            print(f"page {name}: no exception, no error")
    return 0


if __name__ == "__main__":
    sys.exit(main())
