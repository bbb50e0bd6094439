"""The one training loop of paraspan's small torch models (aligner scorer, filter heads, learner heads, the
NLI and FE-span fine-tuning): epochs of batches, an optimiser step per batch, a score after each epoch,
the best epoch kept, and early stopping.

What differs between the models stays with their callers: ``batches(epoch)`` gives an epoch's batches
(shuffled with the caller's seeded generator, e.g. by :func:`paraspan.models.batching.length_batches`)
and ``loss(batch)`` the batch's loss and weight. torch is imported when :func:`fit` runs.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from paraspan.errors import ParaspanError

B = TypeVar("B")


@dataclass(frozen=True)
class Epoch:
    """What an epoch's end-of-epoch callback is told."""

    epoch: int  # 1-based
    loss: float  # the epoch's mean loss, each batch weighted as ``loss`` said
    steps: int  # optimiser steps so far, all epochs
    seconds: float  # this epoch's training time


@dataclass
class FitResult:
    """How a run of :func:`fit` went: each epoch's mean loss, the best epoch and its score, and why it stopped
    early (``None``: it ran every epoch, or up to ``max_steps``)."""

    losses: list[float] = field(default_factory=list)
    scores: list[float | None] = field(default_factory=list)
    best_epoch: int | None = None
    best_score: float | None = None
    steps: int = 0
    stopped: str | None = None
    last_loss: float | None = None


@dataclass
class Fit(Generic[B]):
    """One model's training: ``model`` and ``optimizer``, an epoch's ``batches`` and a batch's ``loss``.

    ``loss(batch)`` returns ``(loss tensor, weight)``: the epoch's mean loss weighs each batch by it (the
    batch's size for a mean per example, 1 for a mean per batch). ``scheduler`` steps after each
    optimiser step (``schedule="step"``) or each epoch (``"epoch"``); ``clip_norm`` clips the gradient
    norm of the optimiser's parameters; ``max_steps`` ends the run after that many steps, inside an
    epoch (``epochs=None``: as many epochs as that takes); ``after_step`` hears each step's batch index in
    its epoch, loss and weight.
    """

    model: Any
    optimizer: Any
    batches: Callable[[int], Iterable[B]]
    loss: Callable[[B], tuple[Any, float]]
    epochs: int | None
    scheduler: Any = None
    schedule: str = "step"
    clip_norm: float | None = None
    max_steps: int | None = None
    stop_on_nonfinite: bool = False
    after_step: Callable[[int, float, float], None] | None = None  # (batch in the epoch, loss, weight): a log

    def run(self, score: Callable[[Epoch], float | None] | None = None, *, keep_best: bool = False,
            patience: int | None = None) -> FitResult:
        """Train. After each epoch ``score`` rates the model (higher is better; ``None``: no rating). With
        ``keep_best`` the best epoch's weights are loaded back at the end (E971 when no epoch was rated);
        with ``patience`` the run stops after that many rated epochs without a better score. A non-finite
        loss stops the run before its step when ``stop_on_nonfinite``, ``stopped`` saying at which step."""
        import torch

        if self.epochs is None and self.max_steps is None:
            raise ValueError("fit needs epochs or max_steps")
        if self.schedule not in ("step", "epoch"):
            raise ValueError(f"schedule must be 'step' or 'epoch', not {self.schedule!r}")
        result = FitResult()
        best_state: dict[str, Any] | None = None
        stale = 0
        epoch = 0
        params = [p for group in self.optimizer.param_groups for p in group["params"]]
        while self.epochs is None or epoch < self.epochs:
            if self.max_steps is not None and result.steps >= self.max_steps:
                break
            epoch += 1
            start = time.perf_counter()
            self.model.train()
            total, weight = 0.0, 0.0
            for n, batch in enumerate(self.batches(epoch)):
                loss, w = self.loss(batch)
                if self.stop_on_nonfinite and not torch.isfinite(loss):
                    result.stopped = f"non-finite loss at step {result.steps}"
                    return result
                self.optimizer.zero_grad()
                loss.backward()
                if self.clip_norm is not None:
                    torch.nn.utils.clip_grad_norm_(params, self.clip_norm)
                self.optimizer.step()
                if self.scheduler is not None and self.schedule == "step":
                    self.scheduler.step()
                result.last_loss = float(loss.detach())
                total += result.last_loss * w
                weight += w
                result.steps += 1
                if self.after_step is not None:
                    self.after_step(n, result.last_loss, w)
                if self.max_steps is not None and result.steps >= self.max_steps:
                    break
            if self.scheduler is not None and self.schedule == "epoch":
                self.scheduler.step()
            mean = total / weight if weight else 0.0
            result.losses.append(mean)
            value = score(Epoch(epoch, mean, result.steps, time.perf_counter() - start)) if score else None
            result.scores.append(value)
            if value is None:
                continue
            if result.best_score is None or value > result.best_score:
                result.best_score, result.best_epoch, stale = value, epoch, 0
                if keep_best:
                    best_state = copy.deepcopy(self.model.state_dict())
            else:
                stale += 1
                if patience is not None and stale >= patience:
                    result.stopped = f"no better score in {patience} epochs"
                    break
        if keep_best:
            if best_state is None:
                raise ParaspanError.from_code("E971", epochs=self.epochs if self.epochs is not None else 0)
            self.model.load_state_dict(best_state)
        return result
