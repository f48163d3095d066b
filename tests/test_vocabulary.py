"""One vocabulary: the project's nouns travel as objects (models/nouns), never as the names they are known by — no
parameter or field of the product holds a matrix or a rule by its name, no module name is used in two rooms, and a
noun copied by a cache or a worker comes back as the registry's own object."""
import ast
import pickle
from collections import defaultdict
from pathlib import Path

import pytest

from models.nouns.link_rule import METHODS, LinkRule
from models.nouns.matrix import ALIGNER, MATRICES, RANDOM, matrix_named

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = [*sorted((ROOT / "models").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")), ROOT / "app.py"]
BY_NAME = {"matrix", "method"}  # what was once passed as a name: a matrix, an attribution's or a link rule's method


def named_as_strings(path: Path) -> list[str]:
    """Each parameter, field or variable of ``path`` called ``matrix`` or ``method`` and annotated ``str`` (or
    ``str | None``), in line order. (A statistical aligner's row may say its direction in words beside a rule of
    ours, ``LinkRule | str``: that is no matrix or rule of ours passed by its name.)"""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.arg) and node.annotation is not None:
            name, annotation = node.arg, node.annotation
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name, annotation = node.target.id, node.annotation
        else:
            continue
        types = {n.id if isinstance(n, ast.Name) else n.value for n in ast.walk(annotation)
                 if isinstance(n, ast.Name) or isinstance(n, ast.Constant)}
        if name in BY_NAME and types - {None} == {"str"}:
            found.append((node.lineno, f"{path.name}:{node.lineno} {name}: {ast.unparse(annotation)}"))
    return [said for _, said in sorted(found)]


def test_no_matrix_or_method_travels_by_its_name():
    assert [line for path in PRODUCT for line in named_as_strings(path)] == []


def test_the_check_sees_a_name_passed_for_a_matrix(tmp_path):
    old = tmp_path / "old.py"
    old.write_text("def f(matrix: str = 'attention', method: str | None = None, rule: str = 'union'):\n    pass\n\n\n"
                   "class Row:\n    matrix: str\n    reading: str\n")
    assert named_as_strings(old) == ["old.py:1 matrix: str", "old.py:1 method: str | None", "old.py:6 matrix: str"]


def test_no_module_name_is_used_in_two_rooms():
    rooms = defaultdict(set)
    for path in (ROOT / "models").rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            inner = path.relative_to(ROOT / "models").parts
            rooms[path.stem].add(inner[0] if len(inner) > 1 else "the commands")
    assert {name: sorted(found) for name, found in rooms.items() if len(found) > 1} == {}


@pytest.mark.parametrize("matrix", [*MATRICES.values(), RANDOM, ALIGNER], ids=lambda m: m.slug)
def test_a_copied_matrix_is_the_registrys_own_and_a_record_names_it_back(matrix):
    assert pickle.loads(pickle.dumps(matrix)) is matrix  # what st.cache_data hands back is the object itself
    assert matrix_named(matrix.name) is matrix


def test_a_copied_link_rule_reads_as_the_original():
    for rule in (*METHODS.values(), LinkRule.at_least(0.2)):
        copy = pickle.loads(pickle.dumps(rule))
        assert copy == rule and str(copy) == str(rule) and copy.read is not None
    assert all(pickle.loads(pickle.dumps(rule)) is rule for rule in METHODS.values())
