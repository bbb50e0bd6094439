"""The discriminative span aligner of Culkin et al. 2021 (§4.1), with two cheap extras.

A frozen encoder reads ``[CLS] S [SEP] S' [SEP]``; the source span and every target span whose
length is within ``k`` words of it are mean-pooled; each (source, candidate) pair becomes

* ``df``: the element-wise difference S − C,
* ``mx``: the element-wise maximum max(S, C),
* ``cue``: start and length of both spans, each divided by its sentence's length,

as in the paper, and optionally

* ``align`` (12 columns): how the candidate agrees with word-level argmax alignments read off
  the same vectors (share of its words whose best source match lies in the span, mutual-argmax
  links in and out of the span, BERTScore-style soft precision/recall, the same signals just
  outside the candidate's edges, first/last word similarities);
* ``lex`` (6 columns): surface overlap (exact copy, shared lowercased words, words that copy
  source words outside the span);
* ``cos``: the cosine of the two span vectors.

A small feed-forward scorer (linear → batchnorm → PReLU → linear → sigmoid) rates each pair;
the best candidate wins, and below the head's tuned threshold the answer is null.

The shipped head reads MiniLM's layer 2 of 6 (a middle layer aligns words better than the last,
sentence-embedding one, and the layers above it are never computed) with all of df, mx, cue,
align and lex. On the held-out slice of the train tasks (exact F1): paper features on the last
layer 80, on layer 2 90, with align + lex 93 (see ``benchmarks/README.md``). Only the scorer is
stored (``align/data/``, < 1 MB) with the settings it was trained with; ``paraspan
train-aligner`` rebuilds it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib.resources import as_file, files
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from paraspan.align.base import AlignResult, AlignTask, Prepared, prepare_all
from paraspan.align.encoding import PairStates, candidate_spans, encode_pairs, span_means
from paraspan.errors import ModelError

if TYPE_CHECKING:
    import torch

FEATURES = ("df", "mx", "cue", "cos", "align", "lex")
DEFAULT_HEAD = "minilm-head.npz"


@dataclass
class HeadConfig:
    """Everything needed to rebuild the scorer and feed it the features it was trained on."""

    encoder: str = "minilm"
    dim: int = 384
    layer: int = 2  # hidden_states index: 0 = embeddings, -1 = last layer
    k: int = 5
    features: list[str] = field(default_factory=lambda: ["df", "mx", "cue", "align", "lex"])
    hidden: int = 128
    dropout: float = 0.1
    threshold: float = 0.5
    max_length: int = 256
    info: dict[str, Any] = field(default_factory=dict)  # how it was trained, its scores

    def input_dim(self) -> int:
        sizes = {"df": self.dim, "mx": self.dim, "cue": 4, "cos": 1, "align": 12, "lex": 6}
        return sum(sizes[f] for f in self.features)


def build_scorer(config: HeadConfig) -> torch.nn.Module:
    from torch import nn

    return nn.Sequential(
        nn.Linear(config.input_dim(), config.hidden),
        nn.BatchNorm1d(config.hidden),
        nn.PReLU(),
        nn.Dropout(config.dropout),
        nn.Linear(config.hidden, 1),
    )


@dataclass
class Candidates:
    """One task's candidate spans (target word indices, inclusive) and their feature rows."""

    starts: np.ndarray
    ends: np.ndarray
    feats: np.ndarray  # float32 (candidates, input_dim)


def candidate_index(item: Prepared, states: PairStates, k: int) -> tuple[np.ndarray, np.ndarray]:
    """A task's candidate spans as inclusive target word indices (full sentence, not window)."""
    starts, ends = candidate_spans(len(states.tgt.vecs), item.last - item.first + 1, k)
    return starts + states.tgt.offset, ends + states.tgt.offset


class PairCache:
    """What every span of one sentence pair shares: cumulative sums, the word similarity matrix,
    each word's best match on the other side, and lowercased words. Built on first use."""

    def __init__(self, item: Prepared, states: PairStates) -> None:
        src, tgt = states.src, states.tgt
        self.src_cum = src.cumsum()
        self.tgt_cum = tgt.cumsum()
        self._item = item
        self._states = states
        self._sim: np.ndarray | None = None

    def _ensure_sim(self) -> None:
        if self._sim is not None:
            return
        src, tgt = self._states.src, self._states.tgt
        ns = src.vecs / np.maximum(np.linalg.norm(src.vecs, axis=1, keepdims=True), 1e-8)
        nt = tgt.vecs / np.maximum(np.linalg.norm(tgt.vecs, axis=1, keepdims=True), 1e-8)
        self._sim = (ns @ nt.T).astype(np.float32)  # (source words, target words) in the windows
        self.best_src = self._sim.argmax(axis=0) if self._sim.shape[0] else np.zeros(len(nt), dtype=np.int64)
        self.best_tgt = self._sim.argmax(axis=1) if self._sim.shape[1] else np.zeros(len(ns), dtype=np.int64)
        # SimAlign's "argmax" links: each is the other's best match.
        self.mutual_src = np.full(len(nt), -1, dtype=np.int64)
        for s, t in enumerate(self.best_tgt):
            if len(nt) and self.best_src[t] == s:
                self.mutual_src[t] = s
        item = self._item
        self.src_lower = [w.lower() for w in item.src.words[src.offset:src.offset + len(src.vecs)]]
        self.tgt_lower = [w.lower() for w in item.tgt.words[tgt.offset:tgt.offset + len(tgt.vecs)]]

    @property
    def sim(self) -> np.ndarray:
        self._ensure_sim()
        return cast(np.ndarray, self._sim)  # set by _ensure_sim


