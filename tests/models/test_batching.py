"""The one length-bucketed batcher: it gives the batches the training loops cut by hand before it."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from paraspan.models.batching import length_batches, length_sorted_batches


def _nli_by_hand(lengths: list[int], batch_size: int, seed: int) -> list[list[int]]:
    """The NLI trainer's own bucketing (windows of 20 batches, full batches), as it was written."""
    rng = random.Random(seed)
    order = list(range(len(lengths)))
    rng.shuffle(order)
    window = batch_size * 20
    batches = []
    for s in range(0, len(order), window):
        chunk = sorted(order[s:s + window], key=lengths.__getitem__)
        batches += [chunk[b:b + batch_size] for b in range(0, len(chunk), batch_size)]
    rng.shuffle(batches)
    return batches


def _fe_by_hand(lengths: np.ndarray, batch_size: int, seed: int) -> np.ndarray:
    """The FE fine-tuning's own order (numpy's array_split windows of 50 batches), as it was written."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(lengths))
    window = batch_size * 50
    chunks = [c[np.argsort(lengths[c], kind="stable")] for c in np.array_split(order, max(1, len(order) // window))]
    batches = [b for c in chunks for b in np.array_split(c, max(1, math.ceil(len(c) / batch_size)))]
    rng.shuffle(batches)
    return np.concatenate(batches)


@pytest.mark.parametrize("n", [0, 1, 7, 95, 1003])
def test_full_batches_match_the_nli_trainers_hand_written_ones(n):
    lengths = [random.Random(n).randint(1, 40) for _ in range(n)]
    rng = random.Random(5)
    order = list(range(n))
    rng.shuffle(order)
    batches = length_batches(lengths, 4, order=order, window=80)
    rng.shuffle(batches)
    assert batches == _nli_by_hand(lengths, 4, 5)


@pytest.mark.parametrize("n", [1, 7, 95, 1003])
def test_even_batches_match_the_fe_tunings_hand_written_order(n):
    lengths = np.random.default_rng(n).integers(1, 60, n)
    rng = np.random.default_rng(9)
    order = rng.permutation(n)
    batches = length_batches(lengths, 3, order=order, window=150, even=True)
    rng.shuffle(batches)
    assert np.concatenate([np.asarray(b) for b in batches]).tolist() == _fe_by_hand(lengths, 3, 9).tolist()
    sizes = {len(b) for b in batches}
    assert max(sizes) - min(sizes) <= 1  # near-equal batches, not a short last one


def test_batches_are_sorted_within_a_window_and_keep_every_index():
    lengths = [5, 1, 3, 3, 9, 1, 2, 8]
    batches = length_batches(lengths, 2, order=[7, 6, 5, 4, 3, 2, 1, 0], window=4)
    assert batches == [[5, 6], [7, 4], [1, 3], [2, 0]]  # windows [7,6,5,4] and [3,2,1,0], each sorted stably
    assert sorted(i for b in batches for i in b) == list(range(8))
    assert length_sorted_batches(lengths, 3) == length_batches(lengths, 3) == [[1, 5, 6], [2, 3, 0], [7, 4]]


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError):
        length_batches([1], 0)
    with pytest.raises(ValueError):
        length_batches([1], 2, window=0)
