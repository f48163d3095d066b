"""The command lines that records keep (``training.json``, ``evaluation.json``, ``alignment.json``, …): as typed,
but with every absolute path made relative to the project, so that nothing shipped names one machine's folders."""
from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]  # the folder the commands are run from


def _portable(word: str) -> str:
    """``word`` with an absolute path at its start (a folder, or ``DIR:split=test``) made relative to the project,
    or, outside it, its name alone (a scratch file's folder is no one else's)."""
    if not word.startswith(os.sep):
        return word
    path, colon, options = word.partition(":")
    inside = Path(path).resolve().is_relative_to(PROJECT)
    return (os.path.relpath(path, PROJECT) if inside else Path(path).name) + colon + options


def command_line(program: str, argv: list[str] | None, launcher: str = "python") -> str:
    """``python -m PROGRAM ARGS…`` as the record keeps it (``argv``: the arguments given; None: ``sys.argv``'s)."""
    words = sys.argv[1:] if argv is None else argv
    return f"{launcher} -m {program} " + shlex.join(_portable(w) for w in words)


#: How the data folders beside the project (``../shared/data/…``) are named to people: a set by its name where one
#: names the same pairs (the Hansards gold is ``gold:en-fr``, link for link), else the folder's own name.
SHARED_DATA = "../shared/data/"
SAME_AS = {"hansards-en-fr-align": "gold:en-fr"}


def for_people(command: str) -> str:
    """A recorded command as a page shows it: no folder of the machine that ran it, each data folder by its name."""
    for folder, name in SAME_AS.items():
        command = command.replace(SHARED_DATA + folder, name)
    return command.replace(SHARED_DATA, "")
