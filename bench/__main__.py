"""``python -m bench WHAT …``: the measurement to run and its settings (the list is in ``__init__``).

Each measurement is one small function of the parsed arguments in :data:`BENCHES`, importing its module only when
it runs (a browser's or a Hub model's bench pulls in what the others never need); the options are one table,
:data:`OPTIONS`, each saying which measurements read it.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from models.network.hardware import pick_device
from models.network.learning.step import PRECISIONS

from . import __doc__ as INDEX, convergence, kernels, sharpness, throughput

DEFAULT_MODEL = "additive"
SIZES = ("opus-mt", "tc-big", "nllb-600m", "t5-small", "qwen2.5-0.5b", "eurollm-1.7b")

#: Every option: its flags and argparse's keywords.
OPTIONS: list[tuple[tuple[str, ...], dict]] = [
    (("modules",), dict(nargs="*", help="for mutants: the modules to mutate, as paths (default: every module "
                        "bench/mutants.py aims at)")),
    (("--model",), dict(default=DEFAULT_MODEL, help="for translate, attribution, readings, which, completeness, "
                        "sharpness, neighbours: bundled name, directory or Hub id")),
    (("--device",), dict(help="default: cuda if available, else cpu")),
    (("--repeats",), dict(type=int, default=20)),
    (("--data",), dict(nargs="+", default=["../shared/data/multi30k", "../shared/data/tatoeba-en-fr"],
                       help="for throughput, joey, profile, sharpness, pieces: corpora, DIR[:weight=W]; for corpus: "
                       "the data folder")),
    (("--tokenizers",), dict(nargs="+", default=["assets/checkpoints/en-fr-additive"], help="for pieces (the "
                             "first), vocab (each): checkpoint folders whose tokenizers cut the corpora")),
    (("--batch-sizes",), dict(type=int, nargs="+", default=[64, 128], help="for throughput: sentences a batch")),
    (("--steps",), dict(type=int, default=30, help="for throughput: timed steps per batch size; for joey: updates "
                        "a run (a multiple of 10); for profile: profiled steps")),
    (("--precision",), dict(choices=list(PRECISIONS), default="float32",
                            help="for throughput, profile: the training CLI's --precision")),
    (("--threads-train",), dict(type=int, default=2, help="for joey: torch threads of both trainers")),
    (("--sessions",), dict(type=int, nargs="+", default=[1, 4, 8], help="for load: concurrent sessions")),
    (("--sentences",), dict(type=int, default=3, help="for load: sentences each session types; for prompt-share: "
                            "the test set's first sentences")),
    (("--split",), dict(default="test_2016_flickr", help="for prompt-share: the split of --data read")),
    (("--threads",), dict(help="for load: the server's ATLAS_TORCH_THREADS (default: the app's own)")),
    (("--cpus",), dict(help="for load: pin the server to these CPUs (taskset list, e.g. 0)")),
    (("--with-attribution",), dict(action="store_true", help="for load: each session count again beside a visitor "
                                   "asking for integrated gradients")),
    (("--children",), dict(type=int, default=os.cpu_count(), help="for mutants: mutants tested at once")),
    (("--report",), dict(action="store_true", help="for mutants: print the last run's table, running nothing")),
    (("--train-steps",), dict(type=int, default=3000, help="for dtype: the stand-in's training batches, once")),
    (("--partner",), dict(help="for probe-seeds: the model translating the other way whose heads it reads too")),
    (("--gold",), dict(default="gold:en-fr", help="for probe-seeds: the human-aligned set (its trial and test)")),
    (("--seeds",), dict(type=int, default=5, help="for probe-seeds: the cross-validation seeds tried")),
    (("--size",), dict(choices=SIZES, default="opus-mt", help="for hub-model: opus-mt-en-fr's shape (75.1 M "
                       "parameters), opus-mt-tc-big's (235 M), nllb-200-distilled-600M's (615 M, in float32 and in "
                       "bfloat16), t5-small's (60.5 M), Qwen2.5-0.5B-Instruct's (494 M) or EuroLLM-1.7B-Instruct's "
                       "(1.66 B), the last two in bfloat16; for widening: one of the last two")),
]


def _mutants(a):
    from .mutants import bench_mutants
    bench_mutants(a.modules, a.children, a.report)


def _open(a):
    from .open_time import bench_open
    bench_open(a.repeats, None if a.model == DEFAULT_MODEL else a.model)  # the app's default unless one is asked


def _library(a):
    from .library import bench_library
    bench_library(a.repeats)


def _install(a):
    from .library import bench_install
    bench_install()


def _charts(a):
    from .open_time import bench_charts
    bench_charts(a.repeats)


def _widening(a):
    from .llm_model import bench_widening
    bench_widening(a.size, a.repeats)


def _hub_model(a):
    from .hub_model import bench_hub_model
    from .llm_model import SHAPES, bench_llm_model
    from .nllb_model import bench_nllb_model
    from .t5_model import bench_t5_model
    if a.size in SHAPES:
        bench_llm_model(a.size)
    else:
        {"nllb-600m": bench_nllb_model, "t5-small": bench_t5_model}.get(a.size, lambda: bench_hub_model(a.size))()


def _hub_lru(a):
    from .hub_model import bench_hub_lru
    bench_hub_lru()


def _dtype(a):
    from .dtype import bench_dtype
    bench_dtype(a.data[0], a.train_steps, model=None if a.model == DEFAULT_MODEL else a.model)


def _corpus(a):
    from .corpus import bench_corpus
    bench_corpus(a.data[0])


def _load(a):
    from .browser import bench_load
    bench_load(a.sessions, a.sentences, a.threads, a.cpus, a.with_attribution)


def _step(a):
    from .browser import bench_step
    bench_step(a.repeats)


def _pieces(a):
    from .pieces import bench_pieces
    bench_pieces(a.data, a.tokenizers[0])


def _vocab(a):
    from .pieces import bench_vocabulary
    bench_vocabulary(a.data, a.tokenizers)


def _joey(a):
    from .joey import bench_joey
    tokenizers, pairs = throughput.training_pairs(a.data)
    with tempfile.TemporaryDirectory() as workdir:
        bench_joey(tokenizers, pairs, a.steps, a.threads_train, Path(workdir))


def _profile(a):
    from .step_profile import print_profile
    device = str(pick_device(a.device))
    print_profile(throughput.trainer(*throughput.training_pairs(a.data), 64, device, a.precision), a.steps, device)


def _which(a):
    from .readings import bench_which
    bench_which(a.model, a.device, a.repeats)


def _readings(a):
    from .readings import bench_readings
    bench_readings(a.model, a.device, a.repeats)


def _probe_seeds(a):
    from .probe_seeds import bench_probe_seeds
    bench_probe_seeds(a.model, a.partner, a.gold, a.seeds)


def _prompt_share(a):
    from .prompt_share import bench_prompt_share
    bench_prompt_share(a.model, a.data[0], a.split, a.sentences)


#: Every measurement by name: what it runs given the parsed arguments.
BENCHES: dict[str, Callable[[argparse.Namespace], None]] = {
    "attention": lambda a: kernels.bench_attention(str(pick_device(a.device)), a.repeats),
    "translate": lambda a: kernels.bench_translate(a.model, a.device, a.repeats),
    "attribution": lambda a: kernels.bench_attribution(a.model, a.device, a.repeats),
    "train": lambda a: kernels.bench_train(str(pick_device(a.device)), a.repeats),
    "throughput": lambda a: throughput.bench_throughput(a.data, a.batch_sizes, a.steps, str(pick_device(a.device)),
                                                        a.precision),
    "joey": _joey, "profile": _profile, "load": _load, "step": _step,
    "neighbours": lambda a: kernels.bench_neighbours(a.model, a.repeats),
    "open": _open, "charts": _charts, "library": _library, "install": _install,
    "completeness": lambda a: convergence.bench_completeness(a.model, a.device),
    "sharpness": lambda a: sharpness.bench_sharpness(a.model, a.data, a.device),
    "pieces": _pieces, "vocab": _vocab, "mutants": _mutants, "corpus": _corpus, "hub-model": _hub_model,
    "hub-lru": _hub_lru, "widening": _widening, "dtype": _dtype, "readings": _readings, "which": _which,
    "prompt-share": _prompt_share, "probe-seeds": _probe_seeds,
}


def arguments() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m bench", description=INDEX,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=list(BENCHES))
    for flags, options in OPTIONS:
        p.add_argument(*flags, **options)
    return p


def main(argv=None) -> None:
    p = arguments()
    args = p.parse_args(argv)
    if args.modules and args.what != "mutants":
        p.error(f"{args.what} takes no modules")
    BENCHES[args.what](args)


if __name__ == "__main__":
    main()
