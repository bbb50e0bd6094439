"""The learned output filter of Culkin et al. 2021 (§6.1, Table 4 lower section), over the
paper's features or the verification checks every output records.

A feed-forward network with two hidden layers of 10 units and a sigmoid output reads an
output's features and says keep (≥ 0.5) or drop. It is trained with binary cross-entropy on
human judgments (score 0–100, averaged per output, ≥ 50 = accept); the *precision* variant
down-weights the loss of accepted examples (it learns to keep only what it is sure of), the
*recall* variant down-weights the loss of rejected ones.

Feature sets (:data:`FEATURE_SETS`; the model file names its set and its columns, and reads
exactly those):

- ``paper``: (iteration, paraphrase NLL, aligner score), the paper's three. Only paraphrase
  outputs have an NLL: the rule rewriter's and the infiller's cannot be used.
- ``checks``: what every generator's outputs have: the iteration, the aligner's anchor score
  and lowest span score, each recorded check's keep (0/1) and score (0 plus a 0/1
  ``….missing`` column where the check gives none: ``spans``, ``relation``), and the NLI labels
  of the relation both ways, one-hot (all 0 without a relation). A check that no judged output
  records is left out of the columns (but not all of them: outputs with no checks are unusable).
- ``all``: both; the NLL is optional there (0 plus ``nll.missing``), so outputs of every
  generator stay usable.

A column ``X`` is optional when the model also has ``X.missing`` (and indicator and one-hot
columns always are); an output lacking a required column is not decided (the filter drops it)
and is not trained on (:func:`feature_table` counts such rows, by what they lack).

:func:`train_filter` with ``folds=k`` also cross-validates (stratified k-fold) and scores, on
the same folds, the rule-based decision the outputs record (the ``verified`` check), so one
sees whether the learned filter beats the rule.

The model is a few hundred numbers: it is saved as JSON (weights, the feature scaling, how it
was trained and its held-out scores), never as a pickle.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision
from paraspan.filter.mlp import mlp_logits
from paraspan.filter.thresholds import features

#: The paper's features, in the order of a ``paper`` model's rows.
INPUTS = ("iteration", "nll", "aligner")
HIDDEN = (10, 10)
FEATURE_SETS = ("paper", "checks", "all")
#: The checks whose keep and score the ``checks`` set reads (the parts of ``verified``, and it).
CHECKS = ("labels", "spans", "fluency", "relation", "verified")
NLI_LABELS = ("entailment", "neutral", "contradiction")
#: The recorded check a learned filter is compared with.
RULE = "verified"
MISSING = ".missing"


def feature_columns(feature_set: str = "paper", checks: Iterable[str] | None = None) -> list[str]:
    """The columns of ``feature_set``; ``checks``: the checks to read (default :data:`CHECKS`)."""
    if feature_set not in FEATURE_SETS:
        raise ParaspanError.from_code("E735", name=feature_set, choices=", ".join(FEATURE_SETS))
    if feature_set == "paper":
        return list(INPUTS)
    wanted = set(CHECKS if checks is None else checks)
    cols = ["iteration", "nll", "nll" + MISSING] if feature_set == "all" else ["iteration"]
    cols += ["aligner", "min_span"]
    for name in (c for c in CHECKS if c in wanted):
        cols += [f"checks.{name}.keep", f"checks.{name}.score", f"checks.{name}.score{MISSING}"]
    cols += [f"relation.{way}.{label}" for way in ("forward", "backward") for label in NLI_LABELS]
    return cols


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _read(prov: Mapping[str, Any], feats: Mapping[str, Any], column: str) -> float | None:
    """One column's value in an output's provenance; None when it is not there."""
    if column.endswith(MISSING):
        return 1.0 if _read(prov, feats, column[: -len(MISSING)]) is None else 0.0
    if column.startswith("relation."):
        _, way, label = column.split(".", 2)
        relation = prov.get("relation")
        return float(isinstance(relation, Mapping) and relation.get(way) == label)
    if column.startswith("checks."):
        _, name, part = column.split(".", 2)
        check = (prov.get("checks") or {}).get(name)
        if not isinstance(check, Mapping):
            return None
        if part == "keep":
            return float(check["keep"]) if isinstance(check.get("keep"), bool) else None
        return _finite(check.get(part))
    return _finite(feats.get(column))


def _optional(column: str, columns: Sequence[str]) -> bool:
    return column.endswith(MISSING) or column.startswith("relation.") or column + MISSING in columns


def feature_values(provenance: Mapping[str, Any] | None, columns: Sequence[str] = INPUTS
                   ) -> tuple[list[float], list[str]]:
    """An output's row in ``columns`` (0 where an optional value is missing) and the required
    columns it lacks."""
    prov = provenance or {}
    feats = features(prov)
    row, lacking = [], []
    for column in columns:
        value = _read(prov, feats, column)
        if value is None:
            if not _optional(column, columns):
                lacking.append(column)
            value = 0.0
        row.append(value)
    return row, lacking


def feature_row(provenance: Mapping[str, Any] | None, columns: Sequence[str] = INPUTS) -> list[float] | None:
    """An output's row in ``columns`` (default: iteration, paraphrase NLL, aligner score), or
    None when it lacks a required one."""
    row, lacking = feature_values(provenance, columns)
    return None if lacking else row


def lacking_reason(lacking: Sequence[str], columns: Sequence[str]) -> str:
    """Why a row is not used, in words: ``missing nll``, ``missing checks`` (none recorded),
    ``missing checks.fluency``."""
    keeps = [c for c in columns if c.startswith("checks.") and c.endswith(".keep")]
    names = list(lacking)
    if keeps and all(c in names for c in keeps):
        names = [n for n in names if n not in keeps] + ["checks"]
    return "missing " + ", ".join(n.removesuffix(".keep") for n in names)


def recorded_checks(provenances: Iterable[Mapping[str, Any] | None]) -> set[str]:
    """The names of the checks recorded in any of ``provenances``."""
    found: set[str] = set()
    for prov in provenances:
        checks = (prov or {}).get("checks")
        if isinstance(checks, Mapping):
            found.update(checks)
    return found


def rule_decision(provenance: Mapping[str, Any] | None, rule: str = RULE) -> bool | None:
    """The recorded keep of the check ``rule`` (default ``verified``), None when not recorded."""
    check = ((provenance or {}).get("checks") or {}).get(rule)
    keep = check.get("keep") if isinstance(check, Mapping) else None
    return keep if isinstance(keep, bool) else None


@dataclass
class FeatureTable:
    """Judged outputs as training rows: ``rows`` in ``columns``, ``labels`` (accept = 1), the
    recorded rule's decision per row (``rule``), and the judged outputs left out, by why."""

    feature_set: str
    columns: list[str]
    ids: list[str] = field(default_factory=list)
    rows: list[list[float]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    rule: list[bool | None] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)
    #: Checks that no judged output records (their columns are left out).
    absent_checks: list[str] = field(default_factory=list)

    @property
    def unmatched(self) -> int:
        return self.dropped.get(UNMATCHED, 0)


