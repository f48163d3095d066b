"""bench/browser.py: concurrent browser sessions against one server see the CLI's translations."""
import os

import pytest

from bench import browser as app_bench

needs_browser = pytest.mark.skipif(not os.path.exists(app_bench.CHROMIUM) and not os.environ.get("CI"),
                                   reason="Debian's chromium is not installed (apt-get install chromium)")


def test_percentiles_by_nearest_rank():
    assert app_bench.percentiles(list(range(1, 101))) == "50 / 95 / 99"
    assert app_bench.percentiles([7.0]) == "7 / 7 / 7" and app_bench.percentiles([]) == "–"


def test_every_session_gets_its_own_sentences():
    plans = app_bench.sentence_plans(8, 3)
    flat = [s for plan in plans for s in plan]
    assert len(plans) == 8 and len(set(flat)) == 24
    with pytest.raises(ValueError, match="distinct sentences"):
        app_bench.sentence_plans(30, 3)


@needs_browser
def test_two_concurrent_sessions_see_the_cli_translations_beside_a_visitor_asking_for_integrated_gradients():
    """Correctness under concurrency (no timing asserts): each browser shows what `models.translate` writes while
    another session and a visitor asking for an attribution share the server (a server and its browsers are most
    of the test's time: two sessions are the fewest that run at once)."""
    results, server, attributed = app_bench.load_test(2, per_session=2, attribution=True)
    assert [r.error for r in results] == [None, None]
    assert all(len(r.rerun_ms) == 2 and r.load_ms for r in results)
    assert len(attributed) >= 1 and all(ms > 0 for ms in attributed)
    assert server.peak_rss_mib() > 100  # the sampler read the server's /proc entry
