"""FE-type classifier: which frame element (or none) a span fills, for one target of one frame.

After Cui & Swayamdipta (2024), Appendix D: one span at a time, with markers around the lexical
unit (``<< … >>``) and around the span (``[[ … ]]``), and the frame name appended
(``… | Commerce sell``). The paper fine-tunes SpanBERT. Here the packaged encoder
(all-MiniLM-L6-v2) is read by a small MLP head: either frozen (features computed once, the head
trained on a CPU in minutes: :func:`paraspan.filter.fe_train.train_fe_classifier`), or with its top layers fine-tuned
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

import json
import re
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.errors import ModelError
from paraspan.filter.mlp import MLPHead, softmax

if TYPE_CHECKING:
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.schema import Sentence
    from paraspan.models.encoder import Encoder


__all__ = ["NOT_FE", "FEClassifier", "FEInstance", "instances_from_sentence", "mark", "quiet"]

NOT_FE = "NOT_FE"


def quiet(message: str) -> None:
    """The default log: discard (the library prints nothing; the CLI passes its console)."""


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


#: A marked text and the character regions pooled from it: the span, the anchor, the context.
Marked = tuple[str, tuple[int, int], tuple[int, int] | None, tuple[int, int] | None]


def pool_marked(encoder: Encoder, items: Sequence[Any], marker: Callable[[Any], Marked],
                extras: Callable[[Any], list[float]], n_extra: int,
                progress: Callable[[int, int], None] | None = None, chunk: int = 512) -> np.ndarray:
    """Feature rows (float32, ``4 * dim + n_extra``) of marked spans, shared by the FE classifier
    and the span-label verifier: the mean state of the span's tokens, the state of its opening
    marker, the mean states of the anchor's and of the context's tokens (zeros for a region that
    is None), then ``extras(item)``."""
    dim = encoder.dim
    out = np.zeros((len(items), 4 * dim + n_extra), dtype=np.float32)
    for begin in range(0, len(items), chunk):
        batch = items[begin:begin + chunk]
        marked = [marker(item) for item in batch]
        states = encoder.encode_tokens([m[0] for m in marked])
        for row, (item, (_, span_r, anchor_r, ctx_r), st) in enumerate(zip(batch, marked, states, strict=True)):
            offs = np.asarray(st.offsets, dtype=np.int64).reshape(-1, 2)
            vec = out[begin + row]
            for slot, region in ((0, span_r), (2, anchor_r), (3, ctx_r)):
                if region is None:
                    continue
                inside = (offs[:, 0] >= region[0]) & (offs[:, 1] <= region[1]) & (offs[:, 1] > offs[:, 0])
                if inside.any():
                    vec[slot * dim:(slot + 1) * dim] = st.states[inside].mean(0)
            # the opening span marker: the last token ending at or before the span's content
            opener = np.flatnonzero(offs[:, 1] <= span_r[0])
            if opener.size:
                vec[dim:2 * dim] = st.states[opener[-1]]
            vec[4 * dim:] = extras(item)
        if progress is not None:
            progress(min(begin + chunk, len(items)), len(items))
    return out


def featurize(encoder: Encoder, instances: Sequence[FEInstance],
              progress: Callable[[int, int], None] | None = None, chunk: int = 512) -> np.ndarray:
    """Feature rows (float32, ``4 * dim + 3`` columns) for each instance (:func:`pool_marked`)."""
    return pool_marked(encoder, instances, mark, _position, _N_POS, progress, chunk)


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
class FEClassifier(MLPHead):
    """The MLP head over frozen encoder features, with each frame's FE names."""

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
            raise ModelError.from_code("E820", path=path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise ModelError.from_code("E821", path=path, exc=exc) from None
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

    def predict_features(self, features: np.ndarray, frames_of: Sequence[str],
                         frames: FrameIndex | None = None) -> list[tuple[str, float]]:
        """(label, probability) per feature row, restricted to the FEs of each row's frame."""
        logits = self.scores(features)
        out = []
        for row, frame in zip(logits, frames_of, strict=True):
            idx = self.allowed(frame, frames)
            sub = row[idx] + self.prior_weight * self._prior_row(frame, idx) if self.prior_weight else row[idx]
            probs = softmax(sub)
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

    def ensure_encoder(self, batch_size: int = 64) -> Encoder:
        """The encoder the features come from: the packaged one, or, for a fine-tuned head, a
        private copy with the tuned top layers (``fe-encoder.safetensors`` beside the head)."""
        if self.encoder is not None:
            return self.encoder
        from paraspan.models import load_encoder

        if not self.fine_tuned:
            self.encoder = load_encoder(batch_size=batch_size)
            return self.encoder
        from paraspan.models.encoder import Encoder as _Encoder
        from paraspan.models.encoder import load_private_model

        delta_path = (self.source.parent if self.source is not None else Path(".")) / str(self.info["encoder_delta"])
        if not delta_path.is_file():
            raise ModelError.from_code("E824", delta_path=delta_path)
        from paraspan.models.delta import apply_delta

        tokenizer, model, resolved = load_private_model()
        wrong = apply_delta(model, delta_path)
        if wrong:
            raise ModelError.from_code("E825", delta_path=delta_path, wrong=wrong[:2])
        self.encoder = _Encoder(tokenizer, model, int(model.config.hidden_size), resolved, batch_size=batch_size)
        return self.encoder

    def predict(self, instances: Sequence[FEInstance], frames: FrameIndex | None = None) -> list[tuple[str, float]]:
        if not instances:
            return []
        encoder = self.ensure_encoder()
        return self.predict_features(featurize(encoder, instances), [i.frame for i in instances], frames)
