"""Batches for encoders and the step schedule of the fine-tuning recipes.

Inputs are sorted by length before they are cut into batches so that each batch pads little;
callers put the results back in the original order by index. torch is imported only by
:func:`warmup_linear_decay`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices ``0..n-1`` sorted by ``lengths`` (stable: equal lengths keep their order), cut
    into batches of ``batch_size``."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


def warmup_linear_decay(optimizer: Any, total_steps: int, warmup: float) -> Any:
    """A ``LambdaLR`` that rises linearly over the first ``warmup`` share of ``total_steps``
    (at least one step) and then falls linearly to 0 at ``total_steps``."""
    import torch

    warm = max(1, int(warmup * total_steps))
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warm, max(0.0, (total_steps - step) / max(1, total_steps - warm))))
