"""README.md: the first minute stays short, gives CI's own test command, and every link it gives resolves."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_it_reads_in_two_minutes():
    assert len(README.splitlines()) <= 150


def test_its_test_command_is_the_one_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    command = next(line for line in ci.splitlines() if "pytest" in line and not line.startswith("#"))
    assert command.strip() in README


def test_its_local_links_resolve():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target
    for doc in (ROOT / "docs").glob("*.md"):
        for target in re.findall(r"\]\(([^)#]+)\)", doc.read_text(encoding="utf-8")):
            if not target.startswith("http"):
                assert (doc.parent / target).exists(), f"{doc.name}: {target}"
