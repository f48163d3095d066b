"""Every command line README gives runs as written, with the interpreter README's install makes: each is read from
README itself (its code blocks and its inline commands), its data by name served from loopback mirrors in each
source's own layout (Multi30k's files, OPUS's Moses archive, sacreBLEU's SGML tarballs, awesome-align's and the
Berkeley Aligner's gold), and run in a scratch folder; only what time demands is narrowed (NARROWED), by name."""
import contextlib
import hashlib
import importlib
import io
import json
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from models.storage.hub import BUNDLED_DIR

from .helpers import synthetic_pairs
from .test_test_sets import sgml_tarball
from .test_train import SMALL

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
PYTHON = ".venv/bin/python"
#: What each line's placeholders stand for here, and what time demands is narrowed: a run of a few steps at the
#: tests' sizes, two cheap matrices for every one, two sentences for a hundred.
PLACEHOLDERS = {"NAME": "bundled-copy", "DIR": "rows"}  # a copy: what a line records, it records there
NARROWED = {"--minutes 60": "--minutes 60 --steps 2 " + " ".join(SMALL), "--matrix all": "--matrix attention "
            "gradient×input", "--sentences 100": "--sentences 2"}


def readme_commands() -> list[str]:
    """README's command lines that run a module of models/: code-block lines (their comment cut) and inline ones."""
    found = [line.split("  #")[0].strip() for line in README.splitlines()
             if line.startswith("    ") and f"{PYTHON} -m models." in line]
    inline = [" ".join(span.split()) for span in re.findall(r"`([^`]+)`", README) if span.startswith(f"{PYTHON} -m")]
    return found + inline


def test_readme_names_its_commands_with_the_venvs_python_only():
    commands = readme_commands()
    assert len(commands) >= 10 and all(PYTHON in c for c in commands)
    assert not re.search(r"(^|[\s`])python -m ", README)  # a bare python: outside the venv it has no torch
    assert "../shared" not in README.split("## Data and licences")[0]  # a user has no ../shared


@pytest.fixture
def sacrebleu_sets(http_files, monkeypatch, multi30k_2016):
    """sacreBLEU's newstest2013 and newstest2014 (en-fr) as its downloader fetches them, from the loopback server."""
    from sacrebleu.dataset import DATASETS

    for name in ("wmt13", "wmt14"):
        dataset = DATASETS[name]
        data = sgml_tarball(dataset.langpairs["en-fr"], [e for e, _ in synthetic_pairs(6, 8)])
        http_files.files[f"/{name}.tgz"] = data
        monkeypatch.setattr(dataset, "data", [f"{http_files.base}/{name}.tgz"])
        monkeypatch.setattr(dataset, "md5", [hashlib.md5(data).hexdigest()])


def run_line(line: str, monkeypatch) -> None:
    """One README line, narrowed, its module's ``main`` run in this process (its stdin the echo piped into it)."""
    for was, now in {**NARROWED, **PLACEHOLDERS}.items():
        line = re.sub(rf"(?<![\w-]){re.escape(was)}(?![\w-])", now, line)
    piped, _, command = line.rpartition(" | ")
    words = shlex.split(command)
    assert words[:2] == [PYTHON, "-m"], line
    monkeypatch.setattr(sys, "stdin", io.StringIO(shlex.split(piped)[1] + "\n" if piped else ""))
    module = importlib.import_module(words[2])
    main = getattr(module, "main", None) or importlib.import_module(f"{words[2]}.cli").main
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(words[3:]) in (0, None), line


@pytest.mark.usefixtures("few_examples")
def test_every_readme_command_runs_as_written(opus, multi30k, mirror, sacrebleu_sets, tmp_path,  # noqa: F811
                                              monkeypatch):
    monkeypatch.chdir(tmp_path)  # what a line writes (my-model, table.csv, my-fit, rows) lands here
    shutil.copytree(BUNDLED_DIR / "en-fr-additive", tmp_path / "bundled-copy")
    lines = readme_commands()
    for line in lines:
        run_line(line, monkeypatch)
    assert (tmp_path / "my-model" / "evaluation.json").is_file() and (tmp_path / "table.csv").is_file()
    assert (tmp_path / "my-fit" / "probe.json").is_file() and any((tmp_path / "rows").iterdir())
    tests = json.loads((tmp_path / "bundled-copy" / "evaluation.json").read_text(encoding="utf-8"))["test_sets"]
    assert {"sacrebleu:multi30k/2016", "sacrebleu:wmt13"} <= {t["data"] for t in tests}
