"""The training command's data at parliament scale: tokenising the corpora once (a cold piece cache), reading them
back (a warm one), one epoch's mix, and the memory each leaves at its peak."""
from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path


def peak_mib() -> float:
    """This process's peak resident memory so far (Linux: KiB; macOS: bytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (2**20 if sys.platform == "darwin" else 2**10)


def bench_pieces(data: list[str], tokenizers_dir: str) -> None:
    """Tokenise ``data``'s training splits into an empty cache, read them back from it, and mix one epoch."""
    import numpy as np

    from models.network.tokenization import TokenizerPair
    from models.storage.data import Corpus, mix, read_parallel, split_file
    from models.storage.pieces import cached_pairs
    from models.train.corpora import MAX_TRAIN_PIECES

    tokenizers = TokenizerPair.load(tokenizers_dir)
    corpora = [Corpus.parse(spec) for spec in data]
    print(f"piece cache of {', '.join(data)} with the tokenizers of {tokenizers_dir}; peak memory after each phase "
          f"(imports and tokenizers: {peak_mib():,.0f} MiB)")
    print("| phase | corpus | pairs | ids MiB | seconds | peak MiB |\n|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as cache:
        for phase in ("tokenise (cold cache)", "read back (warm cache)"):
            parts = []
            for c in corpora:
                files = [split_file(c.path, c.train_split, lang) for lang in ("en", "fr")]
                start = time.perf_counter()
                parts.append(cached_pairs(tokenizers, f"{c.name}-{c.train_split}", files,
                                          lambda c=c: read_parallel(c.path, c.train_split, "en", "fr"),
                                          MAX_TRAIN_PIECES, Path(cache)))
                print(f"| {phase} | {c.name} | {len(parts[-1]):,} | {parts[-1].nbytes / 2**20:,.0f} | "
                      f"{time.perf_counter() - start:.1f} | {peak_mib():,.0f} |", flush=True)
    start = time.perf_counter()
    epoch = mix(parts, [c.weight for c in corpora], np.random.default_rng(0))
    print(f"| one epoch's mix | all | {len(epoch):,} | {epoch.nbytes / 2**20:,.0f} | "
          f"{time.perf_counter() - start:.1f} | {peak_mib():,.0f} |")


def bench_vocabulary(data: list[str], tokenizers_dirs: list[str]) -> None:
    """Pieces per word and unknown pieces of each tokenizer pair on each ``data`` folder's val split."""
    from models.network.tokenization import UNK_ID, TokenizerPair
    from models.storage.data import Corpus, read_parallel

    print("pieces per source word and unknown pieces (source / target) on each validation split\n"
          "| tokenizers | corpus | pieces per word | unknown source | unknown target |\n|---|---|---|---|---|")
    for folder in tokenizers_dirs:
        tokenizers = TokenizerPair.load(folder)
        for c in (Corpus.parse(spec) for spec in data):
            sources, targets = read_parallel(c.path, c.val_split, "en", "fr")
            src = [e.ids for e in tokenizers.source.tokenizer.encode_batch(sources, add_special_tokens=False)]
            tgt = [e.ids for e in tokenizers.target.tokenizer.encode_batch(targets, add_special_tokens=False)]
            n, m, words = sum(map(len, src)), sum(map(len, tgt)), sum(len(s.split()) for s in sources)
            unknown = [sum(ids.count(UNK_ID) for ids in side) / max(total, 1) for side, total in ((src, n), (tgt, m))]
            print(f"| {folder} | {c.name} | {n / words:.2f} | {unknown[0]:.2%} | {unknown[1]:.2%} |")
