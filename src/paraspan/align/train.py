"""Training the discriminative aligner's head (the encoder stays frozen).

1. Read the train tasks; hold out a slice of them *by sentence pair* (``holdout``, default 10%)
   for choosing the epoch and the null threshold — the dev files are only scored at the end.
2. Encode every pair once (word vectors cached in memory); the scorer is tiny, so each epoch
   is then a few seconds of candidate featurization and matrix products.
3. Loss: binary cross-entropy with soft labels 2^-d(gold, candidate), d = |Δstart| + |Δend| in
   words (SBCE); all-zero labels for a task whose gold is null. Far candidates (d > ``near``)
   are subsampled each epoch (``far_per_task``), which keeps an epoch cheap; inference scores
   all candidates.
4. After each epoch: the threshold that maximizes exact F1 on the held-out slice; the best
   epoch's weights and threshold are kept.

Deterministic for a given seed and thread count (fixed shuffles, seeded torch).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from paraspan.align.base import Prepared, prepare
from paraspan.align.discriminative import (
    Candidates,
    HeadConfig,
    build_scorer,
    candidate_index,
    decide,
    featurize,
    fixed_features,
    save_head,
    score_candidates,
)
from paraspan.align.encoding import PairStates, encode_pairs
from paraspan.align.tasks import read_tasks
from paraspan.errors import ParaspanError

NEAR = 2  # candidates within this distance of gold are always trained on


@dataclass
class Example:
    item: Prepared
    gold: tuple[int, int] | None  # target word indices, inclusive; None = no counterpart


@dataclass
class TrainReport:
    head: Path | None
    config: HeadConfig
    threshold: float
    best_epoch: int
    history: list[dict[str, float]]
    dev: dict[str, dict[str, float]] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def load_examples(paths: Sequence[str | Path]) -> list[Example]:
    """Tasks with a gold field, tokenized; gold spans as target word indices."""
    out: list[Example] = []
    cache: dict[str, Any] = {}
    for path in paths:
        for task in read_tasks(path):
            item = prepare(task, cache)
            if item is None or len(item.tgt) == 0:
                continue
            gold = item.tgt.token_span(*task.gold) if task.gold is not None else None
            out.append(Example(item, gold))
    return out


def split_by_pair(examples: Sequence[Example], holdout: float, seed: int) -> tuple[list[Example], list[Example]]:
    """(fit, tune): a pair's tasks all go to the same side, chosen by a seeded hash."""
    fit: list[Example] = []
    tune: list[Example] = []
    for ex in examples:
        key = f"{seed}\t{ex.item.task.source}\t{ex.item.task.target}".encode()
        bucket = int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") % 10_000
        (tune if bucket < holdout * 10_000 else fit).append(ex)
    return fit, tune


def soft_labels(spans: tuple[np.ndarray, np.ndarray], gold: tuple[int, int] | None) -> np.ndarray:
    """SBCE targets 2^-d with d = |Δstart| + |Δend| (words); zeros when gold is null."""
    starts, ends = spans
    if gold is None:
        return np.zeros(len(starts), dtype=np.float32)
    d = np.abs(starts - gold[0]) + np.abs(ends - gold[1])
    return np.exp2(-d.astype(np.float32))


def best_threshold(best_scores: np.ndarray, correct: np.ndarray, gold_null: np.ndarray) -> tuple[float, float]:
    """The null threshold with the highest exact F1 (paper's counting) and that F1 (0-100)."""
    order = np.argsort(-best_scores, kind="stable")
    s, c = best_scores[order], correct[order].astype(np.float64)
    n_gold = float((~gold_null).sum())
    tp = np.cumsum(c)
    predicted = np.arange(1, len(s) + 1, dtype=np.float64)
    fp = predicted - tp
    fn = n_gold - tp
    f1 = np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1e-9), 0.0)
    # Cut only between distinct scores; the threshold sits halfway to the next lower score.
    last_of_run = np.append(s[1:] != s[:-1], True)
    f1 = np.where(last_of_run, f1, -1.0)
    i = int(np.argmax(f1))
    threshold = float((s[i] + s[i + 1]) / 2) if i + 1 < len(s) else float(s[i]) * 0.5
    return threshold, float(100 * f1[i])


def predict_examples(scorer: Any, config: HeadConfig, examples: Sequence[Example], states: Sequence[PairStates]
                     ) -> tuple[list[Candidates], list[np.ndarray]]:
    cums: dict[int, Any] = {}
    cands = [featurize(ex.item, st, config, cums) for ex, st in zip(examples, states, strict=True)]
    return cands, score_candidates(scorer, cands)


