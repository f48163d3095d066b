"""The training command's line: data, sizes of each architecture, budget, schedule, guided alignment, machine."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..checks import at_least, command_parser, data_given, folder_out
from ..network.architectures import ARCHITECTURES
from ..network.attention import SCORES
from ..network.learning.guided import DEFAULT_WEIGHT
from ..network.learning.schedule import SHAPES
from ..network.learning.step import DEFAULT_LR, PRECISIONS
from ..network.seq2seq import RNNConfig
from ..network.transformer import TransformerConfig
from ..storage.pieces import default_cache_dir
from .alignment_links import RECIPES
from .chat_translator import ARCH as DECODER_ONLY, add_arguments


def parse_args(argv=None) -> argparse.Namespace:
    p = command_parser("python -m models.train", sys.modules["models.train"].__doc__)
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    for options in (_data_options, _size_options, _budget_options, _guided_options, _machine_options):
        options(p)
    return checked(p.parse_args(argv))


def _data_options(p: argparse.ArgumentParser) -> None:
    """What is trained on and validated on, in which direction, with which tokenizers."""
    p.add_argument("--data", required=True, nargs="+", metavar="(DIR | opus:CORPUS | multi30k)[:weight=W,…]",
                   help="folders of {split}.{lang}.gz files, or corpora by name (opus:Tatoeba, opus:Europarl, …: "
                        "OPUS's latest release of the run's pair; multi30k: its captions), fetched once; each with "
                        "an optional sampling weight and split names (weight=W,train=SPLIT,val=SPLIT)")
    p.add_argument("--src", default="en")
    p.add_argument("--tgt", default="fr")
    p.add_argument("--arch", choices=[*ARCHITECTURES, DECODER_ONLY], default="rnn",
                   help="rnn: the attentional RNN of Bahdanau et al. (2015); transformer: Vaswani et al. (2017); "
                        "decoder-only: a GPT-style LlamaForCausalLM asked through a chat template, saved in "
                        "transformers' format")
    p.add_argument("--score", choices=list(SCORES), default=RNNConfig.score, help="the RNN's attention score")
    p.add_argument("--out", required=True, help="checkpoint directory to write")
    p.add_argument("--val-data", nargs="+", metavar="DIR[:val=SPLIT] | sacrebleu:NAME",
                   help="folders or test sets by name validated on but not trained on (e.g. sacrebleu:wmt13, the "
                        "news of the paper's validation year)")
    p.add_argument("--tokenizers", help="reuse source/target tokenizers from this checkpoint directory")
    p.add_argument("--init-from", metavar="CHECKPOINT",
                   help="continue training this checkpoint (a folder): its architecture, sizes, weights and "
                        "tokenizers; the card records it as the run's start")
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--shared-vocab", action="store_true",
                   help="one BPE vocabulary for both languages, trained on both sides of every corpus")
    p.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                   help="where tokenised corpora are kept, keyed on the tokenizers and the text (default: %(default)s)")


def _size_options(p: argparse.ArgumentParser) -> None:
    """Each architecture's sizes."""
    rnn = p.add_argument_group("the RNN's sizes")
    rnn.add_argument("--emb-dim", type=int, default=RNNConfig.emb_dim)
    rnn.add_argument("--enc-hidden", type=int, default=RNNConfig.enc_hidden)
    rnn.add_argument("--dec-hidden", type=int, default=RNNConfig.dec_hidden)
    rnn.add_argument("--attn-dim", type=int, default=RNNConfig.attn_dim)
    t = p.add_argument_group("the Transformer's sizes")
    t.add_argument("--d-model", type=int, default=TransformerConfig.d_model)
    t.add_argument("--heads", type=int, default=TransformerConfig.heads)
    t.add_argument("--enc-layers", type=int, default=TransformerConfig.enc_layers)
    t.add_argument("--dec-layers", type=int, default=TransformerConfig.dec_layers)
    t.add_argument("--ffn-dim", type=int, default=TransformerConfig.ffn_dim)
    add_arguments(p)


