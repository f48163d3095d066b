"""The lab: speed, memory and deployment measurements, apart from the product. Each prints a table.

    python -m bench attention              # scorers vs a per-query textbook loop          (kernels)
    python -m bench translate --model additive  # a full greedy trace by sentence length   (kernels)
    python -m bench attribution --model additive  # Captum's attributions by sentence length  (kernels)
    python -m bench readings --model transformer  # the norm, ALTI, rollouts, value zeroing beside a heatmap (readings)
    python -m bench which --model transformer     # one sentence read every way, as "Which matrix to believe?" does
    python -m bench prompt-share --model decoder-only --data ../shared/data/multi30k --sentences 1000
                                           # a chat model's attention: sentence, rest of prompt, translation so far
    python -m bench probe-seeds --model transformer --partner fr-en-transformer  # a probe's test AER over CV seeds,
                                           # one way and both ways                     (probe_seeds)
    python -m bench completeness --model additive  # integrated gradients' gap by path points (convergence)
    python -m bench sharpness --model dot  # how peaked its attention is on validation sentences (sharpness)
    python -m bench train                  # one training step: read-out over all steps vs per step (kernels)
    python -m bench neighbours --model additive  # one nearest-neighbour query of a decoder state (kernels)
    python -m bench throughput --data ../shared/data/multi30k ../shared/data/tatoeba-en-fr
                                                  # the training CLI's sentences and target pieces per second
    python -m bench pieces --data ../shared/data/hansard-en-fr  # tokenise once, read back, mix an epoch (pieces)
    python -m bench vocab --data … --tokenizers A B  # pieces per word, unknown pieces, on validation     (pieces)
    python -m bench joey --steps 100       # ours against Joey NMT 2.3.0 on the same batches   (joey)
    python -m bench profile --steps 20     # where a training step's time goes             (step_profile)
    python -m bench load --sessions 1 4 8  # the running app under concurrent browser sessions (browser)
    python -m bench open --repeats 3       # first heatmap beside a bare page; serve.py; where the wait goes (open_time)
    python -m bench open --model decoder-only  # the same, a visitor asking for that model (?model=)
    python -m bench charts --repeats 4     # one heatmap per chart layer beside a bare page        (open_time)
    python -m bench library --repeats 5    # the atlas in a fresh process: its import, README's five lines (library)
    python -m bench install                # README's pip line in a fresh venv: time, size, the five lines  (library)
    python -m bench corpus --data ../shared/data  # the Corpus page on 1,000 captions: time, server memory (corpus)
    python -m bench hub-model              # an opus-mt-en-fr-sized Marian, random: load, heatmap, memory (hub_model)
    python -m bench hub-model --size tc-big  # the same at opus-mt-tc-big's size (235 M parameters)
    python -m bench hub-model --size nllb-600m  # NLLB-200-distilled-600M's size, float32 and bfloat16 (nllb_model)
    python -m bench widening --size qwen2.5-0.5b  # a chat model's pass: bfloat16 vs float32 products (llm_model)
    python -m bench dtype --data ../shared/data/multi30k  # bfloat16 vs float32: greedy outputs that differ (dtype)
    python -m bench hub-lru                # visitors asking for five such Hub models in turn: server RSS (hub_model)
    python -m bench step                   # the step slider in a browser: key press → settled (browser)
    python -m bench mutants models/storage/pieces.py  # deliberate bugs its tests must notice (mutants)
    python -m bench.rehearsal              # a Community Cloud deploy rehearsed locally with uv (rehearsal)

Nothing in the app imports this package.
"""