UNMATCHED = "not among the outputs"


def feature_table(provenance: Mapping[str, Mapping[str, Any] | None], scores: Mapping[str, float],
                  feature_set: str = "paper", rule: str = RULE) -> FeatureTable:
    """The rows of the judged outputs: ``provenance`` (output id → provenance), ``scores``
    (output id → mean judgment, ≥ 50 = accept)."""
    judged = [provenance[oid] for oid in scores if oid in provenance]
    # a check no judged output records is left out; with none recorded at all, every row lacks them
    present = (recorded_checks(judged) or set(CHECKS)) if feature_set != "paper" else set(CHECKS)
    columns = feature_columns(feature_set, [c for c in CHECKS if c in present])
    table = FeatureTable(feature_set, columns, absent_checks=[c for c in CHECKS if c not in present])
    dropped: Counter[str] = Counter()
    for oid, score in scores.items():
        if oid not in provenance:
            dropped[UNMATCHED] += 1
            continue
        row, lacking = feature_values(provenance[oid], columns)
        if lacking:
            dropped[lacking_reason(lacking, columns)] += 1
            continue
        table.ids.append(oid)
        table.rows.append(row)
        table.labels.append(int(score >= 50))
        table.rule.append(rule_decision(provenance[oid], rule))
    table.dropped = dict(dropped.most_common())
    return table


