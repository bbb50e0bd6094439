"""What every downstream learner returns, the learner registry, and the small MLP trainer the
frozen-feature learners (frame identification, SRL) share."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from paraspan.corpus.schema import Sentence
from paraspan.registry import Registry


@dataclass
class Score:
    """Micro precision / recall / F1 (in percent) over exact (span, label) matches."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return 100.0 * self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return 100.0 * self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, gold: set[Any], predicted: set[Any]) -> None:
        self.tp += len(gold & predicted)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)

    def to_dict(self) -> dict[str, float | int]:
        return {"f1": round(self.f1, 2), "precision": round(self.precision, 2), "recall": round(self.recall, 2),
                "tp": self.tp, "fp": self.fp, "fn": self.fn}


@dataclass
class RunResult:
    """One training run: scores per evaluation set, or ``diverged`` with the reason."""

    #: per evaluation set: f1, precision, recall …, and ``gold_unseen_labels`` (the gold labels the
    #: training data never showed)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    diverged: str | None = None
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)

    def f1(self, name: str) -> float | None:
        if self.diverged is not None or name not in self.scores:
            return None
        return float(self.scores[name]["f1"])


class Learner(Protocol):
    """Train on ``train`` with ``seed`` and score on each named evaluation set."""

    name: str

    def run(self, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]], seed: int) -> RunResult: ...


LEARNERS: Registry[Callable[..., Learner]] = Registry("downstream_learners")
LEARNERS.register("frame_id", "paraspan.evaluate.downstream.frame_id:FrameIdLearner",
                  "FrameNet trigger spans (≤3 tokens) + frame: span classifier over frozen encoder features")
LEARNERS.register("srl", "paraspan.evaluate.downstream.srl:SrlLearner",
                  "argument spans + roles given the predicate: BIO token classifier over frozen encoder features")
LEARNERS.register("ner", "paraspan.evaluate.downstream.ner:SpacyNerLearner",
                  "named entities: spaCy's trainable ner from a generated CPU config")


def learners() -> Registry[Callable[..., Learner]]:
    """The registry (built once; entry points are scanned on first use)."""
    return LEARNERS


# --------------------------------------------------------------------------- the MLP head


@dataclass
class HeadConfig:
    hidden: int = 256
    dropout: float = 0.2
    lr: float = 2e-3
    batch_size: int = 1024
    epochs: int = 6
    min_steps: int = 200  # small subsets still get enough updates
    max_steps: int = 4000
    #: loss weight of the examples of every class but 0 (NULL / O) relative to class 0: the
    #: positives are few among all candidate spans or words (chosen on dev by the base learner,
    #: see ``benchmarks/downstream.py --choose-positive-weight``)
    positive_weight: float = 1.0

    def class_weights(self, n_classes: int) -> np.ndarray | None:
        """Per-class loss weights (None: unweighted, the exact unweighted mean)."""
        if self.positive_weight == 1.0:
            return None
        if not self.positive_weight > 0:
            raise ValueError(f"positive_weight must be > 0, not {self.positive_weight}")
        weights = np.full(n_classes, float(self.positive_weight), dtype=np.float32)
        weights[0] = 1.0
        return weights


def head_loss(logp: Any, y: Any, eps: Any, weights: Any = None) -> Any:
    """Label-smoothed NLL of a batch (``eps``: each example's smoothing), averaged with the
    weight of each example's class when ``weights`` is given (as torch's weighted cross entropy)."""
    nll = -logp.gather(1, y[:, None]).squeeze(1)
    per = (1 - eps) * nll - eps * logp.mean(dim=-1)
    if weights is None:
        return per.mean()
    w = weights[y]
    return (w * per).sum() / w.sum()


def train_head(
    make_input: Callable[[Any], Any],
    labels: np.ndarray,
    smoothing: np.ndarray,
    n_classes: int,
    in_dim: int,
    seed: int,
    config: HeadConfig,
) -> tuple[Any, str | None, list[float]]:
    """Train an MLP on examples ``0..len(labels)-1`` (``make_input(index tensor) -> features``).

    ``smoothing[i]`` is example i's label-smoothing factor; ``config.positive_weight`` weighs the
    examples of classes other than 0. Returns the model, the reason it diverged (non-finite loss)
    or None, and the mean loss per epoch.
    """
    import torch
    from torch import nn

    from paraspan.train.loop import Fit

    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = nn.Sequential(nn.Linear(in_dim, config.hidden), nn.ReLU(), nn.Dropout(config.dropout),
                          nn.Linear(config.hidden, n_classes))
    optimizer = torch.optim.Adam(model.parameters(), lr=config.lr)
    y = torch.as_tensor(labels, dtype=torch.long)
    eps = torch.as_tensor(smoothing, dtype=torch.float32)
    class_weights = config.class_weights(n_classes)
    weights = torch.as_tensor(class_weights) if class_weights is not None else None
    n = len(labels)
    if n == 0:
        return model, "no training examples", []
    steps_per_epoch = math.ceil(n / config.batch_size)
    steps = min(config.max_steps, max(config.min_steps, config.epochs * steps_per_epoch))

    def batches(_epoch: int) -> Iterator[Any]:
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, config.batch_size):
            yield order[start : start + config.batch_size]

    def loss(idx: Any) -> tuple[Any, float]:
        logp = torch.log_softmax(model(make_input(idx)), dim=-1)
        return head_loss(logp, y[idx], eps[idx], weights), len(idx)

    result = Fit(model, optimizer, batches, loss, epochs=None, max_steps=steps, stop_on_nonfinite=True).run()
    if result.stopped is not None:
        return model, result.stopped, result.losses
    model.eval()
    return model, None, result.losses


def predict_head(model: Any, make_input: Callable[[Any], Any], n: int, batch_size: int = 4096) -> tuple[Any, Any]:
    """Best class and its probability for examples ``0..n-1``."""
    import torch

    best, prob = [], []
    with torch.inference_mode():
        for start in range(0, n, batch_size):
            idx = torch.arange(start, min(n, start + batch_size))
            p = torch.softmax(model(make_input(idx)), dim=-1)
            value, arg = p.max(dim=-1)
            best.append(arg)
            prob.append(value)
    if not best:
        return torch.zeros(0, dtype=torch.long), torch.zeros(0)
    return torch.cat(best), torch.cat(prob)
