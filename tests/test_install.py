"""The app's install is complete: every package that models/ and pages/ import, at the top or inside a function,
is installed by ``requirements-app.txt``, or is an optional extra (``models/extras.py``) installed by
``requirements-extras.txt`` and reached only through :func:`models.extras.require`, with its sentence when missing."""
import ast
import importlib.metadata
import re
import sys
from pathlib import Path

import pytest

from models import extras
from models.align import statistical

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [ROOT / "app.py", ROOT / "serve.py", *sorted((ROOT / "models").rglob("*.py")),
           *sorted((ROOT / "pages").rglob("*.py"))]
OURS = {"models", "pages", "__future__"}


def normalised(name: str) -> str:
    """A distribution's name as PEP 503 compares them (``PyYAML`` and ``pyyaml``, ``language_data`` and
    ``language-data`` are one)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def required(path: Path) -> set[str]:
    """The distributions a requirements file names itself (its ``-r`` includes are not followed)."""
    names = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            names.add(normalised(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]))
    return names


def third_party_imports(path: Path) -> set[str]:
    """The top-level names of the modules ``path`` imports from outside the project and the standard library."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found - OURS - set(sys.stdlib_module_names)


IMPORTED = sorted(set().union(*(third_party_imports(p) for p in SOURCES)))
APP = required(ROOT / "requirements-app.txt")


@pytest.mark.parametrize("module", IMPORTED)
def test_every_imported_package_is_installed_by_the_apps_requirements(module):
    distributions = {normalised(d) for d in importlib.metadata.packages_distributions().get(module, [])}
    assert distributions, f"{module} is imported but no installed distribution provides it"
    assert distributions & APP, f"{module} comes from {distributions}, which requirements-app.txt does not name"


def imported_in(*paths: Path) -> set[str]:
    return set().union(*(third_party_imports(p) for p in paths))


def test_the_scan_sees_imports_inside_functions():
    """storage/loading/hf.py imports transformers only when a Hugging Face model is loaded. (What transformers itself needs,
    sentencepiece for Marian's tokenizer, no scan sees: CI loads a Marian in a venv of the app's install alone.)"""
    source = (ROOT / "models" / "storage" / "loading" / "hf.py").read_text(encoding="utf-8")
    assert "\nimport transformers" not in source and "\nfrom transformers" not in source
    assert "transformers" in imported_in(ROOT / "models" / "storage" / "loading" / "hf.py")


def test_the_extras_are_imported_only_through_require():
    assert not imported_in(*SOURCES) & set(extras.EXTRAS)


def test_the_extras_file_installs_exactly_the_extras():
    assert required(ROOT / "requirements-extras.txt") == {normalised(e.distribution) for e in extras.EXTRAS.values()}
    assert not APP & required(ROOT / "requirements-extras.txt")


@pytest.mark.parametrize("module", sorted(extras.EXTRAS))
def test_a_missing_extra_is_a_sentence_that_says_how_to_install_it(module, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # an import of it now fails, as when it is not installed
    assert not extras.available(module)
    with pytest.raises(extras.MissingExtra) as caught:
        extras.require(module)
    assert str(caught.value) == extras.EXTRAS[module].message
    assert "pip install -r requirements-extras.txt" in str(caught.value) and "\n" not in str(caught.value)


def test_the_statistical_aligner_without_its_extra_exits_with_the_sentence(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "eflomal", None)
    for ext, text in (("en", "a dog"), ("fr", "un chien"), ("gold", "1-1 2-2")):
        (tmp_path / f"test.{ext}").write_text(text + "\n", encoding="utf-8")
    with pytest.raises(SystemExit) as caught:
        statistical.main(["--data", str(tmp_path)])
    assert str(caught.value) == f"error: {extras.EXTRAS['eflomal'].message}"


def test_the_packages_extras_name_each_optional_extra_as_requirements_extras_pins_it():
    import tomllib

    extras_of = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    named = {normalised(re.split(r"[<>=!~\[; ]", line, maxsplit=1)[0]): line
             for lines in extras_of.values() for line in lines}
    pinned = {normalised(line.split("#", 1)[0].split(">", 1)[0].split("<", 1)[0].strip()): line.split("#", 1)[0]
              .strip() for line in (ROOT / "requirements-extras.txt").read_text().splitlines()
              if line.strip() and not line.startswith(("#", "-"))}
    assert set(named) == {normalised(e.distribution) for e in extras.EXTRAS.values()} == set(pinned)
    assert all(named[name].replace(",", "") == pinned[name].replace(",", "") for name in named)


def test_a_wheel_carries_every_bundled_file_the_product_reads():
    """pyproject's data-files name every tracked file of assets/ the product reads — the checkpoints' folders and
    the records beside them, not the README's screenshots or the training runs' notes — so that a wheel's atlas
    loads each bundled model offline."""
    import subprocess
    import tomllib

    data_files = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["data-files"]
    shipped = {p.relative_to(ROOT).as_posix() for patterns in data_files.values() for pattern in patterns
               for p in ROOT.glob(pattern) if p.is_file()}
    tracked = subprocess.run(["git", "ls-files", "assets"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    read = {p for p in tracked if not p.startswith(("assets/screenshots/", "assets/training/"))}
    assert read and shipped == read
    assert all(target == "share/attention-atlas/" + Path(patterns[0]).parent.as_posix()
               for target, patterns in data_files.items())
