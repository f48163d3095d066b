"""bfloat16 weights multiplied in float32 on a device without bfloat16 units (models/network/hardware.py): the
same products as float32 over the same bfloat16 values, a slice of the weight at a time, in the calling thread
alone, and nothing changed where the weights are float32 or the device multiplies bfloat16 itself."""
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode, _get_current_function_mode_stack

from models.network import hardware
from models.network.hardware import float32_arithmetic


class Products(TorchFunctionMode):
    """Records the linear layers' weights it sees: the rows of each and their dtypes."""

    def __enter__(self):
        self.rows, self.dtypes = [], set()
        return super().__enter__()

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in (F.linear, torch.matmul):
            self.rows += [args[1].shape[0]] if func is F.linear else []
            self.dtypes.add(args[1].dtype)
        return func(*args, **(kwargs or {}))


def test_bfloat16_products_are_float32_products_of_the_same_values_a_slice_at_a_time(emulated, monkeypatch):
    torch.manual_seed(0)
    x = torch.randn(3, 7, 48).bfloat16()  # [B, T, d]
    weight, bias = torch.randn(100, 48).bfloat16(), torch.randn(100).bfloat16()
    q, k = torch.randn(2, 4, 7, 16).bfloat16(), torch.randn(2, 4, 16, 7).bfloat16()
    monkeypatch.setattr(hardware, "WIDENED_ELEMENTS", 48 * 30)  # four slices of the weight's 100 rows
    with Products() as seen, float32_arithmetic(weight):  # seen: the products the widening mode itself asks for
        got, scores = F.linear(x, weight, bias), torch.matmul(q, k)
    assert got.dtype == scores.dtype == torch.bfloat16 and got.shape == (3, 7, 100)
    assert seen.rows == [30, 30, 30, 10]  # never the whole weight widened at once
    assert seen.dtypes == {torch.float32}
    want = F.linear(x.float(), weight.float(), bias.float()).bfloat16()
    torch.testing.assert_close(got.float(), want.float(), atol=0, rtol=2**-7)  # one bfloat16 rounding apart at most
    torch.testing.assert_close(scores.float(), torch.matmul(q.float(), k.float()).bfloat16().float(), atol=0,
                               rtol=2**-7)


def test_nothing_changes_for_float32_weights_or_where_the_device_multiplies_bfloat16(emulated, monkeypatch):
    weight = torch.randn(4, 4)
    with float32_arithmetic(weight):
        assert not _get_current_function_mode_stack()
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    with float32_arithmetic(weight.bfloat16()):
        assert not _get_current_function_mode_stack()


def test_the_products_are_widened_in_the_calling_thread_alone(emulated):
    with float32_arithmetic(torch.randn(4, 4).bfloat16()):
        assert len(_get_current_function_mode_stack()) == 1
        with ThreadPoolExecutor(1) as pool:  # another request's thread on a server
            assert pool.submit(lambda: len(_get_current_function_mode_stack())).result() == 0
    assert not _get_current_function_mode_stack()


def test_where_gradients_are_taken_the_products_stay_in_bfloat16(emulated):
    """A backward pass would need every widened slice kept: a float32 twin of the model."""
    weight = torch.randn(8, 4).bfloat16()
    x = torch.randn(3, 4).bfloat16().requires_grad_()
    with torch.enable_grad(), Products() as seen, float32_arithmetic(weight):
        F.linear(x, weight).sum().backward()
    assert seen.dtypes == {torch.bfloat16} and x.grad is not None
