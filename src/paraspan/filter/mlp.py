"""The MLP head shared by the FE-type classifier, the span-label verifier and the learned filter:
standardised features through ReLU layers (the last one linear) in numpy, a softmax over the
logits a caller allows, and the training of the masked classification heads (torch, imported when it
runs, on :class:`paraspan.train.loop.Fit`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
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


@dataclass
class MLPHead:
    """Two layers over standardised encoder features and the names of their outputs: what the FE classifier
    and the span-label verifier (:class:`paraspan.filter.verifier.Verifier`) both are."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    labels: list[str]

    def scores(self, features: np.ndarray) -> np.ndarray:
        """The logit of every label, a row per feature row."""
        return mlp_logits(features, self.mean, self.scale, ((self.w1, self.b1), (self.w2, self.b2)))


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

    from paraspan.train.loop import Fit

    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Dropout(0.1), torch.nn.Linear(x.shape[1], hidden), torch.nn.ReLU(),
                              torch.nn.Dropout(dropout), torch.nn.Linear(hidden, masks.shape[1]))
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=weight_decay)
    gen = torch.Generator().manual_seed(seed)

    def batches(_epoch: int) -> Iterator[Any]:
        order = torch.randperm(len(y), generator=gen)
        for start in range(0, len(order), batch_size):
            yield order[start:start + batch_size]

    def loss(idx: Any) -> tuple[Any, float]:
        return torch.nn.functional.cross_entropy(net(x[idx]).masked_fill(~masks[idx], -1e9), y[idx]), len(idx)

    result = Fit(net, opt, batches, loss, epochs=epochs).run(lambda end: score(net, end.epoch, end.loss),
                                                              keep_best=True)
    return net, int(result.best_epoch or 0)
