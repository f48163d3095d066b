"""Loopback mirrors of the public sources data comes from by name, in each source's own layout: the human-aligned
gold (awesome-align's ``src-tgt``/``gold`` files, the Berkeley Aligner's trial pairs), OPUS (its Moses archive) and
Multi30k (its pinned files). Each fixture points its source's setting at a local server (``http_files``) and pins
the digests to what it serves; the tests that fetch by name ask for one (``tests/conftest.py`` offers them)."""
import gzip
import hashlib
import io
import zipfile
from dataclasses import replace

import pytest

from models.datasets import gold_sets, named_corpora

from .helpers import synthetic_pairs

ENFR = [("a dog runs .", "un chien court .", "1-1 2-2 3-3 4p4"),
        ("the black cat sleeps", "le chat noir dort", "1-1 2-3 3-2 4-4 3p3"),
        ("two men", "deux hommes", "2-2 1-1")]
ROEN = [(f"unu doi {n}", f"one two {n}", "1-1 2-2 3p3") for n in range(20)]


#: The Hansards' trial pairs, as the Berkeley Aligner publishes them: ``<s snum=N>`` lines, 0-based French-English
#: links with -P for Possible; and the same pairs in the gold's own format.
TRIAL = [("<s snum=1001> the house rose . </s>", "<s snum=1001> la chambre se lève . </s>", "0-0 1-1 2-2-P 3-2 4-3"),
         ("<s snum=1002> thank you </s>", "<s snum=1002> merci </s>", "0-0-P 0-1"),
         *((f"<s snum={1003 + n}> {e} </s>", f"<s snum={1003 + n}> {f} </s>",  # a reversed order, word for word
            " ".join(f"{len(e.split()) - 1 - i}-{i}" for i in range(len(e.split()))))
           for n, (e, f) in enumerate(synthetic_pairs(8, 30)))]
TRIAL_GOLD = ["1-1 2-2 3p3 3-4 4-5", "1p1 2-1", *(" ".join(f"{i + 1}-{len(e.split()) - i}" for i in range(len(e.split())))
                                                 for e, _ in synthetic_pairs(8, 30))]


def berkeley_layout(pairs) -> dict[str, bytes]:
    return {name: "".join(f"{p[n]}\n" for p in pairs).encode() for n, name in enumerate(("e", "f", "align"))}


def layout(pairs) -> dict[str, bytes]:
    """awesome-align's two files of a set: ``source ||| target`` a line, and the links."""
    return {"src-tgt": "".join(f"{s} ||| {t}\n" for s, t, _ in pairs).encode(),
            "gold": "".join(f"{g}\n" for _, _, g in pairs).encode()}


@pytest.fixture
def mirror(monkeypatch, tmp_path, http_files):
    """A loopback server in awesome-align's layout (enfr.*, roen.*), the pins set to its files, an empty cache."""
    files = http_files.files
    files.update({f"/examples/{stem}.{ext}": data for stem, pairs in (("enfr", ENFR), ("roen", ROEN))
                  for ext, data in layout(pairs).items()})
    files.update({f"/dev/trial.{ext}": data for ext, data in berkeley_layout(TRIAL).items()})
    asked = http_files.asked

    def digests(folder: str, names) -> tuple[str, ...]:
        return tuple(hashlib.sha256(files[f"/{folder}/{f}"]).hexdigest() for f in names)

    pinned = tuple(replace(g, sha256=digests("examples", g.files), trial=g.trial and replace(
        g.trial, sha256=digests("dev", g.trial.files))) if g.stem in ("enfr", "roen") else g
        for g in gold_sets.GOLD_SETS)
    monkeypatch.setattr(gold_sets, "GOLD_SETS", pinned)
    monkeypatch.setenv("ATLAS_GOLD_URL", f"{http_files.base}/examples")
    monkeypatch.setenv("ATLAS_GOLD_TRIAL_URL", f"{http_files.base}/dev")
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    yield files, asked, http_files
    import streamlit as st

    st.cache_data.clear()  # the pages' cached pairs of these stand-in files must not reach another test


TATOEBA = "/OPUS-Tatoeba/v2022-03-03/moses/en-fr.txt.zip"  # what OpusTools' index names for en-fr


def moses_zip(pairs) -> bytes:
    """OPUS's Moses archive of a corpus: ``Tatoeba.en-fr.en`` and ``Tatoeba.en-fr.fr``, a sentence a line."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("Tatoeba.en-fr.en", "".join(s + "\n" for s, _ in pairs))
        z.writestr("Tatoeba.en-fr.fr", "".join(t + "\n" for _, t in pairs))
        z.writestr("README", "OPUS")
    return out.getvalue()


@pytest.fixture
def opus(http_files, monkeypatch, tmp_path):
    pairs = synthetic_pairs(400, 11) + [("a dog runs .", "un chien court ."), ("a dog runs .", "un chien court !")]
    http_files.files[TATOEBA] = moses_zip(pairs)
    monkeypatch.setenv("ATLAS_OPUS_URL", http_files.base)
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(named_corpora, "VAL_SOURCES", 20)
    return pairs, http_files


@pytest.fixture
def multi30k(http_files, monkeypatch, tmp_path):
    """The four task-1 files of a stand-in Multi30k on a loopback mirror, the pins set to them."""
    files = {}
    for split, n in (("train", 200), ("val", 20)):
        pairs = synthetic_pairs(n, 3)
        for lang, column in (("en", 0), ("fr", 1)):
            files[f"{split}.{lang}.gz"] = gzip.compress("".join(p[column] + "\n" for p in pairs).encode())
    http_files.files.update({f"/raw/{name}": data for name, data in files.items()})
    monkeypatch.setattr(named_corpora, "MULTI30K_FILES", {n: hashlib.sha256(d).hexdigest() for n, d in files.items()})
    monkeypatch.setenv("ATLAS_MULTI30K_URL", f"{http_files.base}/raw")
    monkeypatch.setenv("ATLAS_CACHE", str(tmp_path / "cache"))
    return files
