"""Mutation testing: how many small deliberate bugs in a module its tests notice (``python -m bench mutants``).

Built on mutmut 3 (PyPI). Chosen over cosmic-ray because it runs each mutant's tests in a process forked from one
that has already imported torch and collected the tests (``process_isolation = "forkserver"``, safe with torch), and
only the tests that reach the mutated function (on this project's 2-core machine 0.2–0.3 mutants a second for the
alignment rules and the piece cache, whose tests decode and train tiny models; docs/testing.md). cosmic-ray starts a
fresh test command per mutant: here a warm `pytest tests/test_aer.py` takes 2.1 s for 0.27 s of tests, every time.

The project is copied into ``.bench/mutants/MODULE/``, one folder a module (git-ignored; mutmut writes its
``mutants/`` tree and results there). A run stopped part-way goes on where it stopped; once the code or the
module's tests change, every mutant is tested again (a new test can kill a mutant whose function did not change).
A module is tested by the test files that import it at their top, found by reading ``tests/``. Each mutant ends:

- killed: a test failed; timed out: the tests ran past mutmut's limit (CI would hang and go red too);
- survived: every test passed; no tests: no selected test reaches the mutated function (counted as survived);
- equivalent: a survivor listed in ``bench/equivalent_mutants.toml`` with the reason it cannot change behaviour
  (the line it mutates is kept too, so an entry whose mutant has changed is reported stale, not trusted).

Score = (killed + timed out) / (mutants − equivalent − not run); ``--report`` prints the last run's table, a run
stopped part-way counting its untested mutants as not run.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKDIR = ROOT / ".bench" / "mutants"
EQUIVALENT_FILE = Path(__file__).with_name("equivalent_mutants.toml")

#: Where a silent bug changes what the app claims: alignment rules and AER, readings, head switching, the token-id
#: cache, the exports, BLEU with its by-length buckets and verdict, decoding.
TARGETS = ("models/analysis/word_links.py", "models/nouns/link_rule.py", "models/analysis/aer.py",
           "models/nouns/attention_map.py", "models/analysis/head_removal.py", "models/network/multihead.py",
           "models/storage/pieces.py",
           "models/analysis/bertviz_export.py", "models/analysis/heatmaps.py", "pages/_shared/cache.py",
           "models/evaluate.py", "models/analysis/lengths.py", "models/decoding/greedy.py",
           "models/decoding/beam.py")
DETECTED = {"killed", "timeout"}
#: The fixtures and helpers the test files share: a change to one can change any module's results.
SHARED_BY_TESTS = ("tests/conftest.py", "tests/helpers.py", "tests/pages_helpers.py")
#: Test files never run on mutants, with the reason.
LEFT_OUT = {"tests/test_e2e_browser.py": "it starts a Streamlit server and Chromium: minutes for every mutant"}


def dotted(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


def covering_tests(module: str) -> list[str]:
    """The test files that import ``module`` at their top (``import a.b.c``, ``from a.b.c import …`` or
    ``from a.b import c``): the tests about it, not every test that reaches it through a function's own import (a
    surviving mutant runs every selected test that reaches it, and those include trainings of minutes). But for
    :data:`LEFT_OUT`."""
    name = dotted(module)
    package, _, leaf = name.rpartition(".")
    pattern = re.compile(rf"^(import|from)\s+{re.escape(name)}\b"
                         rf"|^from\s+{re.escape(package)}\s+import\s+[^\n]*\b{leaf}\b", re.MULTILINE)
    found = (str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py") if pattern.search(p.read_text()))
    return sorted(set(found) - set(LEFT_OUT))


def workdir(module: str) -> Path:
    return WORKDIR / dotted(module)


def sync_copy(folder: Path) -> set[str]:
    """Make ``folder`` hold the tracked files as they are now; the ones that changed."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    changed = set()
    for name in filter(None, tracked.decode().split("\0")):
        source, target = ROOT / name, folder / name
        if not source.is_file():
            continue
        if not target.exists() or target.read_bytes() != source.read_bytes():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
            changed.add(name)
    return changed


def outdates(changed: str, tests: list[str]) -> bool:
    """Whether a changed file can change how a module's mutants end: any code, the tests run, or their helpers."""
    return changed.startswith(("models/", "pages/")) or changed in tests or changed in SHARED_BY_TESTS


