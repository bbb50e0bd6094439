"""FE-type classifier: which frame element (or none) a span fills, for one target of one frame.

After Cui & Swayamdipta (2024), Appendix D: one span at a time, with markers around the lexical
unit (``<< … >>``) and around the span (``[[ … ]]``), and the frame name appended
(``… | Commerce sell``). The paper fine-tunes SpanBERT. Here the packaged encoder
(all-MiniLM-L6-v2) is read by a small MLP head: either frozen (features computed once, the head
trained on a CPU in minutes: :func:`train_fe_classifier`), or with its top layers fine-tuned
together with the head (:mod:`paraspan.filter.fe_tune`; the shipped classifier, whose tuned
layers ``fe-encoder.safetensors`` sit beside the head and are applied to a private copy of the
encoder by :meth:`FEClassifier.ensure_encoder`).

Features of one marked text: the mean state of the span's tokens, the state of its opening
marker, the mean state of the LU's tokens, the mean state of the frame-name tokens, and three
numbers (span before/after the LU, distance to it, span length). The head scores every FE name
seen in training plus ``NOT_FE``; at prediction the scores are restricted to the FEs of the
given frame (and ``NOT_FE``), which is what the frame name in the input is for.

Training data (``paraspan train-fe-classifier``): FrameNet full-text train spans, a sample of
the LU exemplars, and about 10% random word spans labelled ``NOT_FE``. The shipped head is
``paraspan/filter/data/fe-head.npz`` (numpy arrays only, no pickles).
"""

from __future__ import annotations

import hashlib
import json
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.errors import ModelError

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.schema import Sentence
    from paraspan.models.encoder import Encoder

__all__ = ["NOT_FE", "FEClassifier", "FEInstance", "FERecipe", "instances_from_sentence", "mark",
           "train_fe_classifier"]

NOT_FE = "NOT_FE"
LU_OPEN, LU_CLOSE = "<<", ">>"
FE_OPEN, FE_CLOSE = "[[", "]]"
HEAD_FILE = "fe-head.npz"
_WORD = re.compile(r"\S+")
_N_POS = 3  # the numeric position features
WINDOW = 12  # words of context kept on each side of the LU and the span


@dataclass(frozen=True)
class FEInstance:
    """One span to classify: ``fe`` and ``lu`` are ``(start, end)`` character spans of ``text``."""

    text: str
    lu: tuple[int, int]
    fe: tuple[int, int]
    frame: str
    label: str | None = None  # the gold FE name (or NOT_FE) when known


def mark(instance: FEInstance) -> tuple[str, tuple[int, int], tuple[int, int], tuple[int, int]]:
    """The marked text and the character ranges of the span, the LU and the frame name in it."""
    text, (ls, le), (fs, fe) = _window(instance)
    inserts = sorted([(ls, f"{LU_OPEN} ", 0), (le, f" {LU_CLOSE}", 1), (fs, f"{FE_OPEN} ", 0),
                      (fe, f" {FE_CLOSE}", 1)], key=lambda x: (x[0], x[2]))
    out: list[str] = []
    pos = 0
    where: dict[str, int] = {}
    length = 0
    for offset, piece, _ in inserts:
        out.append(text[pos:offset])
        length += offset - pos
        pos = offset
        out.append(piece)
        # record where each marked region's content starts/ends in the output
        key = {f"{LU_OPEN} ": "lu_s", f" {LU_CLOSE}": "lu_e", f"{FE_OPEN} ": "fe_s", f" {FE_CLOSE}": "fe_e"}[piece]
        where[key] = length + (len(piece) if key.endswith("_s") else 0)
        length += len(piece)
    out.append(text[pos:])
    marked = "".join(out)
    frame_text = instance.frame.replace("_", " ")
    frame_start = len(marked) + 3
    marked = f"{marked} | {frame_text}"
    return marked, (where["fe_s"], where["fe_e"]), (where["lu_s"], where["lu_e"]), \
        (frame_start, frame_start + len(frame_text))


