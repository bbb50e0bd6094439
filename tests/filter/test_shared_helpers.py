"""The helpers the filter models share with the encoder: length-sorted batches, the warm-up
schedule, and fp16 layer deltas (paraspan.models.batching, paraspan.models.delta)."""

from __future__ import annotations

import pytest

from paraspan.models.batching import length_sorted_batches, warmup_linear_decay


def test_length_sorted_batches_match_the_hand_written_ones():
    lengths = [5, 1, 3, 3, 9, 1, 2]
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    expected = [order[s:s + 3] for s in range(0, len(order), 3)]
    assert length_sorted_batches(lengths, 3) == expected == [[1, 5, 6], [2, 3, 0], [4]]
    assert length_sorted_batches([], 4) == []
    with pytest.raises(ValueError):
        length_sorted_batches([1], 0)


def test_warmup_linear_decay():
    torch = pytest.importorskip("torch")
    param = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([param], lr=1.0)
    sched = warmup_linear_decay(opt, 10, 0.2)  # 2 warm-up steps
    rates = []
    for _ in range(10):
        rates.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    warm, total = 2, 10
    assert rates == pytest.approx([min((s + 1) / warm, max(0.0, (total - s) / max(1, total - warm)))
                                   for s in range(10)])


def test_delta_roundtrip_and_mismatches(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from paraspan.models.delta import apply_delta, save_delta

    torch.manual_seed(0)
    trained = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    path = save_delta({k: v for k, v in trained.state_dict().items() if k.startswith("1.")}, tmp_path / "d.safetensors")
    assert not list(tmp_path.glob(".*.tmp"))
    fresh = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    before = fresh[0].weight.detach().clone()
    assert apply_delta(fresh, path, exact=["1.weight", "1.bias"]) == []
    assert torch.allclose(fresh[1].weight, trained[1].weight.half().float())  # stored in fp16
    assert torch.equal(fresh[0].weight, before)  # the rest stays as it was
    # a key the delta must hold but does not, and a module the delta does not fit
    assert apply_delta(fresh, path, exact=["1.weight", "1.bias", "0.weight"]) == ["0.weight"]
    other = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 5))
    untouched = other[1].weight.detach().clone()
    assert sorted(apply_delta(other, path)) == ["1.bias", "1.weight"]
    assert torch.equal(other[1].weight, untouched)
