"""Translate stdin to stdout, one sentence a line.

    echo "A dog runs on the beach." | python -m models.translate --model additive

Blank lines stay blank; ``--json`` writes one decoding trace per line instead. ``--bertviz OUT.html`` also
writes the first sentence's three attentions as bertviz draws them (a Transformer; bertviz is an optional extra):

    echo "The agreement was signed in August 1992." | python -m models.translate --model transformer --bertviz a.html
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from .analysis.bertviz_export import VIEWS, bertviz_html
from .checks import at_least, chosen_languages, command_parser, file_out, language_options, run
from .decoding.beam import beam_search
from .decoding.every_attention import attention_kinds
from .decoding.lines import translate_lines
from .decoding.trace import Trace
from .extras import MissingExtra
from .network.tokenization import PROMPT
from .storage.hub import DEFAULT_MODEL, CheckpointError, load_model
from .tables.doubts import notices


def trace_json(trace: Trace) -> dict:
    """A trace as plain JSON types (lists of floats). The source's columns are the sentence's pieces; the rest of
    what the model read (T5's task prefix, a chat prompt: its ``prompt``) is set apart as the share of each row's
    attention that went to it, and a decoder-only model's share on what it had written so far as
    ``written_share`` (an encoder–decoder's cross-attention reads only the source: 0), so each row's source columns
    and shares add up to 1."""
    def arr(a):
        return None if a is None else a.round(6).tolist()

    source, attention = trace.source, trace.attention and trace.attention.weights
    energies = trace.attention and trace.attention.energies
    sentence = [i for i, piece in enumerate(source.pieces) if piece != PROMPT]
    rest = [i for i, piece in enumerate(source.pieces) if piece == PROMPT]
    return {
        "prompt": source.prompt or None,
        "source_pieces": [source.pieces[i] for i in sentence],
        "source_unknown": [source.unknown[i] for i in sentence],
        "truncated": source.truncated,
        "target_pieces": trace.target_pieces,
        "translation": trace.translation,
        "logprob": trace.logprob,
        "cross_attention": None if attention is None else arr(attention[..., sentence]),  # [L, heads, T, S]
        "prompt_share": None if attention is None else arr(attention[..., rest].sum(-1)),  # [L, heads, T]
        "written_share": None if attention is None else arr(1 - attention.sum(-1)),  # 0 but in a decoder-only model
        "energies": None if energies is None else arr(energies[..., sentence]),  # [L, heads, T, S]
        "top_k": trace.top_k,
    }


def write_bertviz(loaded, lines: list[str], beam: int, out: str, view: str) -> str | None:
    """The first non-blank line's attentions as bertviz's page at ``out``; what went wrong, or None."""
    text = next((line for line in lines if line.strip()), None)
    if text is None:
        return "--bertviz needs a sentence on stdin"
    kinds = attention_kinds(loaded.model, beam_search(loaded.model, loaded.tokenizers, text, beam).hypotheses[0])
    if kinds is None:
        return f"--bertviz draws a Transformer's three attentions; {loaded.variant} has only its cross-attention"
    try:
        Path(out).write_text(bertviz_html(kinds, view), encoding="utf-8")
    except MissingExtra as e:
        return str(e)
    return None


def main(argv=None) -> int:
    p = command_parser("python -m models.translate", __doc__.split("\n")[0])
    p.add_argument("--model", default=DEFAULT_MODEL, help="bundled name, local directory or Hub repo id")
    p.add_argument("--revision", help="Hub revision (branch, tag or commit)")
    language_options(p)
    p.add_argument("--instruction", help="what a chat model (Llama, Qwen2, Gemma2) is asked, with {sentence} where the "
                   "sentence goes and {source}, {target} for the languages' names, \\n a new line; default: its "
                   "card's, else "
                   "'Translate the following {source} text into {target}.\\n\\n{sentence}'")
    p.add_argument("--beam", type=int, default=1)
    p.add_argument("--device")
    p.add_argument("--json", action="store_true", help="one JSON trace per line")
    p.add_argument("--bertviz", metavar="OUT.html", help="write the first sentence's encoder, decoder and cross "
                   "attention as bertviz's model view (a Transformer; bertviz is an optional extra)")
    p.add_argument("--bertviz-view", choices=VIEWS, default="model", help="bertviz's model_view or head_view")
    args = p.parse_args(argv)
    at_least("--beam", args.beam, 1)
    file_out("--bertviz", args.bertviz)
    try:
        loaded = load_model(args.model, args.revision, args.device, languages=chosen_languages(args))
        loaded = loaded.instructed(args.instruction and args.instruction.replace("\\n", "\n"))
    except (CheckpointError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    lines = sys.stdin.read().splitlines()
    if args.bertviz and (error := write_bertviz(loaded, lines, args.beam, args.bertviz, args.bertviz_view)):
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not args.json:
        print("\n".join(translate_lines(loaded.model, loaded.tokenizers, lines, args.beam)))
        return 0
    for line in lines:
        trace = beam_search(loaded.model, loaded.tokenizers, line, args.beam).hypotheses[0] if line.strip() else None
        said = trace and notices(trace, loaded.model.specials.ends, loaded.languages, line).warnings
        print(json.dumps({**trace_json(trace), "notices": list(said)} if trace else None, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    run(main)
