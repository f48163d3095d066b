"""models/network/device.py: the one device picker."""
from models.network.device import pick_device


def test_device_is_automatic_or_chosen(monkeypatch):
    assert pick_device("cpu").type == "cpu"
    monkeypatch.setattr("torch.cuda.is_available", lambda: False)
    assert pick_device().type == "cpu"
    monkeypatch.setattr("torch.cuda.is_available", lambda: True)
    assert pick_device().type == "cuda"
