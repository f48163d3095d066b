"""models/network/hardware.py: the one device picker."""
from models.network.hardware import pick_device


def test_device_is_automatic_or_chosen(monkeypatch):
    assert pick_device("cpu").type == "cpu"
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    assert pick_device().type == "cpu"
    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    assert pick_device().type == "cuda"


def test_parallel_test_workers_share_the_cores():
    from .conftest import threads_per_worker

    assert threads_per_worker(16, 14) == 1 and threads_per_worker(16, 4) == 4 and threads_per_worker(2, 1) == 2
    assert threads_per_worker(1, 8) == 1  # never zero threads
