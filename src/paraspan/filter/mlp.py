"""The MLP head shared by the FE-type classifier, the span-label verifier and the learned filter:
standardised features through ReLU layers (the last one linear) in numpy, a softmax over the
logits a caller allows, and the one training loop of the masked classification heads (torch,
imported when it runs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def mlp_logits(features: np.ndarray, mean: np.ndarray, scale: np.ndarray,
               layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """``(features - mean) / scale`` through ``layers`` of ``(weight (in, out), bias)``, a ReLU
    after each but the last; the arrays' dtype is kept (float32 heads stay float32)."""
    x = (features - mean) / scale
    last = len(layers) - 1
    for i, (weight, bias) in enumerate(layers):
        x = x @ weight + bias
        if i < last:
            x = np.maximum(x, 0.0)
    return x


def softmax(logits: np.ndarray) -> np.ndarray:
    """Probabilities of one row of logits (shifted by its maximum, so large logits do not overflow)."""
    shifted = logits - logits.max()
    return np.exp(shifted) / np.exp(shifted).sum()


def train_masked_head(x: Any, y: Any, masks: Any, *, hidden: int, dropout: float, lr: float, weight_decay: float,
                      epochs: int, batch_size: int, seed: int,
                      score: Callable[[Any, int, float], float]) -> tuple[Any, int]:
    """Train the torch twin of the head (dropout 0.1, Linear, ReLU, dropout, Linear) on standardised
    features ``x`` and label indices ``y``, each row's logits outside ``masks`` (its allowed labels)
    pushed to -1e9; AdamW, shuffled minibatches, seeded by ``seed``.

    After each epoch ``score(net, epoch, mean loss)`` rates the net (the caller's dev accuracy);
    the best epoch's weights are loaded back. Returns the net and that epoch.
    """
    import torch

    from paraspan.errors import ParaspanError

    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Dropout(0.1), torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Dropout(dropout), torch.nn.Linear(hidden, masks.shape[1]))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch.Generator().manual_seed(seed)
    best: tuple[float, int, dict[str, Any]] | None = None
    for epoch in range(1, epochs + 1):
        net.train()
        order = torch.randperm(len(y), generator=gen)
        total = 0.0
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
            loss = torch.nn.functional.cross_entropy(net(x[idx]).masked_fill(~masks[idx], -1e9), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        value = score(net, epoch, total / len(y))
        if best is None or value > best[0]:
            best = (value, epoch, {k: v.detach().clone() for k, v in net.state_dict().items()})
    if best is None:
        raise ParaspanError.from_code("E971", epochs=epochs)
    net.load_state_dict(best[2])
    return net, best[1]
