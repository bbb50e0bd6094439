"""Batches for encoders and training loops, and the step schedule of the fine-tuning recipes.

:func:`length_batches` is the one length-bucketed batcher: items are sorted by length inside windows
before they are cut into batches, so that each batch pads little; callers put results back in the
original order by index. torch is imported only by :func:`warmup_linear_decay`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


def _split(items: list[int], parts: int) -> list[list[int]]:
    """``items`` in ``parts`` consecutive runs whose sizes differ by at most one, the longer first
    (numpy's ``array_split``)."""
    size, extra = divmod(len(items), parts)
    out, at = [], 0
    for k in range(parts):
        n = size + (1 if k < extra else 0)
        out.append(items[at:at + n])
        at += n
    return out


def length_batches(lengths: Sequence[int] | Any, batch_size: int, *, order: Sequence[int] | None = None,
                   window: int | None = None, even: bool = False) -> list[list[int]]:
    """Indices of ``lengths`` in batches of about ``batch_size`` items of similar length.

    ``order`` (default ``0..n-1``; a training loop passes a shuffled one) is cut into windows of
    ``window`` items (default: one window of everything), each window is sorted by length (stable:
    equal lengths keep their order in ``order``), and each sorted window is cut into batches. With
    ``even`` the windows and batches are of near-equal size (``n // window`` windows; each window in
    ``ceil(size / batch_size)`` batches), otherwise full ones with a shorter last one. A training loop
    shuffles the batches it gets with its own seeded generator.
    """
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, got {batch_size}")
    if window is not None and window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    items = [int(i) for i in (range(len(lengths)) if order is None else order)]
    if not items:
        return []
    size = len(items) if window is None else window
    if even:
        windows = _split(items, max(1, len(items) // size))
    else:
        windows = [items[start:start + size] for start in range(0, len(items), size)]
    batches: list[list[int]] = []
    for chunk in windows:
        chunk = sorted(chunk, key=lambda i: lengths[i])
        if even:
            batches += _split(chunk, max(1, math.ceil(len(chunk) / batch_size)))
        else:
            batches += [chunk[start:start + batch_size] for start in range(0, len(chunk), batch_size)]
    return batches


def length_sorted_batches(lengths: Sequence[int], batch_size: int) -> list[list[int]]:
    """Indices ``0..n-1`` sorted by ``lengths`` (stable: equal lengths keep their order), cut
    into batches of ``batch_size`` (:func:`length_batches` with one window, no shuffle)."""
    return length_batches(lengths, batch_size)


def warmup_linear_decay(optimizer: Any, total_steps: int, warmup: float) -> Any:
    """A ``LambdaLR`` that rises linearly over the first ``warmup`` share of ``total_steps``
    (at least one step) and then falls linearly to 0 at ``total_steps``."""
    import torch

    warm = max(1, int(warmup * total_steps))
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warm, max(0.0, (total_steps - step) / max(1, total_steps - warm))))
