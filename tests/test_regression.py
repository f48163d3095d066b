"""The bundled checkpoints still compute what they computed when recorded (``tests/reference_traces.py``): the same
translations, and attention, energies, states, contexts, self-attention, a switched-off head and gradient×input
within a tolerance per quantity. Decoding agreeing with itself cannot see a change that shifts every heatmap a
little; this can. On a machine with CUDA the models run there, against the CPU recording."""
import numpy as np
import pytest

from .reference_traces import FILE, MODELS, quantities

RECORDED = np.load(FILE)

#: Absolute tolerances against the CPU recording, by quantity (each with rtol 1e-4, for the energies of tens).
#: A forward quantity is the same float32 computation summed in another order on another CPU, or on CUDA by its own
#: kernels: 2e-5, a thousandth of the smallest weight a heatmap shows. A gradient×input share is a backward pass
#: through every decoding step on top of the forward (about twice the operations, and cuDNN's GRU kernels accumulate
#: in their own order): measured up to 8.9e-5 from a CPU recording on an H200, so 2e-4, still two orders of
#: magnitude below the shares that matter (0.01 and up).
TOLERANCE = {"gradient×input": 2e-4}
FORWARD = 2e-5


@pytest.mark.parametrize("name", MODELS)
def test_each_bundled_model_computes_what_was_recorded(name):
    found = quantities(name)
    recorded = sorted(k for k in RECORDED.files if k.startswith(f"{name}/"))
    assert sorted(found) == recorded, "record again with python -m tests.reference_traces if a model was retrained"
    for key in recorded:
        if key.endswith("target_ids"):  # a translation is exact: one different piece is a different sentence
            assert found[key].tolist() == RECORDED[key].tolist(), key
            continue
        tolerance = TOLERANCE.get(key.rsplit("/", 1)[-1], FORWARD)
        assert found[key].shape == RECORDED[key].shape, key
        np.testing.assert_allclose(found[key], RECORDED[key], atol=tolerance, rtol=1e-4, err_msg=key)


def test_a_shift_of_every_heatmap_by_a_little_is_seen(monkeypatch):
    """The reference's point: the dot-product model's energies scaled by 1.001 (its weights move by about a
    thousandth) make the comparison fail on a recorded quantity, not on a translation."""
    from models.network.attention import DotProductAttention

    score = DotProductAttention.score
    monkeypatch.setattr(DotProductAttention, "score", lambda self, q, k: score(self, q, k) * 1.001)
    with pytest.raises(AssertionError, match="attention|energies|logprobs|states"):
        test_each_bundled_model_computes_what_was_recorded("dot")
