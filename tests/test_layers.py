"""models/: imports only go down the layers, and nothing below the UI imports Streamlit."""
import ast
from pathlib import Path

import pytest

MODELS = Path(__file__).resolve().parent.parent / "models"
MAY_IMPORT = {  # layer -> layers of models/ it may import ("" = the package root, models/__init__.py)
    "network": {"network"},
    "decoding": {"decoding", "network"},
    "analysis": {"analysis", "decoding", "network"},
    "storage": {"storage", "decoding", "network", ""},
    "train": {"train", "storage", "decoding", "network"},  # the training command, a package of its own
    "align": {"align", "storage", "analysis", "decoding", "network"},  # the alignment command, a package
    "bench": {"bench", "storage", "analysis", "decoding", "network", ""},  # the lab: nothing imports it
}


def imported_layers(path: Path) -> set[str]:
    """The models/ layers a module imports ("tools" for the top-level command-line modules, a package's name for
    the modules of a command that is a package)."""
    package = path.parent.relative_to(MODELS.parent).parts  # ("models", layer?)
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                target = package[: len(package) - node.level + 1] + tuple((node.module or "").split("."))
            else:
                target = tuple((node.module or "").split("."))
            if target[0] == "models":
                inner = [p for p in target[1:] if p]
                found.add(inner[0] if inner and (MODELS / inner[0]).is_dir() else "" if not inner else "tools")
    return found


@pytest.mark.parametrize("layer", sorted(MAY_IMPORT))
def test_imports_only_go_down(layer):
    for path in (MODELS / layer).glob("*.py"):
        assert imported_layers(path) <= MAY_IMPORT[layer], path.name


def test_no_streamlit_below_the_ui():
    for path in MODELS.rglob("*.py"):
        names = {a.name for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module or "" for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.ImportFrom)}
        assert not any(name.split(".")[0] == "streamlit" for name in names), path


def test_the_checker_sees_an_upward_import():
    assert imported_layers(MODELS / "analysis" / "alignment.py") == {"decoding", "network"}
    assert imported_layers(MODELS / "bench" / "rehearsal.py") == {"bench"}
    assert imported_layers(MODELS / "train" / "__init__.py") == {"train"}


def test_nothing_imports_the_lab():
    for path in [*MODELS.rglob("*.py"), *(MODELS.parent / "pages").rglob("*.py"), MODELS.parent / "app.py"]:
        if "bench" not in path.relative_to(MODELS.parent).parts:
            assert "bench" not in imported_layers(path), path
