"""Time reruns of the home page for a 20-word sentence, with Streamlit's AppTest.

    python -m pages._shared.rerun_bench

"cold" = a sentence not seen before (the trace and the what-if are computed);
"warm" = moving the step slider (traces come from the cache). The model is
loaded once before timing, as ``st.cache_resource`` does in a running app.
"""
from __future__ import annotations

import statistics
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from models.bench import sentence_of
from models.storage.examples import load_examples

APP = str(Path(__file__).resolve().parents[2] / "app.py")
RUNS = 15


def main() -> None:
    pool = [e.text for e in load_examples()]
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["text"] = sentence_of(20, pool)
    at.run()  # loads the model into the resource cache
    cold, warm = [], []
    for i in range(RUNS):
        at.text_area(key="text").set_value(sentence_of(20, pool[i % len(pool):] + pool))
        start = time.perf_counter()
        at.run()
        cold.append(1000 * (time.perf_counter() - start))
        at.slider(key="step").set_value(2 + i % 5)
        start = time.perf_counter()
        at.run()
        warm.append(1000 * (time.perf_counter() - start))
        assert not at.exception, at.exception
    for name, times in (("cold (new sentence)", cold), ("warm (move the step)", warm)):
        print(f"{name}: median {statistics.median(times):.0f} ms, max {max(times):.0f} ms over {RUNS} reruns")


if __name__ == "__main__":
    main()
