"""Which of a Transformer's heads matter: each removed alone, on validation sentences, and how many can go.

    python -m models.heads --model transformer --data ../shared/data/multi30k ../shared/data/hansard-en-fr
    python -m models.heads --model Helsinki-NLP/opus-mt-en-de --data sacrebleu:wmt13 --sentences 100

For every head (encoder self-attention, decoder self-attention, cross-attention; each layer) the greedy cased
BLEU of the first ``--sentences`` validation sentences of each ``--data`` folder with that head switched off
(its output zeroed before W^O, Michel et al. 2019), the drop from the whole model's, and the head's confidence
(the mean of its largest weight, Voita et al. 2019); then heads removed most unimportant first until BLEU has
fallen by more than ``--budget``. Writes ``heads.json`` beside the checkpoint (its card shows it) or ``--out``.
"""
from __future__ import annotations

import json
from pathlib import Path

from tqdm import tqdm

from .analysis.head_removal import every_head, importance, pruning
from .checks import at_least, chosen_languages, command_parser, data_given, file_out, language_options, run
from .datasets.sentences import read_named
from .storage.cards.render import write_card
from .storage.commands import command_line
from .storage.hub import CheckpointError, load_model
from .storage.languages import Languages, assumed
from .storage.records.head_scores import HEADS_FILE, heads_record, write_heads


def validation_sentences(specs: list[str], languages: Languages, n: int) -> tuple[list[str], list[str]]:
    """The first ``n`` sentences and first references of each ``sacrebleu:NAME`` or ``DIR[:split=SPLIT]`` (val by
    default), in order."""
    sources, references = [], []
    for spec in specs:
        found = read_named(spec, languages, "val").first(n)
        if not found.references:
            raise ValueError(f"{found.name} has no reference translations")
        sources += found.sources
        references += [refs[0] for refs in found.references]
    return sources, references


def main(argv=None) -> int:
    p = command_parser("python -m models.heads", __doc__.split("\n")[0])
    p.add_argument("--model", default="transformer", help="a Transformer: bundled name, directory or Hub repo id")
    p.add_argument("--data", required=True, nargs="+", metavar="sacrebleu:NAME | DIR[:split=SPLIT]",
                   help="validation sets (a set by name in the model's language pair)")
    language_options(p)
    p.add_argument("--sentences", type=int, default=150, help="the first N sentences of each set")
    p.add_argument("--budget", type=float, default=1.0, help="BLEU the pruning may lose")
    p.add_argument("--device")
    p.add_argument("--out", help=f"JSON file to write (default: {HEADS_FILE} in the checkpoint)")
    args = p.parse_args(argv)
    at_least("--sentences", args.sentences, 1)
    at_least("--budget", args.budget, 0)
    file_out("--out", args.out)
    data_given("--data", args.data)
    try:
        loaded = load_model(args.model, device=args.device, languages=chosen_languages(args))
        languages = assumed(loaded.languages)
        sources, references = validation_sentences(args.data, languages, args.sentences)
    except (CheckpointError, OSError, ValueError) as e:
        raise SystemExit(f"error: {e}") from e
    if not every_head(loaded.model):
        raise SystemExit(f"error: {loaded.variant} has no heads to switch off (its one attention is not a head a layer "
                         "can do without); give a Transformer")
    with tqdm(total=len(every_head(loaded.model)), desc="heads removed one at a time", leave=False) as bar:
        rows = importance(loaded.model, loaded.tokenizers, sources, references, lambda done, total: bar.update(1))
    found = heads_record({"model": loaded.path.name, "data": args.data, "sentences": len(sources), "heads": rows,
                          "pruning": pruning(loaded.model, loaded.tokenizers, sources, references, rows, args.budget),
                          "command": command_line("models.heads", argv)})
    out = write_heads(found, Path(args.out) if args.out else loaded.path / HEADS_FILE)
    if out == loaded.path / HEADS_FILE and loaded.origin.trained:
        write_card(loaded.path)
    top = sorted(rows, key=lambda r: -r["drop"])[:3]
    print(json.dumps({"base_bleu": found.pruning.base_bleu, "most_important": top, "can_go": found.pruning.can_go,
                      "of": found.pruning.of}, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    run(main)
