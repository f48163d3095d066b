"""How peaked each model's attention is on validation sentences: mean largest weight, entropy and energy spread.

Decodes the first :data:`SENTENCES` validation sentences of each corpus greedily and measures every attention row
with :func:`models.analysis.sharpness.sharpness`; then, from the checkpoint's training record, the curated
examples' entropy at every validation point — the evidence for why one score trained worse than another
(docs/results.md, "Why the dot-product model falls short").
"""
from __future__ import annotations

SENTENCES = 250  # per corpus: the first ones of its validation split


def bench_sharpness(model_ref: str, data: list[str], device: str | None) -> None:
    from models.analysis.sharpness import sharpness
    from models.decoding.greedy import greedy
    from models.storage.data import Corpus, read_split
    from models.storage.hub import load_model
    from models.storage.records.timeline import read_timeline
    from models.views.learning import learning_curve

    loaded = load_model(model_ref, device=device)
    if loaded.reading is None:
        raise SystemExit(f"{model_ref} has no attention: there is nothing to measure")
    print(f"attention of {model_ref} ({loaded.reading.label}) on {loaded.device}, greedy, the first {SENTENCES} "
          "validation sentences of each corpus")
    print("| corpus | rows | mean largest weight | entropy, bits | uniform, bits | energy spread, nats |\n"
          "|---|---|---|---|---|---|")
    for corpus in map(Corpus.parse, data):  # the training CLI's DIR[:weight=W,val=SPLIT]
        texts = read_split(corpus.path, corpus.val_split, "en")[:SENTENCES]
        traces = [greedy(loaded.model, loaded.tokenizers, text) for text in texts]
        s = sharpness([t.read(loaded.reading) for t in traces],
                      [t.attention.read_energies(loaded.reading) for t in traces])
        print(f"| {corpus.name} | {s.rows} | {s.max_weight:.2f} | {s.entropy_bits:.2f} | {s.uniform_bits:.2f} "
              f"| {s.energy_spread:.1f} |", flush=True)
    timeline = read_timeline(loaded.path)
    curve = None if timeline is None else learning_curve(timeline, loaded.reading)
    if curve is None or not curve.entropy_bits:
        return
    print(f"\nover training: the curated examples' mean attention entropy at each point of {loaded.path.name}'s record")
    print("| point | mean val BLEU | entropy, bits |\n|---|---|---|")
    for label, bleu, bits in zip(curve.labels, curve.val_bleu, curve.entropy_bits):
        print(f"| {label} | {bleu:.1f} | {bits:.2f} |")
