"""Training and evaluating the FE-type classifier's head over frozen encoder features.

:func:`train_fe_classifier` (``paraspan train-fe-classifier``) featurizes FrameNet full-text
train spans, a sample of LU exemplars and random ``NOT_FE`` spans once (cached), fits the MLP
head on them with the scores restricted to each frame's FEs, keeps the best epoch on dev, and
writes the head; :func:`evaluate_on_split` scores a head on a FrameNet split. Fine-tuning the
encoder's top layers with the head is :mod:`paraspan.filter.fe_tune`.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.filter.fe_classifier import (
    NOT_FE,
    FEClassifier,
    FEInstance,
    _stable,
    featurize,
    instances_from_sentence,
    quiet,
)
from paraspan.filter.mlp import train_masked_head

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.schema import Sentence
    from paraspan.models.encoder import Encoder

__all__ = ["FEReport", "FERecipe", "evaluate_on_split", "evaluate_split", "train_fe_classifier",
           "training_instances"]

@dataclass(frozen=True)
class FERecipe:
    """How the shipped head was trained (the defaults of ``paraspan train-fe-classifier``)."""

    exemplar_every: int = 100  # keep LU exemplar sentences whose id hash is 0 mod this (0: none)
    none_rate: float = 0.11  # random NOT_FE spans per real span (~10% of the data)
    hidden: int = 512
    epochs: int = 12
    lr: float = 1e-3
    weight_decay: float = 1e-4
    dropout: float = 0.5
    batch_size: int = 256
    prior_weights: tuple[float, ...] = (0.0, 0.25, 0.5, 1.0)
    seed: int = 0


@dataclass
class FEReport:
    examples: int
    exemplar_examples: int
    none_examples: int
    dev_accuracy: float
    dev_fe_accuracy: float
    best_epoch: int
    seconds: float
    path: Path
    history: list[dict[str, float]] = field(default_factory=list)


def _load_split(release: Path, splits: Path, split: str) -> list[Sentence]:
    from paraspan.corpus.framenet import read_framenet

    return list(read_framenet(release, split=split, splits=splits))


def _cached_features(encoder: Encoder, instances: Sequence[FEInstance], cache_dir: Path | None, name: str,
                     log: Callable[[str], None], fingerprint: str = "frozen") -> np.ndarray:
    digest = hashlib.sha1(fingerprint.encode())
    for inst in instances:
        digest.update(f"{inst.text}\x1f{inst.lu}\x1f{inst.fe}\x1f{inst.frame}\n".encode())
    digest.update(str(encoder.resolved.path).encode())
    path = cache_dir / f"fe-features-{name}-{digest.hexdigest()[:16]}.npy" if cache_dir is not None else None
    return cached_array(path, name, lambda progress: featurize(encoder, instances, progress), log)


def cached_array(path: Path | None, name: str, compute: Callable[[Callable[[int, int], None]], np.ndarray],
                 log: Callable[[str], None], every: int = 5 * 512) -> np.ndarray:
    """Features read from ``path`` (a float16 ``.npy``), or computed (logging the encoding rate
    every ``every`` spans) and saved there; no cache when ``path`` is None."""
    if path is not None and path.is_file():
        log(f"{name}: features from the cache {path}")
        return np.load(path, allow_pickle=False).astype(np.float32)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done == total or done % every < 512:
            rate = done / max(time.perf_counter() - started, 1e-9)
            log(f"{name}: encoded {done:,}/{total:,} spans ({rate:.0f}/s)")

    feats = compute(progress)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, feats.astype(np.float16), allow_pickle=False)
    return feats


def training_instances(release: Path, splits: Path, recipe: FERecipe,
                       log: Callable[[str], None] = quiet) -> tuple[list[FEInstance], int]:
    """Train full-text spans, sampled exemplar spans and NOT_FE spans; returns them and the exemplar count."""
    from paraspan.corpus.framenet import read_framenet

    out: list[FEInstance] = []
    for sentence in _load_split(release, splits, "train"):
        out.extend(instances_from_sentence(sentence, none_rate=recipe.none_rate, seed=recipe.seed))
    log(f"train full text: {len(out):,} spans")
    exemplar = 0
    if recipe.exemplar_every > 0:
        for sentence in read_framenet(release, exemplars=True):
            if _stable(sentence.id) % recipe.exemplar_every:
                continue
            got = list(instances_from_sentence(sentence, none_rate=recipe.none_rate, seed=recipe.seed))
            exemplar += len(got)
            out.extend(got)
        log(f"exemplars (1 sentence in {recipe.exemplar_every}): {exemplar:,} spans")
    return out, exemplar


def evaluate_split(classifier: FEClassifier, instances: Sequence[FEInstance], features: np.ndarray,
                   frames: FrameIndex | None = None) -> dict[str, float]:
    """Accuracy over all spans, over real FE spans and over NOT_FE spans."""
    preds = classifier.predict_features(features, [i.frame for i in instances], frames)
    gold = [i.label for i in instances]
    right = np.array([p == g for (p, _), g in zip(preds, gold, strict=True)], dtype=bool)
    real = np.array([g != NOT_FE for g in gold], dtype=bool)
    return {"accuracy": float(right.mean()) if right.size else 0.0,
            "fe_accuracy": float(right[real].mean()) if real.any() else 0.0,
            "not_fe_accuracy": float(right[~real].mean()) if (~real).any() else 0.0,
            "spans": int(right.size), "fe_spans": int(real.sum())}


def train_fe_classifier(release: str | Path, splits: str | Path, out: str | Path, recipe: FERecipe | None = None,
                        *, cache_dir: str | Path | None = None,
                        log: Callable[[str], None] = quiet) -> FEReport:
    """Train the head on FrameNet train (+ exemplars), choose the epoch on dev, write ``out``."""

    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.models import load_encoder

    recipe = recipe or FERecipe()
    started = time.perf_counter()
    release, splits = Path(release), Path(splits)
    cache = Path(cache_dir) if cache_dir is not None else None
    index = FrameIndex.load(release)
    encoder = load_encoder(batch_size=64)
    train, exemplar = training_instances(release, splits, recipe, log)
    dev: list[FEInstance] = []
    for sentence in _load_split(release, splits, "dev"):
        dev.extend(instances_from_sentence(sentence, none_rate=recipe.none_rate, seed=recipe.seed + 1))
    x_train = _cached_features(encoder, train, cache, "train", log)
    x_dev = _cached_features(encoder, dev, cache, "dev", log)

    labels = sorted({i.label for i in train if i.label} | {NOT_FE})
    frame_fes = {name: list(frame.fes) for name, frame in index.frames.items()}
    clf = _fit(x_train, train, x_dev, dev, labels, frame_fes, recipe, log)
    clf.prior = dict(Counter((i.frame, i.label) for i in train if i.label))
    tried = {}
    for weight in recipe.prior_weights:  # chosen on dev, like the epoch
        clf.prior_weight = weight
        tried[weight] = evaluate_split(clf, dev, x_dev)["accuracy"]
        log(f"prior weight {weight}: dev accuracy {tried[weight]:.3f}")
    clf.prior_weight = max(tried, key=lambda w: (tried[w], -w))
    clf.info["prior_dev_accuracy"] = {str(k): round(v, 4) for k, v in tried.items()}
    clf.info.update({"recipe": asdict(recipe), "train_spans": len(train), "exemplar_spans": exemplar,
                     "encoder": encoder.resolved.name, "release": release.name})
    dev_scores = evaluate_split(clf, dev, x_dev)
    clf.info["dev"] = dev_scores
    path = clf.save(out)
    return FEReport(len(train), exemplar, sum(1 for i in train if i.label == NOT_FE), dev_scores["accuracy"],
                    dev_scores["fe_accuracy"], int(clf.info.get("best_epoch", 0)), time.perf_counter() - started,
                    path, clf.info.get("history", []))


def _masks(instances: Sequence[FEInstance], labels: list[str], frame_fes: dict[str, list[str]]) -> np.ndarray:
    index = {n: i for i, n in enumerate(labels)}
    by_frame: dict[str, np.ndarray] = {}
    out = np.zeros((len(instances), len(labels)), dtype=bool)
    for row, inst in enumerate(instances):
        mask = by_frame.get(inst.frame)
        if mask is None:
            mask = np.zeros(len(labels), dtype=bool)
            names = frame_fes.get(inst.frame)
            if names is None:
                mask[:] = True
            else:
                mask[[index[n] for n in names if n in index]] = True
                mask[index[NOT_FE]] = True
            by_frame[inst.frame] = mask
        out[row] = mask
    return out


def _fit(x_train: np.ndarray, train: Sequence[FEInstance], x_dev: np.ndarray, dev: Sequence[FEInstance],
         labels: list[str], frame_fes: dict[str, list[str]], recipe: FERecipe,
         log: Callable[[str], None]) -> FEClassifier:
    import torch

    index = {n: i for i, n in enumerate(labels)}
    mean = x_train.mean(0)
    scale = x_train.std(0) + 1e-4
    xt = torch.from_numpy((x_train - mean) / scale)
    yt = torch.tensor([index[i.label] for i in train], dtype=torch.long)
    mt = torch.from_numpy(_masks(train, labels, frame_fes))
    # a gold FE that the frame file does not list (rare annotation quirks) stays learnable
    mt[torch.arange(len(yt)), yt] = True
    history: list[dict[str, float]] = []

    def score(net: Any, epoch: int, loss: float) -> float:
        clf = _snapshot(net, mean, scale, labels, frame_fes)
        scores = evaluate_split(clf, dev, x_dev) if dev else {"accuracy": 0.0, "fe_accuracy": 0.0}
        history.append({"epoch": epoch, "loss": loss, **{k: round(v, 4) for k, v in scores.items()}})
        log(f"epoch {epoch}: loss {loss:.3f}, dev accuracy {scores['accuracy']:.3f} "
            f"(FE spans {scores['fe_accuracy']:.3f})")
        return scores["accuracy"]

    net, best_epoch = train_masked_head(xt, yt, mt, hidden=recipe.hidden, dropout=recipe.dropout, lr=recipe.lr,
                                        weight_decay=recipe.weight_decay, epochs=recipe.epochs,
                                        batch_size=recipe.batch_size, seed=recipe.seed, score=score)
    clf = _snapshot(net, mean, scale, labels, frame_fes)
    clf.info = {"best_epoch": best_epoch, "history": history}
    return clf


def _snapshot(net: Any, mean: np.ndarray, scale: np.ndarray, labels: list[str],
              frame_fes: dict[str, list[str]]) -> FEClassifier:
    """The numpy classifier of a torch head (Dropout, Linear, ReLU, Dropout, Linear), on any device."""

    def arr(t: Any) -> np.ndarray:
        return t.detach().float().cpu().numpy()

    first, last = net[1], net[4]
    return FEClassifier(arr(first.weight).T.copy(), arr(first.bias).copy(), arr(last.weight).T.copy(),
                        arr(last.bias).copy(), mean.astype(np.float32), scale.astype(np.float32), list(labels),
                        {f: list(v) for f, v in frame_fes.items()})


def evaluate_on_split(head: str | Path | None, release: str | Path, splits: str | Path, split: str, *,
                      none_rate: float = 0.11, seed: int = 1, cache_dir: str | Path | None = None,
                      log: Callable[[str], None] = quiet) -> dict[str, float]:
    """Accuracy of a head on one full-text split (gold FE spans plus ~10% NOT_FE spans)."""

    from paraspan.corpus.frame_index import FrameIndex

    classifier = FEClassifier.load(head)
    encoder = classifier.ensure_encoder()
    instances: list[FEInstance] = []
    for sentence in _load_split(Path(release), Path(splits), split):
        instances.extend(instances_from_sentence(sentence, none_rate=none_rate, seed=seed))
    feats = _cached_features(encoder, instances, Path(cache_dir) if cache_dir is not None else None, split, log,
                             classifier.fingerprint())
    return evaluate_split(classifier, instances, feats, FrameIndex.load(release))
