"""Fixtures: tokenizers and a small model on the synthetic corpus of :mod:`tests.helpers`, a corpus folder, an
offline Hugging Face cache and a loopback stand-in for the Hub's API."""
from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile

# sacreBLEU reads SACREBLEU once, when it is imported: the tests' own cache, never the user's ~/.sacrebleu, and sets
# are laid into it by the fixture below, never fetched from the internet.
os.environ["SACREBLEU"] = tempfile.mkdtemp(prefix="atlas-sacrebleu-")
# Human links by name are fetched from ATLAS_GOLD_URL: nothing listens on port 1, so a test fetches only from a
# loopback server of its own, and never reads ../shared's gold folder unless it sets ATLAS_GOLD itself.
os.environ["ATLAS_GOLD_URL"] = "http://127.0.0.1:1"
os.environ["ATLAS_GOLD"] = os.path.join(os.environ["SACREBLEU"], "no-gold-folder")

import pytest  # noqa: E402
import torch  # noqa: E402

from models.network.seq2seq import Seq2Seq  # noqa: E402
from models.network.tokenization import SubwordTokenizer, TokenizerPair, train_tokenizer  # noqa: E402

from .helpers import make_model, make_transformer, synthetic_pairs, two_examples  # noqa: E402
from .mirrors import mirror, multi30k, opus  # noqa: E402, F401  (fixtures: data by name from a loopback server)


