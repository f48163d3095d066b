"""``python -m bench WHAT …``: the measurement to run and its settings (the list is in ``__init__``)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from models.network.device import pick_device
from models.network.training import PRECISIONS

from . import __doc__ as INDEX
from . import convergence, kernels, sharpness, throughput


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m bench", description=INDEX,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["attention", "translate", "attribution", "train", "throughput", "joey", "profile",
                                    "load", "step", "neighbours", "open", "charts", "completeness", "sharpness",
                                    "pieces", "vocab", "mutants", "corpus", "hub-model", "hub-lru", "widening", "dtype",
                                    "readings", "which", "prompt-share"])
    p.add_argument("modules", nargs="*", help="for mutants: the modules to mutate, as paths "
                   "(default: every module bench/mutants.py aims at)")
    p.add_argument("--model", default="additive",
                   help="for translate, attribution, readings, which, completeness, sharpness, neighbours: bundled "
                        "name, directory or Hub id")
    p.add_argument("--device", help="default: cuda if available, else cpu")
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--data", nargs="+", default=["../shared/data/multi30k", "../shared/data/tatoeba-en-fr"],
                   help="for throughput, joey, profile, sharpness, pieces: corpora, DIR[:weight=W]; for corpus: the "
                        "data folder")
    p.add_argument("--tokenizers", nargs="+", default=["assets/checkpoints/en-fr-additive"],
                   help="for pieces (the first), vocab (each): checkpoint folders whose tokenizers cut the corpora")
    p.add_argument("--batch-sizes", type=int, nargs="+", default=[64, 128], help="for throughput: sentences a batch")
    p.add_argument("--steps", type=int, default=30,
                   help="for throughput: timed steps per batch size; for joey: updates a run (a multiple of 10); "
                        "for profile: profiled steps")
    p.add_argument("--precision", choices=list(PRECISIONS), default="float32",
                   help="for throughput, profile: the training CLI's --precision")
    p.add_argument("--threads-train", type=int, default=2, help="for joey: torch threads of both trainers")
    p.add_argument("--sessions", type=int, nargs="+", default=[1, 4, 8], help="for load: concurrent sessions")
    p.add_argument("--sentences", type=int, default=3,
                   help="for load: sentences each session types; for prompt-share: the test set's first sentences")
    p.add_argument("--split", default="test_2016_flickr", help="for prompt-share: the split of --data read")
    p.add_argument("--threads", help="for load: the server's ATLAS_TORCH_THREADS (default: the app's own)")
    p.add_argument("--cpus", help="for load: pin the server to these CPUs (taskset list, e.g. 0)")
    p.add_argument("--with-attribution", action="store_true",
                   help="for load: each session count again beside a visitor asking for integrated gradients")
    p.add_argument("--children", type=int, default=os.cpu_count(), help="for mutants: mutants tested at once")
    p.add_argument("--report", action="store_true", help="for mutants: print the last run's table, running nothing")
    p.add_argument("--train-steps", type=int, default=3000, help="for dtype: the stand-in's training batches, once")
    p.add_argument("--size", choices=["opus-mt", "tc-big", "nllb-600m", "t5-small", "qwen2.5-0.5b", "eurollm-1.7b"],
                   default="opus-mt", help="for hub-model: opus-mt-en-fr's shape (75.1 M parameters), "
                   "opus-mt-tc-big's (235 M), nllb-200-distilled-600M's (615 M, in float32 and in bfloat16), "
                   "t5-small's (60.5 M), Qwen2.5-0.5B-Instruct's (494 M) or EuroLLM-1.7B-Instruct's (1.66 B), "
                   "the last two in bfloat16; for widening: one of the last two")
    args = p.parse_args(argv)
    if args.modules and args.what != "mutants":
        p.error(f"{args.what} takes no modules")
    if args.what == "mutants":
        from .mutants import bench_mutants

        bench_mutants(args.modules, args.children, args.report)
        return
    if args.what in ("open", "charts"):
        from .open_time import bench_charts, bench_open

        if args.what == "open":  # the app's default model unless one is asked for
            bench_open(args.repeats, None if args.model == p.get_default("model") else args.model)
        else:
            bench_charts(args.repeats)
        return
    if args.what == "widening":
        from .llm_model import bench_widening

        bench_widening(args.size, args.repeats)
        return
    if args.what in ("hub-model", "hub-lru"):
        from .hub_model import bench_hub_lru, bench_hub_model
        from .llm_model import SHAPES, bench_llm_model
        from .nllb_model import bench_nllb_model
        from .t5_model import bench_t5_model

        if args.what == "hub-lru":
            bench_hub_lru()
        elif args.size in SHAPES:
            bench_llm_model(args.size)
        elif args.size in ("nllb-600m", "t5-small"):
            bench_nllb_model() if args.size == "nllb-600m" else bench_t5_model()
        else:
            bench_hub_model(args.size)
        return
    if args.what == "dtype":
        from .dtype import bench_dtype

        bench_dtype(args.data[0], args.train_steps, model=None if args.model == "additive" else args.model)
        return
    if args.what == "corpus":
        from .corpus import bench_corpus

        bench_corpus(args.data[0])
        return
    if args.what in ("load", "step"):
        from . import browser

        if args.what == "load":
            browser.bench_load(args.sessions, args.sentences, args.threads, args.cpus, args.with_attribution)
        else:
            browser.bench_step(args.repeats)
        return
    if args.what in ("pieces", "vocab"):
        from .pieces import bench_pieces, bench_vocabulary

        if args.what == "pieces":
            bench_pieces(args.data, args.tokenizers[0])
        else:
            bench_vocabulary(args.data, args.tokenizers)
        return
    if args.what == "neighbours":
        kernels.bench_neighbours(args.model, args.repeats)
        return
    if args.what == "joey":
        import tempfile

        from .joey import bench_joey

        tokenizers, pairs = throughput.training_pairs(args.data)
        with tempfile.TemporaryDirectory() as workdir:
            bench_joey(tokenizers, pairs, args.steps, args.threads_train, Path(workdir))
        return
    device = str(pick_device(args.device))
    if args.what == "profile":
        from .step_profile import print_profile

        print_profile(throughput.trainer(*throughput.training_pairs(args.data), 64, device, args.precision), args.steps,
                      device)
        return
    if args.what == "attention":
        kernels.bench_attention(device, args.repeats)
    elif args.what == "attribution":
        kernels.bench_attribution(args.model, args.device, args.repeats)
    elif args.what == "completeness":
        convergence.bench_completeness(args.model, args.device)
    elif args.what == "which":
        from .readings import bench_which

        bench_which(args.model, args.device, args.repeats)
    elif args.what == "prompt-share":
        from .prompt_share import bench_prompt_share

        bench_prompt_share(args.model, args.data[0], args.split, args.sentences)
    elif args.what == "readings":
        from .readings import bench_readings

        bench_readings(args.model, args.device, args.repeats)
    elif args.what == "sharpness":
        sharpness.bench_sharpness(args.model, args.data, args.device)
    elif args.what == "train":
        kernels.bench_train(device, args.repeats)
    elif args.what == "throughput":
        throughput.bench_throughput(args.data, args.batch_sizes, args.steps, device, args.precision)
    else:
        kernels.bench_translate(args.model, args.device, args.repeats)


if __name__ == "__main__":
    main()