def tune_threshold(cands: Sequence[Candidates], scores: Sequence[np.ndarray], examples: Sequence[Example]
                   ) -> tuple[float, float]:
    best = np.array([float(sc.max()) if len(sc) else 0.0 for sc in scores])
    correct = np.zeros(len(examples), dtype=bool)
    for i, (ex, cand, sc) in enumerate(zip(examples, cands, scores, strict=True)):
        if ex.gold is not None and len(sc):
            j = int(np.argmax(sc))
            correct[i] = (int(cand.starts[j]), int(cand.ends[j])) == ex.gold
    gold_null = np.array([ex.gold is None for ex in examples])
    return best_threshold(best, correct, gold_null)


def evaluate_examples(scorer: Any, config: HeadConfig, examples: Sequence[Example], states: Sequence[PairStates],
                      threshold: float) -> dict[str, float]:
    """The alignment evaluator's scores for these examples at ``threshold``."""
    from paraspan.align.scoring import AlignmentEvaluator
    from paraspan.align.tasks import prediction_record

    cands, scores = predict_examples(scorer, config, examples, states)
    records = []
    for ex, st, cand, sc in zip(examples, states, cands, scores, strict=True):
        result = decide(ex.item, st, cand, sc, threshold)
        task = ex.item.task
        records.append(prediction_record({"source": task.source, "target": task.target,
                                          "source_span": list(task.source_span),
                                          "gold": list(task.gold) if task.gold else None}, result))
    return AlignmentEvaluator()(records)


def fit_head(
    config: HeadConfig,
    fit: Sequence[Example],
    fit_states: Sequence[PairStates],
    tune: Sequence[Example],
    tune_states: Sequence[PairStates],
    *,
    epochs: int = 12,
    lr: float = 1e-3,
    weight_decay: float = 1e-4,
    batch_tasks: int = 32,
    far_per_task: int = 24,
    near: int = NEAR,
    seed: int = 13,
    log: Callable[[str], None] | None = None,
) -> tuple[Any, float, int, list[dict[str, float]]]:
    """Train the scorer; return (scorer with the best epoch's weights, threshold, epoch, history)."""
    # torch's thread count is the caller's: `paraspan train-aligner --threads 1` is fastest for this small scorer.
    return _fit(config, fit, fit_states, tune, tune_states, epochs=epochs, lr=lr, weight_decay=weight_decay,
                batch_tasks=batch_tasks, far_per_task=far_per_task, near=near, seed=seed, log=log)


def _fit(config: HeadConfig, fit: Sequence[Example], fit_states: Sequence[PairStates], tune: Sequence[Example],
         tune_states: Sequence[PairStates], *, epochs: int, lr: float, weight_decay: float, batch_tasks: int,
         far_per_task: int, near: int, seed: int, log: Callable[[str], None] | None
         ) -> tuple[Any, float, int, list[dict[str, float]]]:
    import torch

    from paraspan.train.loop import Epoch, Fit

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    scorer = build_scorer(config)
    optim = torch.optim.Adam(scorer.parameters(), lr=lr, weight_decay=weight_decay)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(optim, T_max=max(1, epochs))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    # Candidates and labels are fixed; only the far-candidate sample changes per epoch. Features
    # are built per batch (all of them at once would take gigabytes).
    cums: dict[int, Any] = {}
    labels = [soft_labels(candidate_index(ex.item, st, config.k), ex.gold)
              for ex, st in zip(fit, fit_states, strict=True)]
    fixed = [fixed_features(ex.item, st, config, cums) for ex, st in zip(fit, fit_states, strict=True)]

    def batches(_epoch: int) -> Iterator[tuple[Any, Any]]:
        order = rng.permutation(len(fit))
        for b in range(0, len(order), batch_tasks):
            rows: list[np.ndarray] = []
            targets: list[np.ndarray] = []
            for i in order[b:b + batch_tasks]:
                y = labels[i]
                if not len(y):
                    continue
                keep = _sample(y, near, far_per_task, rng)
                rows.append(featurize(fit[i].item, fit_states[i], config, cums, keep, fixed[i]).feats)
                targets.append(y[keep])
            if not rows:
                continue
            x = torch.from_numpy(np.concatenate(rows))
            if len(x) >= 2:  # batchnorm needs two rows
                yield x, torch.from_numpy(np.concatenate(targets))

    history: list[dict[str, float]] = []
    thresholds: dict[int, float] = {}

    def score(end: Epoch) -> float:
        start = time.perf_counter()
        cands, scores = predict_examples(scorer, config, tune, tune_states)
        threshold, f1 = tune_threshold(cands, scores, tune)
        thresholds[end.epoch] = threshold
        row = {"epoch": end.epoch, "loss": end.loss, "tune_exact_f1": f1, "threshold": threshold,
               "seconds": end.seconds + time.perf_counter() - start}
        history.append(row)
        if log is not None:
            log(f"epoch {end.epoch:2d}  loss {row['loss']:.4f}  held-out exact F1 {f1:5.1f} "
                f"(threshold {threshold:.3f})  {row['seconds']:.1f}s")
        return f1

    result = Fit(scorer, optim, batches, lambda batch: (loss_fn(scorer(batch[0]).squeeze(-1), batch[1]), 1.0),
                 epochs=epochs, scheduler=sched, schedule="epoch").run(score, keep_best=True)
    scorer.eval()
    best = int(result.best_epoch or 0)
    return scorer, thresholds[best], best, history


