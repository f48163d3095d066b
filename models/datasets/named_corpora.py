"""Training corpora by name, fetched once and laid out in the cache as a data folder (``train`` and ``val`` splits,
``{split}.{lang}.gz``) that ``models.train`` reads like any other:

- ``opus:CORPUS`` — any corpus OPUS holds for the run's pair (``opus:Tatoeba``, ``opus:Europarl``,
  ``opus:News-Commentary``, …), its latest release in Moses format (one sentence a line), through OpusTools,
  OPUS's own downloader: its packaged index says, offline, which file holds the pair and how large it is, and its
  ``OpusGet`` downloads it with progress. ``ATLAS_OPUS_URL`` stands in for OPUS's storage (a mirror, a test's
  loopback server). OPUS ships no validation split, so :data:`VAL_SOURCES` source sentences, drawn with a fixed seed,
  are held out as one, each with its first translation; every other pair trains.
- ``multi30k`` — the image captions of Multi30k task 1. No downloader indexes them (not OPUS, not mtdata; sacreBLEU
  has their test sets only), so their files come from the dataset's own repository at a pinned commit
  (``ATLAS_MULTI30K_URL``), each checked against its SHA-256: the same bytes as the data folder's copy.

mtdata, the other downloader made for MT data, is not used: it unpickles its index from its cache and, building
it, imports any ``mtdata*.py`` of the working directory; this project unpickles nothing.
"""
from __future__ import annotations

import gzip
import os
import shutil
import tempfile
import zipfile
from pathlib import Path

import numpy as np

from ..storage.languages import Languages, language_key, pair_name
from ..storage.pieces import default_cache_dir
from .fetch import FetchError, fetch_pinned

OPUS, MULTI30K = "opus:", "multi30k"
OPUS_SETTING, MULTI30K_SETTING = "ATLAS_OPUS_URL", "ATLAS_MULTI30K_URL"
OPUS_STORAGE = "https://object.pouta.csc.fi"  # where OPUS's index says its files are
MULTI30K_COMMIT = "a3d2e0d26b56f3846f66a952536ffed4e401d05a"  # github.com/multi30k/dataset
MULTI30K_URL = f"https://raw.githubusercontent.com/multi30k/dataset/{MULTI30K_COMMIT}/data/task1/raw"
MULTI30K_FILES = {  # {split}.{lang}.gz -> SHA-256
    "train.en.gz": "d79cfa999dd4c51d2cb42499b6796d5a882c3a8a961923c25a898c90f8bbd56f",
    "train.fr.gz": "622e75069e9f4c577425c4f277116ce66e63a2401c0a2312d90073cb12379a3c",
    "val.en.gz": "14f7d25ddd868909a9213e361768460edcacdd6ab9d1e77b92560dc10c10dc28",
    "val.fr.gz": "ca3106f1a72390591d25f6c45cb4cd39dec4cd3f123e099748a3ce5256c160e9",
}
VAL_SOURCES = 1_000  # source sentences held out of an OPUS corpus to validate on
SEED = 0


class NamedCorpusError(ValueError):
    """A training corpus by name that cannot be had; the message says why, for users."""


def is_named(spec: str) -> bool:
    return spec.startswith(OPUS) or spec.split(":", 1)[0] == MULTI30K


def resolve(spec: str, languages: tuple[str, str]) -> str:
    """``spec`` with a corpus's name replaced by its folder in the cache, fetched first if need be:
    ``opus:Tatoeba:weight=2`` → ``…/corpora/opus-Tatoeba-v2022-03-03-en-fr:weight=2``; any other spec as given."""
    if not is_named(spec):
        return spec
    if spec.startswith(OPUS):
        name, _, options = spec.removeprefix(OPUS).partition(":")
        folder = _opus(name, languages)
    else:
        _, _, options = spec.partition(":")
        folder = _multi30k(languages)
    return str(folder) + (f":{options}" if options else "")


def _corpora_dir() -> Path:
    return default_cache_dir() / "corpora"


def _multi30k(languages: Languages) -> Path:
    if {language_key(code) for code in languages} != {"en", "fr"}:
        raise NamedCorpusError(f"multi30k by name is its English–French captions; this run translates "
                               f"{pair_name(languages)}.")
    base = os.environ.get(MULTI30K_SETTING, "").strip() or MULTI30K_URL
    folder = _corpora_dir() / MULTI30K
    try:
        for filename, digest in MULTI30K_FILES.items():
            fetch_pinned(f"{base}/{filename}", digest, folder / filename, f"multi30k's {filename}", MULTI30K_SETTING)
    except FetchError as e:
        raise NamedCorpusError(str(e)) from e
    return folder