def threads_per_worker(cpus: int, workers: int) -> int:
    """Intra-op threads for each of ``workers`` test processes sharing ``cpus`` cores: torch's default (every core,
    in every worker) oversubscribes the machine under pytest-xdist — 14 workers × 16 threads on 16 cores made
    learning tests run past 100 s."""
    return max(1, cpus // max(1, workers))


def pytest_configure(config):
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        torch.set_num_threads(threads_per_worker(os.cpu_count() or 1, workers))


@pytest.fixture(autouse=True)
def piece_cache(tmp_path_factory, monkeypatch):
    """The training command's piece cache in a folder of the test session's, never the user's ~/.cache."""
    folder = tmp_path_factory.getbasetemp() / "piece-cache"
    monkeypatch.setenv("ATLAS_CACHE", str(folder))
    return folder


@pytest.fixture
def few_examples(monkeypatch):
    """Training runs record two curated examples, not all (:func:`.helpers.two_examples`)."""
    two_examples(monkeypatch)


@pytest.fixture(autouse=True, scope="session")
def components_scanned_once():
    """Every AppTest scans every installed distribution's metadata for Streamlit components (a second a run on this
    machine, more than most page runs take); the packages do not change within a session, so one scan serves every
    AppTest of the process."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    found = scan()

    def scanned(max_workers: int | None = None) -> list:
        return list(found)

    manifest_scanner.scan_component_manifests = scanned
    yield
    manifest_scanner.scan_component_manifests = scan


@pytest.fixture(autouse=True, scope="session")
def pages_from_navigation():
    """Every AppTest run goes through app.py, as a served app's runs do. A server asks once a process whether the
    app is a pages/-folder one, and after its first run st.navigation has said no; AppTest asks afresh at every run,
    so a rerun of a page (whose file is named as its URL) would run that file alone, without app.py's sidebar and
    log. The first visit's question is a browser's: tests/test_serve.py opens a deep link first on a fresh server."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import app_test

    class Answered(PagesManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    app_test.PagesManager = Answered
    yield
    app_test.PagesManager = PagesManager


@pytest.fixture(scope="session")
def tiny_tokenizers() -> TokenizerPair:
    pairs = synthetic_pairs(500)
    return TokenizerPair(
        SubwordTokenizer(train_tokenizer([s for s, _ in pairs], 120)),
        SubwordTokenizer(train_tokenizer([t for _, t in pairs], 120)),
    )


@pytest.fixture
def tiny_model(tiny_tokenizers) -> Seq2Seq:
    return make_model(tiny_tokenizers)


@pytest.fixture(params=["rnn", "transformer"])
def any_model(request, tiny_tokenizers):
    """A small model of each architecture: tests of the translator interface run on both."""
    return make_model(tiny_tokenizers) if request.param == "rnn" else make_transformer(tiny_tokenizers)


@pytest.fixture
def tiny_corpus(tmp_path):
    return corpus_folder(tmp_path)


def corpus_folder(folder):
    """A Multi30k-style folder: train/val/test_2016_flickr .en/.fr.gz files."""
    splits = {"train": synthetic_pairs(300, 1), "val": synthetic_pairs(40, 2),
              "test_2016_flickr": synthetic_pairs(40, 3)}
    for split, pairs in splits.items():
        for lang, col in (("en", 0), ("fr", 1)):
            with gzip.open(folder / f"{split}.{lang}.gz", "wt", encoding="utf-8") as f:
                f.write("\n".join(p[col] for p in pairs) + "\n")
    return folder


@pytest.fixture
def offline_cache(tmp_path, monkeypatch):
    cache = tmp_path / "hf-cache"
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(cache))
    return cache


@pytest.fixture
def local_hub(monkeypatch):
    """A loopback HTTP server standing in for huggingface.co's API; records the paths asked for."""
    import http.server
    import threading

    asked, answer = [], {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            body = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", False)
    monkeypatch.setattr("huggingface_hub.constants.ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    yield asked, answer
    server.shutdown()


def _bundled_records() -> dict[str, bytes]:
    from models.storage.hub import BUNDLED_DIR

    return {str(f): f.read_bytes() for f in sorted(BUNDLED_DIR.rglob("*")) if f.is_file() and f.stat().st_size < 2**20}


@pytest.fixture(autouse=True, scope="session")
def bundled_records_untouched():
    """No test writes into a bundled model's folder (its records and card): a command run on one writes into a
    copy, or to --out."""
    before = _bundled_records()
    yield
    changed = [name for name, data in _bundled_records().items() if before.get(name) != data]
    assert not changed, f"a test wrote into the bundled models: {changed}"


def pytest_unconfigure(config):
    """The process's own sacreBLEU cache goes with it (every xdist worker runs this hook as it ends)."""
    shutil.rmtree(os.environ["SACREBLEU"], ignore_errors=True)


@pytest.fixture(scope="session")
def many_to_many(tmp_path_factory):
    """The tiny many-to-many model of a family (m2m100, nllb, mbart50), trained 300 steps once a process and shared
    by the modules that only read it (each took ten seconds to train, and three modules trained m2m100's)."""
    from .hf_helpers import tiny_many_to_many

    trained = {}

    def folder(family: str):
        if family not in trained:
            trained[family] = tiny_many_to_many(tmp_path_factory.mktemp(family), family, steps=300)
        return trained[family]

    return folder


@pytest.fixture(scope="session")
def multi30k_2016():
    """sacreBLEU's multi30k/2016 laid in the tests' cache as its downloader leaves it: under
    ``$SACREBLEU/multi30k/2016/raw/`` the tarball it fetched and the files it extracted, the English and French
    captions (synthetic ones, 70: more than a batch), so sacreBLEU's own code finds it and reads it offline.
    Returns the (English, French) lines."""
    import io
    import tarfile

    from sacrebleu.dataset import DATASETS

    dataset = DATASETS["multi30k/2016"]
    raw = os.path.join(os.environ["SACREBLEU"], "multi30k", "2016", "raw")
    os.makedirs(raw, exist_ok=True)
    pairs = synthetic_pairs(70, 5)
    tarball = io.BytesIO()
    with tarfile.open(fileobj=tarball, mode="w:gz") as tar:
        for lang, col in (("en", 0), ("fr", 1)):
            data = "".join(p[col] + "\n" for p in pairs).encode()
            with open(os.path.join(raw, f"test_2016_flickr.{lang}"), "wb") as f:
                f.write(data)
            info = tarfile.TarInfo(f"test_2016_flickr.{lang}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with open(os.path.join(raw, dataset._get_tarball_filename(dataset.data[0])), "wb") as f:
        f.write(tarball.getvalue())
    return [p[0] for p in pairs], [p[1] for p in pairs]


@pytest.fixture
def http_files():
    """A loopback HTTP server of files by path (``files``, changeable while it runs): GET sends one, HEAD its
    Content-Length, an unknown path is a 404; ``asked`` records (method, path); ``base`` is its URL."""
    import http.server
    import threading
    from types import SimpleNamespace

    served = SimpleNamespace(files={}, asked=[])

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self, body: bool):
            served.asked.append((self.command, self.path))
            data = served.files.get(self.path)
            self.send_response(200 if data is not None else 404)
            self.send_header("Content-Length", str(len(data or b"")))
            self.end_headers()
            if body and data:
                self.wfile.write(data)

        def do_HEAD(self):
            self._answer(False)

        def do_GET(self):
            self._answer(True)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    served.base, served.stop = f"http://127.0.0.1:{server.server_port}", server.shutdown
    yield served
    server.shutdown()


#: The browser tests' human-aligned gold, two pairs (they never read ../shared).
E2E_GOLD = [("a dog runs .", "un chien court .", "1-1 2-2 3-3 4p4"),
            ("the black cat sleeps", "le chat noir dort", "1-1 2-3 3-2 4-4 3p3")]


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One app server for every browser test of a process: starting one and loading its models took each module
    as long as several of its tests."""
    from bench.server import Server

    gold = tmp_path_factory.mktemp("gold")
    for ext, column in (("en", 0), ("fr", 1), ("gold", 2)):
        (gold / f"test.{ext}").write_text("\n".join(p[column] for p in E2E_GOLD) + "\n")
    with Server(env={"ATLAS_GOLD": str(gold)}) as srv:
        yield srv.url


@pytest.fixture(scope="module")
def browser():
    """One Chromium for a module's tests (Playwright's sync API runs one instance at a time in a thread, and some
    tests start their own: so a browser lives no longer than its module); a test opens its own tabs in it."""
    from playwright import sync_api

    from bench.server import CHROMIUM, CHROMIUM_ARGS

    with sync_api.sync_playwright() as p:
        found = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield found
        found.close()


@pytest.fixture(scope="module")
def page(browser):
    """A browser tab for a module's tests."""
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    tab.set_default_timeout(90_000)
    yield tab
    tab.close()


@pytest.fixture
def emulated(monkeypatch):
    """A CPU without AVX512-BF16 or AMX, whatever this one has."""
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
