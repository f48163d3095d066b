"""What a run reads: the ``--data`` folders, their tokenizers, their training pairs (through the piece cache) and
the validation sets (every ``--data`` folder's val split, and ``--val-data`` read for validation only: folders, or
test sets by name, ``sacrebleu:NAME`` in the run's language pair)."""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..datasets.named_corpora import NamedCorpusError, resolve
from ..datasets.sentences import read_named
from ..datasets.test_sets import PREFIX as SACREBLEU_PREFIX
from ..network.learning.step import Replicas, from_main
from ..network.tokenization import SubwordTokenizer, TokenizerPair, train_tokenizer
from ..storage.data import Corpus, read_parallel, split_file
from ..storage.pieces import TokenizedPairs, cached_pairs, tokenize_pairs
from .alignment_links import RECIPES, linked_parts
from .chat_translator import ARCH as DECODER_ONLY, chat_tokenizers, load_chat_tokenizer, train_chat_tokenizer

MAX_TRAIN_PIECES = 64


@dataclass(frozen=True)
class Corpora:
    """The ``--data`` folders (trained on), the ``--val-data`` folders and test sets by name (only validated on)."""

    train: list[Corpus]
    validate_only: list[Corpus]
    named: tuple[str, ...] = ()  # sacrebleu:NAME, each read in the run's pair

    @property
    def validated(self) -> list[Corpus]:
        return self.train + self.validate_only


def parse_corpora(args) -> Corpora:
    """Folder specs as :class:`Corpus`; names must differ (scores are reported by folder name)."""
    def folder(spec: str) -> Corpus:  # a corpus by name (opus:CORPUS, multi30k) is fetched into a folder first
        try:
            return Corpus.parse(resolve(spec, (args.src, args.tgt)), args.train_split, args.val_split)
        except NamedCorpusError as e:
            raise SystemExit(f"error: {e}") from e

    train = [folder(spec) for spec in args.data]
    named = tuple(spec for spec in args.val_data or [] if spec.startswith(SACREBLEU_PREFIX))
    validate_only = [folder(spec) for spec in args.val_data or [] if spec not in named]
    names = [c.name for c in train + validate_only] + list(named)
    if len(set(names)) < len(names):
        raise SystemExit("error: two --data/--val-data folders share a name; scores are reported by folder name")
    return Corpora(train, validate_only, named)


def train_text(corpora: Corpora, args) -> list[tuple[list[str], list[str]]]:
    return [read_parallel(c.path, c.train_split, args.src, args.tgt) for c in corpora.train]


def load_tokenizers(args, directory: str | Path) -> TokenizerPair:
    """The pair a checkpoint of ``--arch`` keeps in ``directory``."""
    if args.arch == DECODER_ONLY:
        return chat_tokenizers(load_chat_tokenizer(directory), args.src, args.tgt)
    return TokenizerPair.load(directory)


def build_tokenizers(args, corpora: Corpora) -> TokenizerPair:
    """``--tokenizers``'s (or ``--init-from``'s) pair, else new BPE tokenizers trained on every training corpus:
    one per language, or with ``--shared-vocab`` one vocabulary for both, saved under both names (a decoder-only
    model's: always one, byte-level, with its chat template)."""
    given = args.tokenizers or args.init_from
    if given:
        return load_tokenizers(args, given)
    text = train_text(corpora, args)
    sources, targets = [s for src, _ in text for s in src], [t for _, tgt in text for t in tgt]
    if args.arch == DECODER_ONLY:
        chat = train_chat_tokenizer(sources + targets, args.vocab_size)
        return chat_tokenizers(chat, args.src, args.tgt)
    if args.shared_vocab:
        shared = SubwordTokenizer(train_tokenizer(sources + targets, args.vocab_size))
        return TokenizerPair(shared, shared)
    return TokenizerPair(SubwordTokenizer(train_tokenizer(sources, args.vocab_size)),
                         SubwordTokenizer(train_tokenizer(targets, args.vocab_size)))


def shared_tokenizers(args, out: Path, corpora: Corpora, resuming: bool, replicas: Replicas) -> TokenizerPair:
    """Reloaded when resuming, else built by the main process; the other processes read what it saved."""
    if resuming:
        return load_tokenizers(args, out)
    if replicas.main:
        tokenizers = build_tokenizers(args, corpora)
        out.mkdir(parents=True, exist_ok=True)
        if args.arch == DECODER_ONLY:
            tokenizers.target.tokenizer.save_pretrained(out)
        else:
            tokenizers.save(out)
    from_main(None, replicas)  # wait until they are on disk
    return tokenizers if replicas.main else load_tokenizers(args, out)


def training_parts(corpora: Corpora, tokenizers: TokenizerPair, args, replicas: Replicas) -> list[TokenizedPairs]:
    """Each training corpus's pairs as ids, through the piece cache; the main process fills it first."""
    def load() -> list[TokenizedPairs]:
        parts = []
        for c in corpora.train:
            files = [split_file(c.path, c.train_split, lang) for lang in (args.src, args.tgt)]
            started = time.monotonic()
            parts.append(cached_pairs(tokenizers, f"{c.name}-{c.train_split}", files,
                                      lambda c=c: read_parallel(c.path, c.train_split, args.src, args.tgt),
                                      MAX_TRAIN_PIECES, args.cache_dir))
            if replicas.main:
                print(f"{c.name}: {len(parts[-1]):,} pairs, {parts[-1].nbytes / 2**20:.0f} MiB of ids "
                      f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
        return parts

    parts = load() if replicas.main else None
    from_main(None, replicas)  # the cache is written: the others read it instead of tokenising again
    return parts if replicas.main else load()


def validation_sets(corpora: Corpora, tokenizers: TokenizerPair, args) -> dict:
    """Each validated corpus's val split and each test set by name (the first ``--val-sentences`` lines of each) as
    ``(pairs, sources, targets)``, by folder name or by the name given."""
    texts = {}
    for c in corpora.validated:
        texts[c.name] = read_parallel(c.path, c.val_split, args.src, args.tgt)
    for spec in corpora.named:
        try:
            found = read_named(spec, (args.src, args.tgt), "val")
        except (OSError, ValueError) as e:  # not cached and not reachable, no such set or pair: said in a sentence
            raise SystemExit(f"error: {e}") from e
        texts[spec] = (list(found.sources), [refs[0] for refs in found.references])
    sets = {}
    for name, (sources, targets) in texts.items():
        sources, targets = sources[: args.val_sentences], targets[: args.val_sentences]
        sets[name] = (tokenize_pairs(tokenizers, sources, targets, 10 * MAX_TRAIN_PIECES), sources, targets)
    return sets


def guided_parts(parts: list[TokenizedPairs], corpora: Corpora, tokenizers: TokenizerPair, args,
                 replicas: Replicas) -> tuple[list[TokenizedPairs], float]:
    """``parts`` with guided alignment's links (:mod:`.alignment_links`, cached; the main process makes them first)
    and the seconds making them took."""
    files = [[split_file(c.path, c.train_split, lang) for lang in (args.src, args.tgt)] for c in corpora.train]

    def load():
        return linked_parts(parts, tokenizers, files, lambda: train_text(corpora, args), MAX_TRAIN_PIECES,
                            args.cache_dir, RECIPES[args.guided_alignment])

    found = load() if replicas.main else None
    from_main(None, replicas)
    return found if replicas.main else load()
