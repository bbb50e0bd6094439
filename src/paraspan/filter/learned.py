"""The learned output filter of Culkin et al. 2021 (§6.1, Table 4 lower section).

A feed-forward network with two hidden layers of 10 units and a sigmoid output reads an
output's (iteration, paraphrase NLL, aligner score) and says keep (≥ 0.5) or drop. It is trained
with binary cross-entropy on human judgments (score 0–100, averaged per output, ≥ 50 = accept);
the *precision* variant down-weights the loss of accepted examples (it learns to keep only what
it is sure of), the *recall* variant down-weights the loss of rejected ones.

The model is a few hundred numbers: it is saved as JSON (weights, the feature scaling, how it
was trained and its held-out scores), never as a pickle.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision
from paraspan.filter.thresholds import features

INPUTS = ("iteration", "nll", "aligner")
HIDDEN = (10, 10)


@dataclass
class LearnedFilterModel:
    """Weights of the MLP and the feature scaling it expects."""

    mode: str  # "precision" or "recall"
    weights: list[list[list[float]]]  # per layer: (out, in)
    biases: list[list[float]]
    mean: list[float]
    std: list[float]
    threshold: float = 0.5
    info: dict[str, Any] = field(default_factory=dict)

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """Keep-probabilities for feature rows ``(n, 3)`` in :data:`INPUTS` order."""
        x = (np.asarray(rows, dtype=np.float64) - np.array(self.mean)) / np.array(self.std)
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            x = x @ np.array(w).T + np.array(b)
            if i < len(self.weights) - 1:
                x = np.maximum(x, 0.0)
        return 1.0 / (1.0 + np.exp(-x[:, 0]))

    def save(self, path: str | Path) -> Path:
        from paraspan.corpus.jsonl import atomic_write

        path = Path(path)
        with atomic_write(path) as handle:
            json.dump({"kind": "paraspan-learned-filter", "version": 1, **asdict(self)}, handle, indent=1)
            handle.write("\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> LearnedFilterModel:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ParaspanError.from_code("E720", file=str(path), problem=f"cannot read the learned filter: {exc}",
                                          fix="pass a file written by `paraspan train-filter`") from None
        if not isinstance(data, dict) or data.get("kind") != "paraspan-learned-filter":
            raise ParaspanError.from_code("E720", file=str(path), problem="not a learned filter file",
                                          fix="pass a file written by `paraspan train-filter`")
        data.pop("kind")
        data.pop("version", None)
        return cls(**data)


def feature_row(provenance: Mapping[str, Any] | None) -> list[float] | None:
    """(iteration, paraphrase NLL, aligner score) of an output, or None when one is missing."""
    feats = features(provenance)
    values = [feats.get(name) for name in INPUTS]
    if any(v is None or not math.isfinite(float(v)) for v in values):
        return None
    return [float(v) for v in values]  # type: ignore[arg-type]


@dataclass
class LearnedFilter(BaseFilter):
    """A trained model as a :class:`~paraspan.filter.base.Filter` (ignores the source sentence);
    the decision's score is the keep-probability."""

    model: LearnedFilterModel
    name: str = "learned"

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        row = feature_row(output.provenance)
        if row is None:
            return FilterDecision(False, None, "missing iteration, paraphrase or aligner score")
        p = float(self.model.predict(np.array([row]))[0])
        ok = p >= self.model.threshold
        return FilterDecision(ok, p, f"{self.model.mode} classifier p={p:.3f} {'≥' if ok else '<'} "
                              f"{self.model.threshold:g}", {"p": p})


def learned_filter(path: str | Path, record_as: str | None = None) -> LearnedFilter:
    """The registered ``learned`` filter: the `train-filter` model at ``path``, recorded as
    ``record_as`` (default: ``p-classifier`` or ``r-classifier`` after its mode)."""
    model = LearnedFilterModel.load(path)
    return LearnedFilter(model, record_as or f"{model.mode[0]}-classifier")


def _metrics(pred: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    tp = int(((pred == 1) & (gold == 1)).sum())
    kept = int((pred == 1).sum())
    pos = int((gold == 1).sum())
    return {"precision": tp / kept if kept else 0.0, "recall": tp / pos if pos else 0.0,
            "kept": kept, "n": len(gold), "accepted": pos}


def train_filter(rows: Sequence[Sequence[float]], labels: Sequence[int], *, mode: str = "precision",
                 down_weight: float = 0.3, epochs: int = 400, lr: float = 0.01, seed: int = 0,
                 test_share: float = 0.1) -> LearnedFilterModel:
    """Train the 2×10 MLP on (iteration, NLL, aligner score) rows with accept (1) / reject (0) labels.

    ``mode="precision"`` multiplies the loss of label-1 rows by ``down_weight``, ``"recall"``
    that of label-0 rows. A held-out ``test_share`` (the paper: 10%) gives the scores stored in
    ``info``; the returned model is trained on the rest.
    """
    import torch
    from torch import nn

    if mode not in ("precision", "recall"):
        raise ParaspanError.from_code("E721", mode=mode)
    x = np.asarray(rows, dtype=np.float64)
    y = np.asarray(labels, dtype=np.float64)
    if len(x) < 10 or len(set(y.tolist())) < 2:
        raise ParaspanError.from_code("E722", n_judgments=len(x), n_accepted=int(y.sum()))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    n_test = max(1, int(round(test_share * len(x)))) if test_share > 0 else 0
    test, train = order[:n_test], order[n_test:]
    mean = x[train].mean(axis=0)
    std = np.where(x[train].std(axis=0) > 1e-9, x[train].std(axis=0), 1.0)
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    width = len(INPUTS)
    for hidden in HIDDEN:
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    layers.append(nn.Linear(width, 1))
    net = nn.Sequential(*layers)
    xt = torch.tensor((x[train] - mean) / std, dtype=torch.float32)
    yt = torch.tensor(y[train], dtype=torch.float32)
    weight = torch.where(yt == 1, down_weight if mode == "precision" else 1.0,
                         down_weight if mode == "recall" else 1.0)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss_fn = nn.BCEWithLogitsLoss(weight=weight)
    for _ in range(epochs):  # full batch: a few thousand rows at most
        opt.zero_grad()
        loss = loss_fn(net(xt)[:, 0], yt)
        loss.backward()
        opt.step()
    linears = [m for m in net if isinstance(m, nn.Linear)]
    model = LearnedFilterModel(
        mode=mode,
        weights=[m.weight.detach().double().numpy().tolist() for m in linears],
        biases=[m.bias.detach().double().numpy().tolist() for m in linears],
        mean=mean.tolist(), std=std.tolist(),
        info={"train": len(train), "test": len(test), "down_weight": down_weight, "epochs": epochs,
              "final_loss": float(loss.item()), "seed": seed},
    )
    if len(test):
        pred = (model.predict(x[test]) >= model.threshold).astype(int)
        model.info["test_scores"] = _metrics(pred, y[test].astype(int))
    pred = (model.predict(x[train]) >= model.threshold).astype(int)
    model.info["train_scores"] = _metrics(pred, y[train].astype(int))
    return model