@dataclass
class LearnedFilterModel:
    """Weights of the MLP, the features it reads (``columns`` of ``features``) and their scaling.

    Files written before feature sets existed have neither field: they are ``paper`` models."""

    mode: str  # "precision" or "recall"
    weights: list[list[list[float]]]  # per layer: (out, in)
    biases: list[list[float]]
    mean: list[float]
    std: list[float]
    threshold: float = 0.5
    info: dict[str, Any] = field(default_factory=dict)
    features: str = "paper"
    columns: list[str] = field(default_factory=lambda: list(INPUTS))

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """Keep-probabilities for feature rows ``(n, len(columns))`` in :attr:`columns` order."""
        layers = [(np.array(w).T, np.array(b)) for w, b in zip(self.weights, self.biases, strict=True)]
        x = mlp_logits(np.asarray(rows, dtype=np.float64), np.array(self.mean), np.array(self.std), layers)
        return 1.0 / (1.0 + np.exp(-x[:, 0]))

    def save(self, path: str | Path) -> Path:
        from paraspan.corpus.jsonl import atomic_write

        path = Path(path)
        with atomic_write(path) as handle:
            json.dump({"kind": "paraspan-learned-filter", "version": 2, **asdict(self)}, handle, indent=1)
            handle.write("\n")
        return path

    @classmethod
    def load(cls, path: str | Path) -> LearnedFilterModel:
        def bad(problem: str) -> ParaspanError:
            return ParaspanError.from_code("E720", file=str(path), problem=problem,
                                           fix="pass a file written by `paraspan train-filter`")

        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise bad(f"cannot read the learned filter: {exc}") from None
        if not isinstance(data, dict) or data.get("kind") != "paraspan-learned-filter":
            raise bad("not a learned filter file")
        data.pop("kind")
        data.pop("version", None)
        feature_set = data.setdefault("features", "paper")
        if feature_set not in FEATURE_SETS:
            raise bad(f"the learned filter's feature set {feature_set!r} is not one of {', '.join(FEATURE_SETS)}")
        columns = data.setdefault("columns", list(INPUTS) if feature_set == "paper" else None)
        if not isinstance(columns, list) or len(columns) != len(data.get("mean") or []):
            raise bad("the learned filter's feature columns do not match its scaling")
        try:
            return cls(**data)
        except TypeError as exc:
            raise bad(f"cannot read the learned filter: {exc}") from None


@dataclass
class LearnedFilter(BaseFilter):
    """A trained model as a :class:`~paraspan.filter.base.Filter` (ignores the source sentence);
    the decision's score is the keep-probability."""

    model: LearnedFilterModel
    name: str = "learned"
    READS_CHECKS: ClassVar[bool] = True  # the `checks` feature set reads the recorded checks

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        row, lacking = feature_values(output.provenance, self.model.columns)
        if lacking:
            if self.model.features == "paper":
                return FilterDecision(False, None, "missing iteration, paraphrase or aligner score")
            return FilterDecision(False, None, lacking_reason(lacking, self.model.columns))
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


def _cv_metrics(pred: np.ndarray, gold: np.ndarray) -> dict[str, Any]:
    """Precision (None when nothing is kept), recall, kept share and accuracy of ``pred``."""
    n, kept = len(gold), int((pred == 1).sum())
    tp = int(((pred == 1) & (gold == 1)).sum())
    pos = int((gold == 1).sum())
    return {"precision": round(tp / kept, 4) if kept else None, "recall": round(tp / pos, 4) if pos else None,
            "kept_share": round(kept / n, 4) if n else None,
            "accuracy": round(float((pred == gold).mean()), 4) if n else None,
            "n": n, "kept": kept, "accepted": pos}


