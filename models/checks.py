"""What every command checks of its line before it loads a model or reads data, how it refuses, and how quiet it
is: a refusal is one line on stderr, ``error: …``, with exit status 2 (argparse's own for a bad line), never a
traceback; the libraries' own progress bars, logs and warnings stay off unless ``--verbose``.

Each check raises ``SystemExit("error: …")``, which a test can catch with its message; :func:`run` is the
commands' entry point, which prints that message alone and exits 2.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path

VERBOSE = "--verbose"


def command_parser(prog: str, description: str | None) -> argparse.ArgumentParser:
    """A command's parser, with the option every command has: ``--verbose``."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    p.add_argument(VERBOSE, action="store_true", help="show the libraries' progress bars, logs and warnings, and "
                   "where an unexpected error happened")
    return p


def quiet_libraries() -> None:
    """Transformers' and the Hub's progress bars ("Loading weights"), their logs below errors, and every library's
    warnings off: what a command prints is its own."""
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # transformers reads the Hub's, once imported
    if "huggingface_hub" in sys.modules:
        from huggingface_hub.utils import disable_progress_bars

        disable_progress_bars()
    if "transformers" in sys.modules:
        from transformers.utils import logging

        logging.disable_progress_bar()
        logging.set_verbosity_error()
    warnings.filterwarnings("ignore", module=r"^(?!models\.)")


def run(main: Callable[[], int | None]) -> None:
    """Run a command's ``main``: quiet unless ``--verbose``; a refusal (``SystemExit`` with a message) printed as
    one line, exit 2; an unexpected error as one line too, exit 1 (``--verbose``: its traceback)."""
    verbose = VERBOSE in sys.argv[1:]
    if not verbose:
        quiet_libraries()
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
    except Exception as e:
        if verbose:
            raise
        print(f"error: {type(e).__name__}: {e} (--verbose shows where)", file=sys.stderr)
        raise SystemExit(1) from None
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


def language_options(parser) -> None:
    """A command's ``--src-lang`` / ``--tgt-lang``: the pair a many-to-many model is set to (see
    :func:`chosen_languages`)."""
    for side, example in (("src", "source"), ("tgt", "target")):
        parser.add_argument(f"--{side}-lang", metavar="CODE", help=f"a many-to-many model's {example} language, in "
                            "its own codes (M2M100: fr, NLLB-200: fra_Latn, mBART-50: fr_XX); default: English→French")


def chosen_languages(args) -> tuple[str | None, str | None] | None:
    """The pair :func:`language_options` read (None where neither was given)."""
    return (args.src_lang, args.tgt_lang) if args.src_lang or args.tgt_lang else None
