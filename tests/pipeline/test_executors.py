"""`map_ordered`, the local executor `paraphrase` and `infill` use: input order kept, errors of a
worker's model loading reported as themselves (not as a broken pool)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import pytest

from paraspan.errors import ParaspanError
from paraspan.pipeline.executors import map_ordered


def make_square(delay: float = 0.0) -> Callable[[int], tuple[int, int]]:
    """A worker's function: later items finish first, so completion order is not input order."""
    def work(item: int) -> tuple[int, int]:
        time.sleep(delay * (5 - item % 5))
        return item * item, os.getpid()

    return work


def make_nothing(model: str) -> Callable[[int], int]:
    raise ParaspanError.from_code("E875", option="--model", value=model)


def test_in_process_and_in_two_workers_give_the_same_results_in_input_order():
    one = list(map_ordered(make_square, {}, range(12), 1))
    assert [r for r, _ in one] == [i * i for i in range(12)] and {p for _, p in one} == {os.getpid()}
    two = list(map_ordered(make_square, {"delay": 0.02}, iter(range(12)), 2))
    assert [r for r, _ in two] == [r for r, _ in one]
    assert os.getpid() not in {p for _, p in two}


def test_a_failing_model_load_in_a_worker_is_reported_as_itself():
    for workers in (1, 2):
        with pytest.raises(ParaspanError) as info:
            list(map_ordered(make_nothing, {"model": "missing.gguf"}, range(3), workers))
        assert info.value.code == "E875" and "missing.gguf" in str(info.value)


def test_batches_of_sentences_are_shared_evenly_among_the_workers():
    from paraspan.pipeline.executors import group_sizes

    assert group_sizes(20, 2, 4) == [4, 4, 3, 3, 3, 3]  # 10 sentences each, in 3 batches each
    assert group_sizes(6, 2, 4) == [3, 3]
    assert group_sizes(3, 2, 4) == [2, 1] and group_sizes(1, 2, 4) == [1]
    assert group_sizes(9, 1, 4) == [3, 3, 3] and group_sizes(0, 2, 4) == []
    assert set(group_sizes(1000, 2, 4)) == {4} and sum(group_sizes(1001, 2, 4)) == 1001
