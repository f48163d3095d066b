"""The lab: speed, memory and deployment measurements, apart from the product. Each prints a table.

    python -m models.bench attention              # scorers vs a per-query textbook loop          (kernels)
    python -m models.bench translate --model additive  # a full greedy trace by sentence length   (kernels)
    python -m models.bench attribution --model additive  # Captum's attributions by sentence length  (kernels)
    python -m models.bench completeness --model additive  # integrated gradients' gap by path points (convergence)
    python -m models.bench sharpness --model dot  # how peaked its attention is on validation sentences (sharpness)
    python -m models.bench train                  # one training step: read-out over all steps vs per step (kernels)
    python -m models.bench neighbours --model additive  # one nearest-neighbour query of a decoder state (kernels)
    python -m models.bench throughput --data ../shared/data/multi30k ../shared/data/tatoeba-en-fr
                                                  # the training CLI's sentences and target pieces per second
    python -m models.bench joey --steps 100       # ours against Joey NMT 2.3.0 on the same batches   (joey)
    python -m models.bench profile --steps 20     # where a training step's time goes             (step_profile)
    python -m models.bench load --sessions 1 4 8  # the running app under concurrent browser sessions (browser)
    python -m models.bench open --repeats 3       # cold open, warm open, submit → heatmap    (open_time)
    python -m models.bench step                   # the step slider in a browser: key press → settled (browser)
    python -m models.bench.rehearsal              # a Community Cloud deploy rehearsed locally with uv (rehearsal)

Nothing in the app imports this package.
"""