def _opus_entry(getter, name: str) -> dict:
    """The OPUS file of ``name`` for the getter's pair, from OpusTools' packaged index (no network)."""
    found = [c for c in getter.dbo.get_corpora(getter.parameters) if c["url"].endswith(".txt.zip")]
    if found:
        return found[0]
    pair = {k: v for k, v in getter.parameters.items() if k != "corpus"}
    offered = sorted({c["corpus"] for c in getter.dbo.get_corpora(pair)})
    hint = f" OPUS has {len(offered)} for it: {', '.join(offered[:12])}{', …' if len(offered) > 12 else ''}." \
        if offered else " OPUS has none for that pair."
    raise NamedCorpusError(f"OPUS has no corpus {name!r} for {getter.parameters['source']}–"
                           f"{getter.parameters['target']} in Moses format.{hint}")


def _opus(name: str, languages: tuple[str, str]) -> Path:
    """The folder of OPUS corpus ``name`` for ``languages``, downloaded and split the first time."""
    from opustools import OpusGet  # only a run that names an OPUS corpus needs it

    cache = _corpora_dir() / "opus-downloads"
    cache.mkdir(parents=True, exist_ok=True)
    getter = OpusGet(source=languages[0], target=languages[1], directory=name, release="latest",
                               preprocess="moses", download_dir=str(cache), local_db=True, suppress_prompts=True,
                               database=str(cache / "opusdata.db"))
    entry = _opus_entry(getter, name)
    first, second = entry["source"], entry["target"]  # OPUS's order, alphabetical: en-fr for fr-en too
    folder = _corpora_dir() / f"opus-{entry['corpus']}-{entry['version']}-{languages[0]}-{languages[1]}"
    if (folder / "val.done").exists():
        return folder
    base = os.environ.get(OPUS_SETTING, "").strip()
    if base:
        entry = {**entry, "url": entry["url"].replace(OPUS_STORAGE, base.rstrip("/"), 1)}
    archive = Path(getter.make_file_name(entry))
    if not archive.is_file():
        _download(getter, entry, archive)
    try:
        with zipfile.ZipFile(archive) as z:
            sides = {lang: z.read(f"{entry['corpus']}.{first}-{second}.{lang}").decode("utf-8").splitlines()
                     for lang in (first, second)}
    except (zipfile.BadZipFile, KeyError) as e:
        archive.unlink(missing_ok=True)
        raise NamedCorpusError(f"{archive.name} from OPUS is not the Moses archive expected ({e}); it was deleted, "
                               "so the next run fetches it again.") from e
    by_language = {language_key(lang): lines for lang, lines in sides.items()}
    _write_splits(folder, languages, *(by_language[language_key(lang)] for lang in languages))
    return folder


def _download(getter, entry: dict, archive: Path) -> None:
    """OpusGet's download of ``entry`` (its progress on stdout) into a folder of this process's, then moved to
    ``archive`` whole: two processes fetching it at once (torchrun) never read half a file."""
    with tempfile.TemporaryDirectory(dir=archive.parent) as tmp:
        getter.download_dir = tmp
        getter.download([entry], getter.format_size(entry["size"]))
        fetched = Path(getter.make_file_name(entry))
        getter.download_dir = str(archive.parent)
        if not fetched.is_file():  # OpusGet prints a failed download and returns
            raise NamedCorpusError(f"{entry['corpus']} could not be fetched from {entry['url']}. Connect to the "
                                   f"internet once, or set {OPUS_SETTING} to a mirror of OPUS's storage.")
        os.replace(fetched, archive)


def _write_splits(folder: Path, languages: tuple[str, str], sources: list[str], targets: list[str]) -> None:
    """``train`` and ``val`` of the pairs as a data folder: :data:`VAL_SOURCES` source sentences (drawn with
    :data:`SEED`) and their first translations validate, every pair of the other sources trains."""
    if len(sources) != len(targets) or not sources:
        raise NamedCorpusError(f"{folder.name}: {len(sources):,} source lines but {len(targets):,} target lines")
    distinct = sorted(set(sources))
    held = set(np.random.default_rng(SEED).permutation(len(distinct))[:VAL_SOURCES].tolist())
    held_out = {distinct[i] for i in held}
    val, seen = [], set()
    for s, t in zip(sources, targets):
        if s in held_out and s not in seen:
            seen.add(s)
            val.append((s, t))
    train = [(s, t) for s, t in zip(sources, targets) if s not in held_out]
    partial = Path(tempfile.mkdtemp(dir=folder.parent, prefix=folder.name + "."))
    for split, pairs in (("train", train), ("val", val)):
        for lang, column in zip(languages, (0, 1)):
            with gzip.open(partial / f"{split}.{lang}.gz", "wt", encoding="utf-8") as f:
                f.write("".join(pair[column] + "\n" for pair in pairs))
    (partial / "val.done").write_text(f"{len(train)} train, {len(val)} val\n", encoding="utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(partial, folder)