def configure(folder: Path, module: str, tests: list[str]) -> None:
    """The copy's ``[tool.mutmut]``: mutate ``module`` only, and run ``tests``."""
    also = sorted(set(os.listdir(folder)) - {"models", "pages", "mutants", "pyproject.toml"})
    quoted = lambda items: "[" + ", ".join(json.dumps(i) for i in items) + "]"  # noqa: E731
    (folder / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text() + f"""
[tool.mutmut]
source_paths = ["models", "pages"]
only_mutate = {quoted([module])}
also_copy = {quoted(also)}
pytest_add_cli_args_test_selection = {quoted(tests)}
process_isolation = "forkserver"
""")


def results(module: str) -> dict[str, str]:
    """Each mutant of ``module`` and how it ended, from mutmut's record."""
    from mutmut.stats import status_by_exit_code

    meta = workdir(module) / "mutants" / f"{module}.meta"
    codes = json.loads(meta.read_text())["exit_code_by_key"] if meta.exists() else {}
    return {name: status_by_exit_code[code] for name, code in codes.items()}


def mutated_line(module: str, name: str) -> str:
    """The line a mutant writes (the first ``+`` line of ``mutmut show``)."""
    shown = subprocess.run([sys.executable, "-m", "mutmut", "show", name], cwd=workdir(module), capture_output=True,
                           text=True).stdout
    return next((line[1:].strip() for line in shown.splitlines() if line.startswith("+") and
                 not line.startswith("+++")), "")


def equivalents() -> dict[str, dict]:
    return tomllib.loads(EQUIVALENT_FILE.read_text()) if EQUIVALENT_FILE.exists() else {}


def run_module(module: str, children: int, report: bool = False) -> dict:
    tests = covering_tests(module)
    if not tests:
        raise SystemExit(f"error: no test file imports {dotted(module)}")
    folder = workdir(module)
    folder.mkdir(parents=True, exist_ok=True)
    if not report:
        if any(outdates(name, tests) for name in sync_copy(folder)):
            shutil.rmtree(folder / "mutants", ignore_errors=True)  # mutmut's record of the code as it was
        configure(folder, module, tests)
    print(f"{module}: mutants tested by {', '.join(tests)}", file=sys.stderr, flush=True)
    if not report:
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(children)], cwd=folder,
                       stdout=sys.stderr, check=True)  # mutmut's progress line, beside this command's table
    ended, known = results(module), equivalents()
    counts, survivors = Counter(ended.values()), []
    for name, status in sorted(ended.items()):
        if status in DETECTED or status == "not checked":
            continue
        entry, line = known.get(name), mutated_line(module, name)
        if entry and status == "survived" and line == entry["line"]:
            counts["equivalent"] += 1
            continue
        survivors.append((name, status, line, bool(entry)))
    judged = len(ended) - counts["equivalent"] - counts["not checked"]
    score = 100 * (counts["killed"] + counts["timeout"]) / judged if judged else 100.0
    return {"module": module, "tests": tests, "mutants": len(ended), "killed": counts["killed"],
            "timed out": counts["timeout"], "survived": counts["survived"] - counts["equivalent"],
            "no tests": counts["no tests"], "not run": counts["not checked"],
            "other": len(ended) - sum(counts[k] for k in ("killed", "timeout", "survived", "no tests", "not checked")),
            "equivalent": counts["equivalent"], "score %": round(score, 1), "survivors": survivors}


def bench_mutants(modules: list[str], children: int, report: bool = False) -> None:
    """Mutate each module in turn (or with ``report``, read what the last run found), print a row for each and every
    non-equivalent survivor."""
    modules = modules or list(TARGETS)
    for module in modules:
        if not (ROOT / module).is_file() or not module.endswith(".py"):
            raise SystemExit(f"error: {module} is not a Python file of this project (give paths like "
                             "models/storage/pieces.py)")
    rows = [run_module(m, children, report) for m in modules]
    print(f"mutmut, {children} children, {os.cpu_count()} cores; "
          "score = (killed + timed out) / (mutants − equivalent − not run)")
    print("| module | mutants | killed | timed out | survived | no tests | other | equivalent | not run | score % |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['module']} | {r['mutants']} | {r['killed']} | {r['timed out']} | {r['survived']} | "
              f"{r['no tests']} | {r['other']} | {r['equivalent']} | {r['not run']} | {r['score %']} |")
    for r in rows:
        for name, status, line, stale in r["survivors"]:
            print(f"{status}: {name}: {line}" + (" (its equivalence entry names another line: stale)" * stale))
    detected = sum(r["killed"] + r["timed out"] for r in rows)
    judged = sum(r["mutants"] - r["equivalent"] - r["not run"] for r in rows)
    print(f"all: {detected} of {judged} non-equivalent mutants detected ({100 * detected / max(judged, 1):.1f} %)")
