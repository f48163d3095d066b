"""models/network/learning/schedule.py: the budget's progress, the planned learning rate, the weights' moving average."""
import math

import pytest
import torch
from torch import nn

from models.network.learning.schedule import SHAPES, Budget, averaged, lr_factor, planned_schedule


def test_progress_is_the_larger_fraction_spent():
    budget = Budget(steps=100, seconds=60.0)
    assert budget.progress(25, 30.0) == 0.5  # the clock is further along
    assert budget.progress(75, 30.0) == 0.75  # the steps are
    assert budget.progress(500, 0.0) == 1.0 and budget.spent(100, 0.0) and not budget.spent(99, 59.0)
    assert Budget(seconds=10.0).progress(10**6, 5.0) == 0.5  # no step limit
    with pytest.raises(ValueError):
        Budget()


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_rate_warms_up_then_falls_to_zero(shape):
    factors = [lr_factor(step, step / 1000, 100, shape) for step in range(1001)]
    assert factors[0] == pytest.approx(0.01 * SHAPES[shape](0.0))
    assert max(factors) == pytest.approx(factors[99]) and factors[99] > 0.85  # the peak ends the warm-up
    assert all(a >= b for a, b in zip(factors[99:], factors[100:]))  # then it only falls …
    assert factors[-1] == pytest.approx(0.0, abs=1e-12)  # … to zero at the end of the budget
    halfway = {"linear": 0.5, "cosine": 0.5, "wsd": 1.0}[shape]  # wsd holds the peak until 80 % of the budget
    assert SHAPES[shape](0.5) == pytest.approx(halfway)
    assert SHAPES[shape](0.9) == pytest.approx({"linear": 0.1, "cosine": 0.0245, "wsd": 0.5}[shape], abs=1e-4)


def test_the_scheduler_follows_the_clock_when_the_clock_is_the_budget():
    model = nn.Linear(2, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    elapsed = [0.0]
    scheduler = planned_schedule(optimizer, Budget(steps=10**6, seconds=100.0), "linear", 0, lambda: elapsed[0])
    for seconds in (25.0, 50.0, 99.0):
        elapsed[0] = seconds
        optimizer.step()
        scheduler.step()
        assert optimizer.param_groups[0]["lr"] == pytest.approx(0.1 * (1 - seconds / 100))


def test_the_average_is_an_exponential_moving_average_of_the_weights():
    model = nn.Linear(3, 1, bias=False)
    average = averaged(model, decay=0.9)
    expected = None
    for n in range(30):
        with torch.no_grad():
            model.weight.copy_(torch.full((1, 3), float(n)))
        average.update_parameters(model)
        d = min(0.9, (1 + n) / (10 + n))  # n updates averaged before this one
        expected = model.weight.clone() if expected is None else expected + (1 - d) * (model.weight - expected)
    torch.testing.assert_close(average.module.weight, expected)
    assert 20 < average.module.weight[0, 0] < 27  # it lags the weights (by d / (1 − d) ≈ 3 updates, d = 30 / 39)
    assert math.isclose(float(average.n_averaged), 30)