def _window(instance: FEInstance, words: int = WINDOW) -> tuple[str, tuple[int, int], tuple[int, int]]:
    """The text cut to ``words`` words beyond the LU and the span on each side (long sentences cost time)."""
    text = instance.text
    lo = min(instance.lu[0], instance.fe[0])
    hi = max(instance.lu[1], instance.fe[1])
    left = [m.start() for m in _WORD.finditer(text, 0, lo)]
    right = [m.end() for m in _WORD.finditer(text, hi)]
    start = left[-words] if len(left) > words else 0
    end = right[words - 1] if len(right) > words else len(text)
    shift = start
    return (text[start:end], (instance.lu[0] - shift, instance.lu[1] - shift),
            (instance.fe[0] - shift, instance.fe[1] - shift))


def _position(instance: FEInstance) -> list[float]:
    (ls, le), (fs, fe) = instance.lu, instance.fe
    before = 1.0 if fe <= ls else (-1.0 if fs >= le else 0.0)
    gap = max(ls - fe, fs - le, 0)
    words = len(_WORD.findall(instance.text[fs:fe]))
    return [before, float(np.log1p(gap) / 5.0), float(np.log1p(words) / 3.0)]


def featurize(encoder: Encoder, instances: Sequence[FEInstance],
              progress: Callable[[int, int], None] | None = None, chunk: int = 512) -> np.ndarray:
    """Feature rows (float32, ``4 * dim + 3`` columns) for each instance."""
    dim = encoder.dim
    out = np.zeros((len(instances), 4 * dim + _N_POS), dtype=np.float32)
    for begin in range(0, len(instances), chunk):
        batch = instances[begin:begin + chunk]
        marked = [mark(inst) for inst in batch]
        states = encoder.encode_tokens([m[0] for m in marked])
        for row, (inst, (_, fe_r, lu_r, fr_r), st) in enumerate(zip(batch, marked, states, strict=True)):
            offs = np.asarray(st.offsets, dtype=np.int64).reshape(-1, 2)
            vec = out[begin + row]
            for k, (a, b) in enumerate((fe_r, lu_r, fr_r)):
                inside = (offs[:, 0] >= a) & (offs[:, 1] <= b) & (offs[:, 1] > offs[:, 0])
                if inside.any():
                    vec[[0, 2, 3][k] * dim:([0, 2, 3][k] + 1) * dim] = st.states[inside].mean(0)
            # the opening span marker: the last token ending at or before the span's content
            opener = np.flatnonzero(offs[:, 1] <= fe_r[0])
            if opener.size:
                vec[dim:2 * dim] = st.states[opener[-1]]
            vec[4 * dim:] = _position(inst)
        if progress is not None:
            progress(min(begin + chunk, len(instances)), len(instances))
    return out


# ----------------------------------------------------------------------------- data


def _stable(*parts: object) -> int:
    return zlib.crc32("\x1f".join(map(str, parts)).encode("utf-8"))


def _random_span(text: str, taken: set[tuple[int, int]], anchor: tuple[int, int],
                 rng: np.random.Generator) -> tuple[int, int] | None:
    words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
    if len(words) < 2:
        return None
    for _ in range(8):
        n = int(rng.integers(1, min(5, len(words)) + 1))
        i = int(rng.integers(0, len(words) - n + 1))
        span = (words[i][0], words[i + n - 1][1])
        if span in taken or (span[0] < anchor[1] and anchor[0] < span[1]):
            continue
        return span
    return None


def instances_from_sentence(sentence: Sentence, *, none_rate: float = 0.0, seed: int = 0,
                            verbs_only: bool = False) -> Iterator[FEInstance]:
    """FE instances of every frame structure with a target; plus ``NOT_FE`` spans at ``none_rate``.

    ``none_rate`` is the expected number of random spans per real one (0.11 makes them ~10% of
    the data). Random spans avoid the target and every FE span of the structure.
    """
    for k, structure in enumerate(sentence.structures):
        if structure.kind != "frame" or structure.anchor is None or not structure.args:
            continue
        lu_name = structure.anchor.label or ""
        if verbs_only and not lu_name.endswith(".v"):
            continue
        anchor = (structure.anchor.start, structure.anchor.end)
        taken = {(a.start, a.end) for a in structure.args}
        for arg in structure.args:
            if arg.label:
                yield FEInstance(sentence.text, anchor, (arg.start, arg.end), structure.label, arg.label)
        if none_rate > 0:
            rng = np.random.default_rng([seed, _stable(sentence.id, k)])
            count = int(rng.poisson(none_rate * len(structure.args)))
            for _ in range(count):
                span = _random_span(sentence.text, taken, anchor, rng)
                if span is not None:
                    taken.add(span)
                    yield FEInstance(sentence.text, anchor, span, structure.label, NOT_FE)