def _sample(labels: np.ndarray, near: int, far: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of all near candidates (label ≥ 2^-near) and up to ``far`` random others."""
    close = np.flatnonzero(labels >= 2.0 ** -near)
    rest = np.flatnonzero(labels < 2.0 ** -near)
    if len(rest) > far:
        rest = rng.choice(rest, size=far, replace=False)
    return np.sort(np.concatenate([close, rest]))


def train_aligner(
    train_paths: Sequence[str | Path],
    dev_paths: Sequence[str | Path] = (),
    *,
    out: str | Path | None = None,
    encoder: str = "minilm",
    layer: int = 2,
    k: int = 5,
    features: Sequence[str] = ("df", "mx", "cue", "align", "lex"),
    hidden: int = 128,
    dropout: float = 0.1,
    epochs: int = 12,
    lr: float = 1e-3,
    near: int = 2,
    far_per_task: int = 24,
    holdout: float = 0.1,
    seed: int = 13,
    batch_size: int = 32,
    log: Callable[[str], None] | None = None,
) -> TrainReport:
    """Train a head on ``train_paths``, pick epoch and threshold on a held-out slice of them,
    score ``dev_paths`` once at the end, and write the head to ``out`` (if given)."""
    from paraspan.models.encoder import load_encoder

    say = log or (lambda _msg: None)
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    examples = load_examples(train_paths)
    if not examples:
        raise ParaspanError.from_code("E630")
    fit, tune = split_by_pair(examples, holdout, seed)
    if not fit or not tune:
        raise ParaspanError.from_code("E631", holdout=holdout, n_examples=len(examples))
    dev = {str(p): load_examples([p]) for p in dev_paths}
    enc = load_encoder(encoder, batch_size=batch_size)
    config = HeadConfig(encoder=encoder, dim=enc.dim, layer=layer, k=k, features=list(features), hidden=hidden,
                        dropout=dropout, max_length=enc.max_length)
    say(f"{len(fit)} tasks to fit, {len(tune)} held out (by pair), "
        f"{sum(len(v) for v in dev.values())} dev tasks; encoding with {encoder}")
    t1 = time.perf_counter()
    fit_states = encode_pairs(enc, [e.item for e in fit], layer=layer, batch_size=batch_size)
    tune_states = encode_pairs(enc, [e.item for e in tune], layer=layer, batch_size=batch_size)
    times["encode_train"] = time.perf_counter() - t1
    say(f"encoded the training pairs in {times['encode_train']:.0f}s")
    t2 = time.perf_counter()
    scorer, threshold, best_epoch, history = fit_head(config, fit, fit_states, tune, tune_states, epochs=epochs,
                                                      lr=lr, near=near, far_per_task=far_per_task, seed=seed,
                                                      log=say)
    times["fit"] = time.perf_counter() - t2
    config.threshold = threshold
    t3 = time.perf_counter()
    dev_scores: dict[str, dict[str, float]] = {}
    for name, exs in dev.items():
        states = encode_pairs(enc, [e.item for e in exs], layer=layer, batch_size=batch_size)
        dev_scores[name] = evaluate_examples(scorer, config, exs, states, threshold)
    times["dev"] = time.perf_counter() - t3
    times["total"] = time.perf_counter() - t0
    config.info = {
        "train": [Path(p).name for p in train_paths], "dev_files": [Path(p).name for p in dev_paths],
        "tasks_fit": len(fit), "tasks_held_out": len(tune), "holdout": holdout, "seed": seed,
        "epochs": epochs, "best_epoch": best_epoch, "lr": lr, "near": near, "far_per_task": far_per_task,
        "held_out_exact_f1": round(history[best_epoch - 1]["tune_exact_f1"], 2),
        "dev": {Path(n).name: {k: round(v, 2) for k, v in s.items() if k.endswith(("exact_f1", "soft_f1"))}
                for n, s in dev_scores.items()},
        "train_seconds": round(times["total"], 1),
    }
    path = save_head(out, scorer, config) if out is not None else None
    return TrainReport(path, config, threshold, best_epoch, history, dev_scores, times)
