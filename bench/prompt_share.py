"""Where a decoder-only translator's attention goes while it writes the reference translations of a test set: its
sentence, the rest of its prompt, the translation so far — each layer's mean over heads and steps
(:func:`models.analysis.prompt_share.prompt_share`)."""
from __future__ import annotations


def bench_prompt_share(model_ref: str, data: str, split: str, sentences: int) -> None:
    from models.analysis.prompt_share import prompt_share
    from models.datasets.sentences import read_named
    from models.decoding.greedy import greedy_batch
    from models.storage.hub import load_model

    loaded = load_model(model_ref)
    if not loaded.model.continues_prompt:
        raise SystemExit(f"error: {model_ref} reads its source through cross-attention: all of it goes to the source")
    found = read_named(data, loaded.languages, split)
    sources, targets = list(found.sources[:sentences]), [refs[0] for refs in found.references[:sentences]]
    traces = [t for a in range(0, len(sources), 32)
              for t in greedy_batch(loaded.model, loaded.tokenizers, sources[a : a + 32], targets[a : a + 32])]
    share = prompt_share(traces)
    print(f"{model_ref} writing {len(traces)} references of {data} {split} ({share.steps} steps), each layer's mean "
          "share of a step's attention (its heads' mean):")
    print("| layer | the sentence | the rest of the prompt | the translation so far |\n|---|---|---|---|")
    for n, row in enumerate(zip(share.sentence, share.rest_of_prompt, share.translation)):
        print(f"| {n + 1} | " + " | ".join(f"{100 * x:.1f} %" for x in row) + " |")
    means = (share.sentence.mean(), share.rest_of_prompt.mean(), share.translation.mean())
    print("| all | " + " | ".join(f"{100 * x:.1f} %" for x in means) + " |")
