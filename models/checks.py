"""What every command checks of its line before it loads a model or reads data, and how it refuses: one line on
stderr, ``error: …``, and exit status 2 (argparse's own for a bad line), never a traceback.

Each check raises ``SystemExit("error: …")``, which a test can catch with its message; :func:`run` is the
commands' entry point, which prints that message alone and exits 2.
"""
from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def run(main: Callable[[], int | None]) -> None:
    """Run a command's ``main``; a refusal (``SystemExit`` with a message) is printed as one line, exit 2."""
    try:
        code = main()
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            raise SystemExit(2) from None
        raise
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
        raise SystemExit(130) from None
    raise SystemExit(code or 0)


def file_out(flag: str, value: str | None) -> Path | None:
    """``value`` as a file to write: not a folder, in a folder that exists."""
    if value is None:
        return None
    path = Path(value)
    if path.is_dir():
        raise SystemExit(f"error: {flag} {value} is a folder; give a file to write")
    if not path.parent.is_dir():
        raise SystemExit(f"error: {flag} {value}: there is no folder {path.parent}")
    return path


def folder_out(flag: str, value: str | None) -> Path | None:
    """``value`` as a folder to write into (made if need be): not a file, in a folder that exists."""
    if value is None:
        return None
    path = Path(value)
    if path.exists() and not path.is_dir():
        raise SystemExit(f"error: {flag} {value} is a file; give a folder (one file is written there for each row)")
    if not path.exists() and not path.parent.is_dir():
        raise SystemExit(f"error: {flag} {value}: there is no folder {path.parent}")
    return path


def at_least(flag: str, value: float | None, least: float) -> None:
    """A number of sentences, a beam, minutes: at least ``least`` where given."""
    if value is not None and value < least:
        raise SystemExit(f"error: {flag} must be at least {least:g}, not {value:g}")


NAMED = ("sacrebleu:", "gold:", "opus:")  # sets that come by name, fetched once


def data_given(flag: str, specs: list[str], names: tuple[str, ...] = ()) -> None:
    """Each of ``specs`` names a set (``sacrebleu:NAME``, ``gold:SRC-TGT``, ``opus:CORPUS`` or one of ``names``) or
    a folder or file that exists (``DIR[:split=…]``); its split and pair are checked where it is read."""
    for spec in specs:
        path = spec.partition(":")[0]
        if not (spec.startswith(NAMED) or path in names or Path(path).exists()):
            raise SystemExit(f"error: {flag} {spec}: no such folder or file, nor a set by name")