# ----------------------------------------------------------------------------- the classifier


@dataclass
class FEClassifier:
    """The MLP head over frozen encoder features, with each frame's FE names."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray
    mean: np.ndarray
    scale: np.ndarray
    labels: list[str]
    frame_fes: dict[str, list[str]]
    info: dict[str, Any] = field(default_factory=dict)
    encoder: Encoder | None = None
    #: (frame, FE) → count of training spans: a log-frequency prior, weighted by ``prior_weight``
    prior: dict[tuple[str, str], int] = field(default_factory=dict)
    prior_weight: float = 0.0
    #: where the head was read from: a fine-tuned head keeps its encoder delta beside it
    source: Path | None = None
    _index: dict[str, int] = field(default_factory=dict, repr=False)
    _prior_rows: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._index = {name: i for i, name in enumerate(self.labels)}

    def _prior_row(self, frame: str, idx: np.ndarray) -> np.ndarray:
        """log((count + 1) / (frame total + K)) over the allowed labels of ``frame``."""
        row = self._prior_rows.get(frame)
        if row is None or len(row) != len(idx):
            counts = np.array([self.prior.get((frame, self.labels[i]), 0) for i in idx], dtype=np.float64)
            row = np.log((counts + 1.0) / (counts.sum() + len(idx))).astype(np.float32)
            self._prior_rows[frame] = row
        return row

    # -- persistence
    @classmethod
    def load(cls, path: str | Path | None = None, *, encoder: Encoder | None = None) -> FEClassifier:
        """The head at ``path`` (a ``.npz`` file or a folder holding ``fe-head.npz``); default: packaged."""
        if path is None:
            with as_file(files("paraspan.filter") / "data" / HEAD_FILE) as packaged:
                return cls._read(Path(packaged), encoder)
        target = Path(path)
        if target.is_dir():
            target = target / HEAD_FILE
        return cls._read(target, encoder)

    @classmethod
    def _read(cls, path: Path, encoder: Encoder | None) -> FEClassifier:
        if not path.is_file():
            raise ModelError(f"no FE classifier head at {path}",
                             "train one with `paraspan train-fe-classifier` or reinstall paraspan", code="E820")
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot read the FE classifier head {path}: {exc}",
                             "re-run `paraspan train-fe-classifier`", code="E821") from None
        labels = [str(x) for x in arrays["labels"]]
        frames = [str(x) for x in arrays["frames"]]
        frame_fes: dict[str, list[str]] = {f: [] for f in frames}
        for fi, li in arrays["frame_fe_pairs"].tolist():
            frame_fes[frames[fi]].append(labels[li])
        info = json.loads(str(arrays["info"])) if "info" in arrays else {}
        prior = {(frames[fi], labels[li]): int(n) for fi, li, n in arrays["prior"].tolist()} if "prior" in arrays \
            else {}
        return cls(arrays["w1"].astype(np.float32), arrays["b1"].astype(np.float32),
                   arrays["w2"].astype(np.float32), arrays["b2"].astype(np.float32),
                   arrays["mean"].astype(np.float32), arrays["scale"].astype(np.float32),
                   labels, frame_fes, info, encoder, prior, float(info.get("prior_weight", 0.0)), path)

    def save(self, path: str | Path) -> Path:
        target = Path(path)
        if target.suffix != ".npz":
            target.mkdir(parents=True, exist_ok=True)
            target = target / HEAD_FILE
        frames = sorted(set(self.frame_fes) | {f for f, _ in self.prior})
        frame_pos = {f: i for i, f in enumerate(frames)}
        pairs = [(fi, self._index[fe]) for fi, f in enumerate(frames) for fe in self.frame_fes.get(f, [])
                 if fe in self._index]
        prior = [(frame_pos[f], self._index[fe], n) for (f, fe), n in sorted(self.prior.items()) if fe in self._index]
        self.info["prior_weight"] = self.prior_weight
        # float16 weights: half the size, and the scores do not move measurably
        np.savez_compressed(
            target, w1=self.w1.astype(np.float16), b1=self.b1.astype(np.float32), w2=self.w2.astype(np.float16),
            b2=self.b2.astype(np.float32), mean=self.mean.astype(np.float32), scale=self.scale.astype(np.float32),
            labels=np.array(self.labels), frames=np.array(frames),
            frame_fe_pairs=np.array(pairs, dtype=np.int32).reshape(-1, 2),
            prior=np.array(prior, dtype=np.int32).reshape(-1, 3), info=np.array(json.dumps(self.info)))
        return target

    # -- prediction
    def allowed(self, frame: str, frames: FrameIndex | None = None) -> np.ndarray:
        """Label indices open to a span of ``frame``: its FEs (known to the head) and NOT_FE."""
        names = self.frame_fes.get(frame)
        if names is None and frames is not None and frame in frames:
            names = list(frames.frames[frame].fes)
        if names is None:  # a frame unknown to both: every label
            return np.arange(len(self.labels))
        idx = sorted({self._index[n] for n in names if n in self._index} | {self._index[NOT_FE]})
        return np.asarray(idx, dtype=np.int64)

    def scores(self, features: np.ndarray) -> np.ndarray:
        hidden = np.maximum(0.0, ((features - self.mean) / self.scale) @ self.w1 + self.b1)
        return hidden @ self.w2 + self.b2

    def predict_features(self, features: np.ndarray, frames_of: Sequence[str],
                         frames: FrameIndex | None = None) -> list[tuple[str, float]]:
        """(label, probability) per feature row, restricted to the FEs of each row's frame."""
        logits = self.scores(features)
        out = []
        for row, frame in zip(logits, frames_of, strict=True):
            idx = self.allowed(frame, frames)
            sub = row[idx] + self.prior_weight * self._prior_row(frame, idx) if self.prior_weight else row[idx]
            sub = sub - sub.max()
            probs = np.exp(sub) / np.exp(sub).sum()
            best = int(np.argmax(probs))
            out.append((self.labels[idx[best]], float(probs[best])))
        return out

    @property
    def fine_tuned(self) -> bool:
        return bool(self.info.get("encoder_delta"))

    def fingerprint(self) -> str:
        """What the features depend on besides the text: the encoder, and a tuned delta if any."""
        if not self.fine_tuned or self.source is None:
            return "frozen"
        delta = self.source.parent / str(self.info["encoder_delta"])
        return f"{delta.name}:{delta.stat().st_size if delta.is_file() else 0}:{self.info.get('training', {})}"

    def ensure_encoder(self, threads: int | None = None, batch_size: int = 64) -> Encoder:
        """The encoder the features come from: the packaged one, or, for a fine-tuned head, a
        private copy with the tuned top layers (``fe-encoder.safetensors`` beside the head)."""
        if self.encoder is not None:
            return self.encoder
        from paraspan.models import load_encoder

        if not self.fine_tuned:
            self.encoder = load_encoder(threads=threads, batch_size=batch_size)
            return self.encoder
        from paraspan.models.encoder import Encoder as _Encoder
        from paraspan.models.encoder import load_private_model

        if threads is not None:
            import torch

            torch.set_num_threads(max(1, int(threads)))
        delta_path = (self.source.parent if self.source is not None else Path(".")) / str(self.info["encoder_delta"])
        if not delta_path.is_file():
            raise ModelError(f"the fine-tuned FE classifier needs its encoder layers at {delta_path}",
                             "keep fe-encoder.safetensors beside fe-head.npz, or retrain with "
                             "`paraspan train-fe-classifier --fine-tune`", code="E824")
        from safetensors.torch import load_file

        tokenizer, model, resolved = load_private_model()
        delta = {k: v.float() for k, v in load_file(str(delta_path)).items()}
        state = model.state_dict()
        wrong = [k for k in delta if k not in state or state[k].shape != delta[k].shape]
        if wrong:
            raise ModelError(f"{delta_path} does not fit the packaged encoder ({wrong[:2]})",
                             "retrain with `paraspan train-fe-classifier --fine-tune`", code="E825")
        model.load_state_dict(delta, strict=False)
        self.encoder = _Encoder(tokenizer, model, int(model.config.hidden_size), resolved, batch_size=batch_size)
        return self.encoder

    def predict(self, instances: Sequence[FEInstance], frames: FrameIndex | None = None) -> list[tuple[str, float]]:
        if not instances:
            return []
        encoder = self.ensure_encoder()
        return self.predict_features(featurize(encoder, instances), [i.frame for i in instances], frames)


