"""How far a probe's choice moves with the draw of its cross-validation folds: the probe fit on the gold's trial pairs
with each of several seeds (each the mean over the repeated shuffles ``fit_probe`` makes), scored on the test pairs,
one way (the model's own heads) and, given a reverse partner, both ways. The features are read once; only the fit
is repeated. Prints one JSON line per seed and direction, then the spread of each.

    python -m bench probe-seeds --model transformer --partner fr-en-transformer --seeds 5
"""
from __future__ import annotations

import json
import statistics


def _scored(probe, examples, pairs) -> float:
    from models.analysis.aer import alignment_score

    links = [probe.final.rule.read(probe.probability(e.x)) for e in examples]
    return alignment_score(links, [p.sure for p in pairs], [p.possible for p in pairs]).aer


def _one_way(examples, features) -> list:
    """The examples with only the features a one-way probe reads (the model's own, the words')."""
    from models.analysis.probe_fit import Example

    keep = [k for k, f in enumerate(features) if not f.reverse]
    return [Example(e.x[..., keep], e.sure, e.possible) for e in examples]


def bench_probe_seeds(model_ref: str, partner_ref: str | None, data: str, seeds: int) -> dict[str, list[float]]:
    """Test AER of the probe fit with seeds 0 … ``seeds`` − 1, by way ("one way", "both ways")."""
    from models.align.fit import examples_of
    from models.analysis.probe_fit import features_of, fit_probe
    from models.datasets.gold_sets import load_gold
    from models.storage.hub import load_model

    loaded = load_model(model_ref)
    partner = load_model(partner_ref) if partner_ref else None
    trial, _ = load_gold(data, loaded.languages, "trial")
    test, _ = load_gold(data, loaded.languages, "test")
    features = features_of(loaded.model, partner and partner.model)
    on_trial, on_test = examples_of(loaded, trial, "trial", partner), examples_of(loaded, test, "test", partner)
    ways = {"one way": (_one_way(on_trial, features), _one_way(on_test, features),
                        tuple(f for f in features if not f.reverse))}
    if partner is not None:
        ways["both ways"] = (on_trial, on_test, features)
    found: dict[str, list[float]] = {}
    for way, (fit_on, scored_on, chosen) in ways.items():
        for seed in range(seeds):
            probe = fit_probe(fit_on, chosen, data, "trial", seed=seed, partner=partner_ref)
            aer = _scored(probe, scored_on, test)
            found.setdefault(way, []).append(aer)
            print(json.dumps({"way": way, "seed": seed, "cross-validated AER": probe.final.aer,
                              "rule": str(probe.final.rule), "second look": probe.second is not None,
                              "test AER": round(aer, 2), "seconds": probe.seconds}))
    for way, aers in found.items():
        print(json.dumps({"way": way, "seeds": seeds, "mean test AER": round(statistics.mean(aers), 2),
                          "min": round(min(aers), 2), "max": round(max(aers), 2)}))
    return found