def _mean(per_fold: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The mean of each score over the folds where it is defined (precision: where something was kept)."""
    out: dict[str, Any] = {}
    for key in ("precision", "recall", "kept_share", "accuracy"):
        values = [f[key] for f in per_fold if f[key] is not None]
        out[key] = round(sum(values) / len(values), 4) if values else None
    return out


def _fit(x: np.ndarray, y: np.ndarray, *, mode: str, down_weight: float, epochs: int, lr: float,
         seed: int) -> tuple[list[Any], list[Any], np.ndarray, np.ndarray, float]:
    """Train the 2×10 MLP on standardized ``x``: (weights, biases, mean, std, final loss)."""
    import torch
    from torch import nn

    from paraspan.train.loop import Fit

    mean = x.mean(axis=0)
    std = np.where(x.std(axis=0) > 1e-9, x.std(axis=0), 1.0)  # a constant column scales to 0
    torch.manual_seed(seed)
    layers: list[nn.Module] = []
    width = x.shape[1]
    for hidden in HIDDEN:
        layers += [nn.Linear(width, hidden), nn.ReLU()]
        width = hidden
    layers.append(nn.Linear(width, 1))
    net = nn.Sequential(*layers)
    xt = torch.tensor((x - mean) / std, dtype=torch.float32)
    yt = torch.tensor(y, dtype=torch.float32)
    weight = torch.where(yt == 1, down_weight if mode == "precision" else 1.0,
                         down_weight if mode == "recall" else 1.0)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    loss_fn = nn.BCEWithLogitsLoss(weight=weight)
    # The net is tiny: one torch thread is fastest (`paraspan train-filter` runs with one).
    result = Fit(net, opt, lambda _epoch: [None], lambda _: (loss_fn(net(xt)[:, 0], yt), 1.0),  # full batch
                 epochs=epochs).run()
    linears = [m for m in net if isinstance(m, nn.Linear)]
    return ([m.weight.detach().double().numpy().tolist() for m in linears],
            [m.bias.detach().double().numpy().tolist() for m in linears], mean, std, float(result.last_loss or 0.0))


def train_filter(rows: Sequence[Sequence[float]], labels: Sequence[int], *, mode: str = "precision",
                 down_weight: float = 0.3, epochs: int = 400, lr: float = 0.01, seed: int = 0,
                 test_share: float = 0.1, features: str = "paper", columns: Sequence[str] | None = None,
                 folds: int = 0, rule: Sequence[bool | None] | None = None,
                 rule_name: str = RULE, groups: Sequence[str] | None = None) -> LearnedFilterModel:
    """Train the 2×10 MLP on feature rows with accept (1) / reject (0) labels.

    ``rows`` are in ``columns`` (default: those of the feature set ``features``, for ``paper``
    the (iteration, NLL, aligner score) of :data:`INPUTS`); the model records both.
    ``mode="precision"`` multiplies the loss of label-1 rows by ``down_weight``, ``"recall"``
    that of label-0 rows. A held-out ``test_share`` (the paper: 10%) gives the scores stored in
    ``info``; the returned model is trained on the rest.

    ``folds=k`` (k ≥ 2; 0: none) also runs stratified k-fold cross-validation (seeded by
    ``seed``): ``info["cv"]`` holds per-fold, mean and pooled (all out-of-fold predictions)
    precision, recall, kept share and accuracy, and the same for ``rule`` (each row's recorded
    rule decision, None where it has none) on the rows of each fold it decides. ``groups`` (e.g.
    each output's source sentence) keeps a group's rows in one fold: the outputs of one sentence
    share text and scores, and a fold that trains on some of them and tests on the others
    measures memory, not the filter.
    """
    if mode not in ("precision", "recall"):
        raise ParaspanError.from_code("E721", mode=mode)
    cols = list(columns) if columns is not None else feature_columns(features)
    if features not in FEATURE_SETS:
        raise ParaspanError.from_code("E735", name=features, choices=", ".join(FEATURE_SETS))
    if folds < 0 or folds == 1:
        raise ParaspanError.from_code("E737", folds=folds)
    x = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1) if len(rows) else np.zeros((0, len(cols)))
    y = np.asarray(labels, dtype=np.float64)
    if x.shape[1] != len(cols) or (rule is not None and len(rule) != len(x)):  # a caller's bug
        raise ValueError(f"{len(x)} rows of {x.shape[1]} features, {len(cols)} columns, "
                         f"{'no' if rule is None else len(rule)} rule decisions")
    if len(x) < 10 or len(set(y.tolist())) < 2:
        raise ParaspanError.from_code("E722", n_judgments=len(x), n_accepted=int(y.sum()))
    n_pos = int(y.sum())
    if folds and min(n_pos, len(y) - n_pos) < folds:
        raise ParaspanError.from_code("E728", folds=folds, n_accepted=n_pos, n_rejected=len(y) - n_pos)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    n_test = max(1, int(round(test_share * len(x)))) if test_share > 0 else 0
    test, train = order[:n_test], order[n_test:]
    weights, biases, mean, std, loss = _fit(x[train], y[train], mode=mode, down_weight=down_weight, epochs=epochs,
                                            lr=lr, seed=seed)
    model = LearnedFilterModel(
        mode=mode, weights=weights, biases=biases, mean=mean.tolist(), std=std.tolist(),
        info={"train": len(train), "test": len(test), "down_weight": down_weight, "epochs": epochs,
              "final_loss": loss, "seed": seed},
        features=features, columns=cols,
    )
    if len(test):
        pred = (model.predict(x[test]) >= model.threshold).astype(int)
        model.info["test_scores"] = _metrics(pred, y[test].astype(int))
    pred = (model.predict(x[train]) >= model.threshold).astype(int)
    model.info["train_scores"] = _metrics(pred, y[train].astype(int))
    if folds:
        model.info["cv"] = cross_validate(x, y.astype(int), folds=folds, seed=seed, mode=mode, down_weight=down_weight,
                                          epochs=epochs, lr=lr, rule=rule, rule_name=rule_name, groups=groups)
    return model


def cross_validate(x: np.ndarray, y: np.ndarray, *, folds: int, seed: int, mode: str, down_weight: float,
                   epochs: int, lr: float, rule: Sequence[bool | None] | None = None,
                   rule_name: str = RULE, groups: Sequence[str] | None = None) -> dict[str, Any]:
    """Stratified ``folds``-fold CV of the MLP on (x, y), and of the recorded ``rule`` on the same folds
    (grouped by ``groups`` when given: a group's rows are never split between train and test)."""
    from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold

    decided = np.array([r is not None for r in rule], dtype=bool) if rule is not None else np.zeros(len(y), bool)
    rule_pred = np.array([int(bool(r)) for r in rule], dtype=int) if rule is not None else np.zeros(len(y), int)
    learned: list[dict[str, Any]] = []
    ruled: list[dict[str, Any]] = []
    same_rows: list[dict[str, Any]] = []  # the learned filter on the rows the rule decides
    pooled = np.zeros(len(y), dtype=int)
    if groups is not None:
        if len(groups) != len(y):
            raise ValueError(f"{len(groups)} groups for {len(y)} rows")
        if len(set(groups)) < folds:
            n_pos = int(y.sum())
            raise ParaspanError.from_code("E728", folds=folds, n_accepted=n_pos, n_rejected=len(y) - n_pos)
        splits = StratifiedGroupKFold(n_splits=folds, shuffle=True, random_state=seed).split(x, y, list(groups))
    else:
        splits = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed).split(x, y)
    for k, (train, test) in enumerate(splits):
        weights, biases, mean, std, _ = _fit(x[train], y[train].astype(np.float64), mode=mode,
                                             down_weight=down_weight, epochs=epochs, lr=lr, seed=seed + k)
        fold_model = LearnedFilterModel(mode, weights, biases, mean.tolist(), std.tolist())
        pred = (fold_model.predict(x[test]) >= fold_model.threshold).astype(int)
        pooled[test] = pred
        learned.append(_cv_metrics(pred, y[test]))
        on = decided[test]
        if on.any():
            ruled.append(_cv_metrics(rule_pred[test][on], y[test][on]))
            same_rows.append(_cv_metrics(pred[on], y[test][on]))
    out: dict[str, Any] = {
        "folds": folds, "seed": seed, "n": len(y), "accepted": int(y.sum()),
        "grouped": None if groups is None else len(set(groups)),
        "learned": {"per_fold": learned, "mean": _mean(learned), "pooled": _cv_metrics(pooled, y)},
        "rule": None, "rule_name": rule_name,
    }
    if ruled:
        n_decided = int(decided.sum())
        out["rule"] = {"name": rule_name, "n": n_decided, "per_fold": ruled, "mean": _mean(ruled),
                       "pooled": _cv_metrics(rule_pred[decided], y[decided])}
        if n_decided < len(y):  # the comparison on equal terms: the learned filter on the rule's rows
            out["learned_on_rule_rows"] = {"per_fold": same_rows, "mean": _mean(same_rows),
                                           "pooled": _cv_metrics(pooled[decided], y[decided])}
    return out


def cv_table(cv: Mapping[str, Any], mode: str = "precision") -> str:
    """The cross-validation scores of the learned filter and the rule as a small text table (means over folds)."""
    lines = [f"{cv['folds']}-fold cross-validation on {cv['n']} judged outputs ({cv['accepted']} accepted), "
             "mean over folds:",
             f"  {'':<28} {'precision':>9} {'recall':>7} {'kept':>6} {'accuracy':>8} {'n':>5}"]

    def line(name: str, scores: Mapping[str, Any], n: int) -> str:
        def cell(v: Any, width: int) -> str:
            return f"{v:>{width}.2f}" if v is not None else f"{'–':>{width}}"
        m = scores["mean"]
        return (f"  {name:<28} {cell(m['precision'], 9)} {cell(m['recall'], 7)} {cell(m['kept_share'], 6)} "
                f"{cell(m['accuracy'], 8)} {n:>5}")

    lines.append(line(f"learned ({mode})", cv["learned"], cv["n"]))
    rule = cv.get("rule")
    if rule:
        if "learned_on_rule_rows" in cv:
            lines.append(line("learned, on the rule's rows", cv["learned_on_rule_rows"], rule["n"]))
        lines.append(line(f"rule ({rule['name']} check)", rule, rule["n"]))
    else:
        lines.append(f"  (no recorded {cv.get('rule_name', RULE)} check to compare with)")
    return "\n".join(lines)