# ----------------------------------------------------------------------------- training


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
    if path is not None and path.is_file():
        log(f"{name}: features from the cache {path}")
        return np.load(path, allow_pickle=False).astype(np.float32)
    started = time.perf_counter()

    def progress(done: int, total: int) -> None:
        if done == total or done % (5 * 512) < 512:
            rate = done / max(time.perf_counter() - started, 1e-9)
            log(f"{name}: encoded {done:,}/{total:,} spans ({rate:.0f}/s)")

    feats = featurize(encoder, instances, progress)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, feats.astype(np.float16), allow_pickle=False)
    return feats


def training_instances(release: Path, splits: Path, recipe: FERecipe,
                       log: Callable[[str], None] = print) -> tuple[list[FEInstance], int]:
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
                        *, cache_dir: str | Path | None = None, threads: int = 1,
                        log: Callable[[str], None] = print) -> FEReport:
    """Train the head on FrameNet train (+ exemplars), choose the epoch on dev, write ``out``."""
    import torch

    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.models import load_encoder

    recipe = recipe or FERecipe()
    torch.set_num_threads(max(1, threads))
    started = time.perf_counter()
    release, splits = Path(release), Path(splits)
    cache = Path(cache_dir) if cache_dir is not None else None
    index = FrameIndex.load(release)
    encoder = load_encoder(threads=threads, batch_size=64)
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

    torch.manual_seed(recipe.seed)
    index = {n: i for i, n in enumerate(labels)}
    mean = x_train.mean(0)
    scale = x_train.std(0) + 1e-4
    xt = torch.from_numpy((x_train - mean) / scale)
    yt = torch.tensor([index[i.label] for i in train], dtype=torch.long)
    mt = torch.from_numpy(_masks(train, labels, frame_fes))
    # a gold FE that the frame file does not list (rare annotation quirks) stays learnable
    mt[torch.arange(len(yt)), yt] = True
    net = torch.nn.Sequential(torch.nn.Dropout(0.1), torch.nn.Linear(xt.shape[1], recipe.hidden), torch.nn.ReLU(),
                              torch.nn.Dropout(recipe.dropout), torch.nn.Linear(recipe.hidden, len(labels)))
    opt = torch.optim.AdamW(net.parameters(), lr=recipe.lr, weight_decay=recipe.weight_decay)
    gen = torch.Generator().manual_seed(recipe.seed)
    best: tuple[float, int, dict[str, Any]] | None = None
    history: list[dict[str, float]] = []
    for epoch in range(1, recipe.epochs + 1):
        net.train()
        order = torch.randperm(len(yt), generator=gen)
        total = 0.0
        for start in range(0, len(order), recipe.batch_size):
            idx = order[start:start + recipe.batch_size]
            logits = net(xt[idx]).masked_fill(~mt[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        clf = _snapshot(net, mean, scale, labels, frame_fes)
        scores = evaluate_split(clf, dev, x_dev) if dev else {"accuracy": 0.0, "fe_accuracy": 0.0}
        history.append({"epoch": epoch, "loss": total / len(yt), **{k: round(v, 4) for k, v in scores.items()}})
        log(f"epoch {epoch}: loss {total / len(yt):.3f}, dev accuracy {scores['accuracy']:.3f} "
            f"(FE spans {scores['fe_accuracy']:.3f})")
        if best is None or scores["accuracy"] > best[0]:
            best = (scores["accuracy"], epoch, {k: v.detach().clone() for k, v in net.state_dict().items()})
    assert best is not None
    net.load_state_dict(best[2])
    clf = _snapshot(net, mean, scale, labels, frame_fes)
    clf.info = {"best_epoch": best[1], "history": history}
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
                      threads: int = 1, log: Callable[[str], None] = print) -> dict[str, float]:
    """Accuracy of a head on one full-text split (gold FE spans plus ~10% NOT_FE spans)."""
    import torch

    from paraspan.corpus.frame_index import FrameIndex

    torch.set_num_threads(max(1, threads))
    classifier = FEClassifier.load(head)
    encoder = classifier.ensure_encoder(threads=threads)
    instances: list[FEInstance] = []
    for sentence in _load_split(Path(release), Path(splits), split):
        instances.extend(instances_from_sentence(sentence, none_rate=none_rate, seed=seed))
    feats = _cached_features(encoder, instances, Path(cache_dir) if cache_dir is not None else None, split, log,
                             classifier.fingerprint())
    return evaluate_split(classifier, instances, feats, FrameIndex.load(release))