def _range_mean(values: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    cum = np.concatenate([[0.0], np.cumsum(values, dtype=np.float64)])
    return ((cum[ends + 1] - cum[starts]) / (ends - starts + 1)).astype(np.float32)


def _range_max(rows: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """``rows[:, a..b].max(axis=1)`` for every (a, b), shape (len(rows), len(starts))."""
    padded = np.concatenate([rows, np.full((len(rows), 1), -np.inf, dtype=rows.dtype)], axis=1)
    idx = np.empty(2 * len(starts), dtype=np.int64)
    idx[0::2], idx[1::2] = starts, ends + 1
    return np.maximum.reduceat(padded, idx, axis=1)[:, 0::2]


def _at(values: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``values[index]``, 0 where the index falls outside (a candidate's missing neighbour)."""
    ok = (index >= 0) & (index < len(values))
    out = np.zeros(len(index), dtype=np.float32)
    out[ok] = values[index[ok]]
    return out


def _align_features(pc: PairCache, first: int, last: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Word-alignment consistency of each candidate with the source span (12 columns)."""
    sim = pc.sim
    in_span = ((pc.best_src >= first) & (pc.best_src <= last)).astype(np.float32)
    mut_in = ((pc.mutual_src >= first) & (pc.mutual_src <= last)).astype(np.float32)
    mut_out = ((pc.mutual_src >= 0) & ((pc.mutual_src < first) | (pc.mutual_src > last))).astype(np.float32)
    span_best = pc.best_tgt[first:last + 1]
    covered = ((span_best[:, None] >= starts[None, :]) & (span_best[:, None] <= ends[None, :])).mean(axis=0)
    rows = sim[first:last + 1]
    soft_p = _range_mean(rows.max(axis=0), starts, ends)  # each candidate word's best span word
    soft_r = _range_max(rows, starts, ends).mean(axis=0)  # each span word's best candidate word
    return np.stack([
        _range_mean(in_span, starts, ends), _range_mean(mut_in, starts, ends), _range_mean(mut_out, starts, ends),
        covered.astype(np.float32), soft_p, soft_r.astype(np.float32),
        _at(in_span, starts - 1), _at(in_span, ends + 1), _at(mut_in, starts - 1), _at(mut_in, ends + 1),
        sim[first, starts], sim[last, ends],
    ], axis=1)


def _lex_features(pc: PairCache, first: int, last: int, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Surface overlap of each candidate with the source span (6 columns)."""
    pc.sim  # noqa: B018 - builds the lowercased words
    span_words = pc.src_lower[first:last + 1]
    inside, outside = set(span_words), set(pc.src_lower[:first] + pc.src_lower[last + 1:]) - set(span_words)
    in_lex = np.array([w in inside for w in pc.tgt_lower], dtype=np.float32)
    out_lex = np.array([w in outside for w in pc.tgt_lower], dtype=np.float32)
    found = np.zeros(len(starts), dtype=np.float32)
    for w in inside:
        hits = np.array([t == w for t in pc.tgt_lower], dtype=np.float64)
        cum = np.concatenate([[0.0], np.cumsum(hits)])
        found += (cum[ends + 1] - cum[starts] > 0).astype(np.float32)
    recall = found / max(1, len(inside))
    width = last - first + 1
    exact = np.zeros(len(starts), dtype=np.float32)
    same_len = np.flatnonzero(ends - starts + 1 == width)
    for j in same_len:
        exact[j] = float(pc.tgt_lower[starts[j]:ends[j] + 1] == span_words)
    return np.stack([exact, _range_mean(in_lex, starts, ends), recall, _range_mean(out_lex, starts, ends),
                     _at(in_lex, starts - 1), _at(in_lex, ends + 1)], axis=1)


VECTOR_FEATURES = ("df", "mx")  # built from the span vectors; the others are a few columns each


def _task_spans(item: Prepared, states: PairStates, config: HeadConfig, cache: dict[int, PairCache] | None
                ) -> tuple[PairCache, int, int, np.ndarray, np.ndarray]:
    """The pair's shared work (from ``cache`` by pair), the source span inside its window (a span
    longer than the window keeps its first words) and the candidate target spans (window-relative)."""
    key = id(states)
    pc = cache.get(key) if cache is not None else None
    if pc is None:
        pc = PairCache(item, states)
        if cache is not None:
            cache[key] = pc
    first = item.first - states.src.offset
    last = min(item.last - states.src.offset, len(states.src.vecs) - 1)
    starts, ends = candidate_spans(len(states.tgt.vecs), item.last - item.first + 1, config.k)
    return pc, first, last, starts, ends


def featurize(item: Prepared, states: PairStates, config: HeadConfig,
              cache: dict[int, PairCache] | None = None,
              keep: np.ndarray | None = None,
              fixed: dict[str, np.ndarray] | None = None) -> Candidates:
    """Candidate spans of a task and their features (``cache`` shares per-pair work by pair).

    ``keep`` selects candidates by their position in :func:`candidate_index`'s order.
    ``fixed`` holds the task's non-vector feature columns for all candidates, computed before
    (training reuses them every epoch; see :func:`fixed_features`).
    """
    pc, first, last, starts, ends = _task_spans(item, states, config, cache)
    tgt = states.tgt
    if keep is not None:
        starts, ends = starts[keep], ends[keep]
    if len(starts) == 0:
        return Candidates(starts, ends, np.zeros((0, config.input_dim()), dtype=np.float32))
    s_vec = span_means(pc.src_cum, np.array([first]), np.array([last]))[0]
    c_vecs = span_means(pc.tgt_cum, starts, ends)
    parts: list[np.ndarray] = []
    for name in config.features:
        if name == "df":
            parts.append(s_vec[None, :] - c_vecs)
        elif name == "mx":
            parts.append(np.maximum(s_vec[None, :], c_vecs))
        elif fixed is not None:
            parts.append(fixed[name] if keep is None else fixed[name][keep])
        else:
            parts.append(_column_features(name, item, states, pc, first, last, starts, ends, s_vec, c_vecs))
    feats = np.concatenate(parts, axis=1).astype(np.float32, copy=False)
    return Candidates(starts + tgt.offset, ends + tgt.offset, feats)


def fixed_features(item: Prepared, states: PairStates, config: HeadConfig,
                   cache: dict[int, PairCache] | None = None) -> dict[str, np.ndarray]:
    """The non-vector feature columns (cue, cos, align, lex) of all of a task's candidates."""
    pc, first, last, starts, ends = _task_spans(item, states, config, cache)
    if not len(starts):
        return {}
    s_vec = span_means(pc.src_cum, np.array([first]), np.array([last]))[0]
    c_vecs = span_means(pc.tgt_cum, starts, ends)
    return {name: _column_features(name, item, states, pc, first, last, starts, ends, s_vec, c_vecs)
            for name in config.features if name not in VECTOR_FEATURES}


def _column_features(name: str, item: Prepared, states: PairStates, pc: PairCache, first: int, last: int,
                     starts: np.ndarray, ends: np.ndarray, s_vec: np.ndarray, c_vecs: np.ndarray) -> np.ndarray:
    if name == "cue":
        n, m = max(1, states.src.length), max(1, states.tgt.length)
        cue = np.empty((len(starts), 4), dtype=np.float32)
        cue[:, 0] = item.first / n
        cue[:, 1] = (item.last - item.first + 1) / n
        cue[:, 2] = (starts + states.tgt.offset) / m
        cue[:, 3] = (ends - starts + 1) / m
        return cue
    if name == "cos":
        norms = np.linalg.norm(c_vecs, axis=1) * max(float(np.linalg.norm(s_vec)), 1e-8)
        return ((c_vecs @ s_vec) / np.maximum(norms, 1e-8))[:, None].astype(np.float32)
    if name == "align":
        return _align_features(pc, first, last, starts, ends)
    if name == "lex":
        return _lex_features(pc, first, last, starts, ends)
    raise ValueError(f"unknown feature {name!r}; choose from {', '.join(FEATURES)}")


def score_candidates(scorer: torch.nn.Module, cands: Sequence[Candidates], chunk: int = 16384) -> list[np.ndarray]:
    """Sigmoid scores of every candidate of every task (the scorer in eval mode)."""
    import torch

    sizes = [len(c.starts) for c in cands]
    if not sum(sizes):
        return [np.zeros(0, dtype=np.float32) for _ in cands]
    rows = np.concatenate([c.feats for c in cands if len(c.starts)], axis=0)
    was_training = scorer.training
    scorer.eval()
    out = np.empty(len(rows), dtype=np.float32)
    with torch.inference_mode():
        for start in range(0, len(rows), chunk):
            logits = scorer(torch.from_numpy(rows[start:start + chunk])).squeeze(-1)
            out[start:start + chunk] = torch.sigmoid(logits).numpy()
    scorer.train(was_training)
    return np.split(out, np.cumsum(sizes)[:-1])


# ----------------------------------------------------------------------------- the head file


def save_head(path: str | Path, scorer: torch.nn.Module, config: HeadConfig) -> Path:
    """Write the scorer's weights and its config to one ``.npz`` (no pickles)."""
    from paraspan.corpus.jsonl import atomic_write

    arrays = {f"param/{k}": v.detach().cpu().numpy().astype(np.float32)
              for k, v in scorer.state_dict().items() if v.dtype.is_floating_point}
    arrays["config"] = np.array(json.dumps(asdict(config)))
    path = Path(path)
    with atomic_write(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)
    return path


def load_head(path: str | os.PathLike[str] | None = None) -> tuple[torch.nn.Module, HeadConfig]:
    """The scorer and its config from ``path`` (default: the head shipped with paraspan)."""
    import torch

    if path is None:
        with as_file(files("paraspan.align") / "data" / DEFAULT_HEAD) as shipped:
            if not Path(shipped).is_file():
                raise ModelError.from_code("E620")
            return load_head(Path(shipped))
    try:
        with np.load(path, allow_pickle=False) as data:
            config = HeadConfig(**json.loads(str(data["config"])))
            params = {k.split("/", 1)[1]: torch.from_numpy(np.array(data[k])) for k in data.files
                      if k.startswith("param/")}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelError.from_code("E621", path=path, exc=exc) from None
    scorer = build_scorer(config)
    state = scorer.state_dict()
    for key, value in params.items():
        state[key] = value
    scorer.load_state_dict(state)
    scorer.eval()
    return scorer, config


# ----------------------------------------------------------------------------- the aligner


@dataclass
class DiscriminativeAligner:
    encoder: Any
    scorer: Any
    config: HeadConfig
    threshold: float
    batch_size: int = 32
    block_size: int = 256  # tasks encoded and scored together (bounds the memory)
    name: str = "discriminative"

    def align(self, tasks: Sequence[AlignTask], progress: Callable[[int], None] | None = None) -> list[AlignResult]:
        results, work = prepare_all(tasks)
        skipped = len(tasks) - len(work)
        if progress is not None and skipped:
            progress(skipped)
        # Blocks bound the memory (candidate features are ~100 rows of 2·dim floats per task);
        # a pair split between two blocks is encoded twice, which is rare as tasks come by pair.
        for start in range(0, len(work), self.block_size):
            block = work[start:start + self.block_size]
            items = [item for _, item in block]
            states = encode_pairs(self.encoder, items, joint=True, layer=self.config.layer,
                                  batch_size=self.batch_size, progress=progress)
            pairs: dict[int, PairCache] = {}
            cands = [featurize(item, st, self.config, pairs) for item, st in zip(items, states, strict=True)]
            scores = score_candidates(self.scorer, cands)
            for (i, item), st, cand, sc in zip(block, states, cands, scores, strict=True):
                results[i] = decide(item, st, cand, sc, self.threshold)
        return [r for r in results if r is not None]


def decide(item: Prepared, states: PairStates, cand: Candidates, scores: np.ndarray, threshold: float) -> AlignResult:
    """The best candidate, or null when its score is below ``threshold``."""
    note = "sentence pair cut to the encoder's window" if states.src.truncated or states.tgt.truncated else ""
    if len(scores) == 0:
        return AlignResult(None, 0.0, item.snapped, item.widened, note or "no candidate span")
    best = int(np.argmax(scores))
    score = float(scores[best])
    pred = item.tgt.char_span(int(cand.starts[best]), int(cand.ends[best])) if score >= threshold else None
    return AlignResult(pred, score, item.snapped, item.widened, note)


def load_aligner(
    head: str | os.PathLike[str] | None = None,
    *,
    encoder: str | os.PathLike[str] | None = None,
    threshold: float | None = None,
    threads: int | None = None,
    batch_size: int = 32,
) -> DiscriminativeAligner:
    """The discriminative aligner: a head (default: shipped) on its frozen encoder.

    ``encoder`` overrides the head's encoder (it must have the same width); ``threshold``
    overrides the tuned null threshold (0 = never null). ``threads`` is kept for the configs that
    name it: torch's thread count is the process's, set by the command line (``--threads``).
    """
    from paraspan.models.encoder import load_encoder

    scorer, config = load_head(head)
    enc = load_encoder(encoder or config.encoder, max_length=config.max_length)
    if enc.dim != config.dim:
        raise ModelError.from_code("E622", config_dim=config.dim, config_encoder=config.encoder, enc_dim=enc.dim)
    return DiscriminativeAligner(enc, scorer, config, config.threshold if threshold is None else threshold,
                                 batch_size=batch_size)