def _budget_options(p: argparse.ArgumentParser) -> None:
    """The optimisation: regularisation, batches, precision, rate, schedule and budget."""
    p.add_argument("--dropout", type=float, help=f"default: {RNNConfig.dropout} (rnn), {TransformerConfig.dropout} "
                                                 "(transformer); with --init-from, that model's own unless given")
    p.add_argument("--label-smoothing", type=float, default=0.1)
    p.add_argument("--batch-size", type=int, default=64, help="sentences a batch")
    p.add_argument("--batch-tokens", type=int,
                   help="instead of --batch-size: as many length-sorted pairs as fit in this many padded pieces")
    p.add_argument("--precision", choices=list(PRECISIONS), default="float32",
                   help="dtype of the forward's matrix products (bfloat16: autocast; pays on CPUs with AVX512-BF16/AMX "
                        "and on recent GPUs — `python -m bench throughput --precision …`)")
    p.add_argument("--lr", type=float, default=DEFAULT_LR, help="the learning rate after warm-up")
    p.add_argument("--schedule", choices=list(SHAPES), default="wsd",
                   help="how the rate falls to zero over the budget: wsd holds it until the last 20 %%, linear and "
                        "cosine fall from the start (measured: docs/results.md)")
    p.add_argument("--warmup-steps", type=int, default=300)
    p.add_argument("--ema-decay", type=float, default=0.999, help="decay of the weights' moving average")
    p.add_argument("--epochs", type=int, default=20, help="budget: passes over the mixed corpora")
    p.add_argument("--steps", type=int, help="budget: optimizer steps")
    p.add_argument("--minutes", type=float, help="budget: wall-clock minutes of training and validation")
    p.add_argument("--validate-every", type=int, default=0, metavar="STEPS",
                   help="validate every STEPS steps (and at a quarter and half of that, early) instead of at epoch "
                        "ends: for long epochs")


def _guided_options(p: argparse.ArgumentParser) -> None:
    """Guided alignment: one head trained toward word links."""
    g = p.add_argument_group("guided alignment (Garg et al. 2019): one cross-attention head trained toward word links")
    g.add_argument("--guided-alignment", choices=list(RECIPES),
                   help="train a Transformer's head toward eflomal's links of the training pairs, made once over the "
                        "training corpora and cached: eflomal's two directions grow-diag-final, or their intersection")
    g.add_argument("--guided-reading", metavar="LAYER.HEAD[.shifted]",
                   help="the guided head, 1-based, and with .shifted trained at the step that reads each piece (one "
                        "step later) rather than the step that writes it (default: the last layer's first head, "
                        "Marian's)")
    g.add_argument("--guided-weight", type=float, default=DEFAULT_WEIGHT, help="the alignment loss's weight λ")
    g.add_argument("--full-context", action="store_true",
                   help="read the guided head in a second pass with the decoder's future mask lifted, every position "
                        "seeing the whole translation (Garg et al.'s full context; the app reads it as the matrix "
                        "'full-context attention')")


def _machine_options(p: argparse.ArgumentParser) -> None:
    """What is kept, the seed, the machine, the splits, and resuming or publishing the run."""
    p.add_argument("--keep", choices=["best", "last"], default="best",
                   help="the checkpoint: the validation point of best mean BLEU, or the last (the budget's end, the "
                        "learning rate annealed: for an aim BLEU does not see, such as guided alignment's head)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--device", help="cpu, cuda, cuda:1 … (default: cuda if available)")
    p.add_argument("--threads", type=int, help="torch CPU threads")
    p.add_argument("--train-split", default="train", help="default train split of every --data folder")
    p.add_argument("--val-split", default="val", help="default validation split of every --data folder")
    p.add_argument("--val-sentences", type=int,
                   help="validate on the first N sentences of each validation split (default: all): bounds the "
                        "time a validation point takes on long sets such as a news year's 3,000 sentences")
    p.add_argument("--resume", action="store_true", help="continue from --out/train_state")
    p.add_argument("--push-to-hub", metavar="REPO_ID", help="upload the checkpoint to this Hub model repo")

def checked(args: argparse.Namespace) -> argparse.Namespace:
    """The line's numbers, folders and corpora, checked before any corpus is read or model built."""
    for flag, least in (("steps", 1), ("epochs", 1), ("minutes", 0.01), ("batch_size", 1), ("batch_tokens", 1),
                        ("validate_every", 0), ("val_sentences", 1), ("threads", 1), ("vocab_size", 16),
                        ("warmup_steps", 0)):
        at_least("--" + flag.replace("_", "-"), getattr(args, flag), least)
    at_least("--lr", args.lr, 0)  # 0 keeps the weights: a run that only validates
    folder_out("--out", args.out)
    data_given("--data", args.data, ("multi30k",))
    data_given("--val-data", args.val_data or [], ("multi30k",))
    for flag, folder in (("--tokenizers", args.tokenizers), ("--init-from", args.init_from)):
        if folder is not None and not Path(folder).is_dir():
            raise SystemExit(f"error: {flag} {folder}: no such checkpoint folder")
    if args.dropout is not None and args.init_from and args.arch == DECODER_ONLY:
        raise SystemExit("error: --dropout with --init-from sets this project's RNN's or Transformer's rate; a "
                         "decoder-only model keeps its own")
    return args
