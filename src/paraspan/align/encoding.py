"""Word vectors from a frozen encoder, and span means over them.

Both the discriminative aligner and the argmax baseline need, for every sentence pair, one
vector per word token of each side. Subword states are averaged into their word; a span's
vector is the mean of its words, read off cumulative sums so that all O(m·k) candidate spans of
a target cost one subtraction each.

``joint=True`` encodes ``[CLS] S [SEP] S' [SEP]`` (Culkin et al. 2021, so each side attends to
the other); ``joint=False`` encodes each sentence alone (SimAlign). A pair longer than the
encoder's window is cut to word windows: around the source span on the source side, and around
the same relative position on the target side; spans outside the window cannot be predicted.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from paraspan.align.base import Prepared
from paraspan.models.batching import length_sorted_batches


@dataclass
class SideStates:
    """Word vectors of one side's window: words ``offset .. offset + len(vecs) - 1``."""

    vecs: np.ndarray  # float32 (words in window, dim)
    offset: int
    length: int  # the full sentence's number of words (for normalised positions)

    @property
    def truncated(self) -> bool:
        return self.offset > 0 or self.offset + len(self.vecs) < self.length

    def cumsum(self) -> np.ndarray:
        out = np.zeros((len(self.vecs) + 1, self.vecs.shape[1]), dtype=np.float32)
        np.cumsum(self.vecs, axis=0, out=out[1:])
        return out


@dataclass
class PairStates:
    src: SideStates
    tgt: SideStates


def _window(lengths: Sequence[int], first: int, last: int, budget: int) -> tuple[int, int]:
    """Words ``[a, b)`` around ``first..last`` whose subword lengths fit ``budget``.

    Grows one word at a time, alternating sides, so the span sits in the middle of its context.
    A span longer than the budget keeps its first words.
    """
    a, b, used = first, first, 0
    while b <= last and used + lengths[b] <= budget:
        used += lengths[b]
        b += 1
    if b <= last:  # the span alone does not fit
        return a, max(b, a + 1)
    left = True
    while True:
        grew = False
        for side in ((True, False) if left else (False, True)):
            if side and a > 0 and used + lengths[a - 1] <= budget:
                a -= 1
                used += lengths[a]
                grew = True
                break
            if not side and b < len(lengths) and used + lengths[b] <= budget:
                used += lengths[b]
                b += 1
                grew = True
                break
        if not grew:
            return a, b
        left = not left


def _word_lengths(tokenizer: Any, words: list[list[str]]) -> list[list[int]]:
    """Number of subword pieces of each word (a word that vanishes counts 0)."""
    out: list[list[int]] = [[] for _ in words]
    todo = [i for i, ws in enumerate(words) if ws]
    if not todo:
        return out
    # One encoding per text, not per word: the per-call overhead of the fast tokenizer dominates.
    enc = tokenizer([words[i] for i in todo], is_split_into_words=True, add_special_tokens=False)
    for row, i in enumerate(todo):
        ids = [w for w in enc.word_ids(row) if w is not None]
        out[i] = np.bincount(np.asarray(ids, dtype=np.int64), minlength=len(words[i])).tolist()
    return out


@dataclass
class _Job:
    """One encoder input: one or two word windows and where their word vectors go."""

    words: list[list[str]]  # one or two sequences
    targets: list[tuple[Any, str]]  # (pair key, "src" | "tgt") per sequence


#: an item's pair: (source, target, None) when it fits the encoder, else with the span it is windowed for
_Key = tuple[Any, ...]


@dataclass
class _Plan:
    """The encoder inputs for a list of items, and each item's pair key (shared by items of one pair)."""

    jobs: list[_Job] = field(default_factory=list)
    job_of_key: dict[_Key, list[int]] = field(default_factory=dict)
    windows: dict[_Key, tuple[tuple[int, int], tuple[int, int]]] = field(default_factory=dict)
    item_keys: list[_Key] = field(default_factory=list)

    def waiting(self) -> list[int]:
        """Items waiting on each job (the last of their pair's), for the progress count."""
        out = [0] * len(self.jobs)
        for key in self.item_keys:
            out[self.job_of_key[key][-1]] += 1
        return out


def encode_pairs(
    encoder: Any,
    items: Sequence[Prepared],
    *,
    joint: bool = True,
    layer: int = -1,
    batch_size: int = 32,
    progress: Callable[[int], None] | None = None,
) -> list[PairStates]:
    """Word vectors of each item's (source, target) pair, one entry per item.

    Each distinct pair is encoded once for all its spans (the entries are shared) unless it is
    longer than the encoder's window: then each span gets its own window. ``progress`` is called
    with the number of items whose pair has been encoded, after each encoder batch.
    """
    tokenizer, model = encoder.tokenizer, encoder.model
    max_length = int(getattr(encoder, "max_length", 256))
    texts = sorted({t for p in items for t in (p.task.source, p.task.target)})
    words_of = _words_by_text(items)
    lengths_of = dict(zip(texts, _word_lengths(tokenizer, [words_of[t] for t in texts]), strict=True))
    plan = _plan(items, words_of, lengths_of, joint, max_length)
    waiting = plan.waiting()
    dim = int(encoder.dim)
    truncated = first_layers(model, layer) if layer != -1 else None
    vecs: dict[tuple[Any, str], np.ndarray] = {}
    for chunk in length_sorted_batches([sum(len(w) for w in job.words) for job in plan.jobs], batch_size):
        batch = [plan.jobs[j] for j in chunk]
        enc, hidden = _encode(tokenizer, truncated or model, batch, joint=joint, layer=layer,
                              max_length=max_length, view=truncated is not None)
        for row, job in enumerate(batch):
            for seq, slot in enumerate(job.targets):
                vecs[slot] = _word_means(enc, row, seq, len(job.words[seq]), hidden, dim)
        if progress is not None:
            finished = sum(waiting[j] for j in chunk)
            if finished:
                progress(finished)
    return _pair_states(plan, vecs, lengths_of)


def _plan(items: Sequence[Prepared], words_of: dict[str, list[str]], lengths_of: dict[str, list[int]],
          joint: bool, max_length: int) -> _Plan:
    """The jobs that encode every distinct pair (each span's own window where a pair does not fit)."""
    plan = _Plan()
    budget = max_length - 3 if joint else max_length - 2
    for item in items:
        source, target = item.task.source, item.task.target
        ls, lt = lengths_of[source], lengths_of[target]
        fits = (sum(ls) + sum(lt) <= budget) if joint else (max(sum(ls), sum(lt)) <= budget)
        key = (source, target, None if fits else (item.first, item.last))
        plan.item_keys.append(key)
        if key in plan.job_of_key:
            continue
        sw, tw = plan.windows[key] = _pair_windows(item, ls, lt, fits=fits, joint=joint, budget=budget)
        src_w, tgt_w = words_of[source][sw[0]:sw[1]], words_of[target][tw[0]:tw[1]]
        if joint:
            plan.job_of_key[key] = [len(plan.jobs)]
            plan.jobs.append(_Job([src_w, tgt_w], [(key, "src"), (key, "tgt")]))
        else:
            plan.job_of_key[key] = [len(plan.jobs), len(plan.jobs) + 1]
            plan.jobs.append(_Job([src_w], [(key, "src")]))
            plan.jobs.append(_Job([tgt_w], [(key, "tgt")]))
    return plan


def _pair_windows(item: Prepared, ls: Sequence[int], lt: Sequence[int], *, fits: bool, joint: bool,
                  budget: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """The source and target word windows encoded for ``item`` (whole sentences when the pair fits)."""
    n, m = len(ls), len(lt)
    if fits:
        return (0, n), (0, m)
    if joint:
        # Share the budget by length, but give the source at least its span and some context.
        share = int(budget * sum(ls) / max(1, sum(ls) + sum(lt)))
        need = sum(ls[item.first:item.last + 1]) + 16
        src_budget = min(sum(ls), max(share, min(need, budget // 2)))
        sw = _window(ls, item.first, item.last, src_budget)
        return sw, _centre_window(lt, item, n, m, budget - sum(ls[sw[0]:sw[1]]))
    sw = (0, n) if sum(ls) <= budget else _window(ls, item.first, item.last, budget)
    return sw, _centre_window(lt, item, n, m, budget)


def _encode(tokenizer: Any, model: Any, batch: Sequence[_Job], *, joint: bool, layer: int, max_length: int,
            view: bool) -> tuple[Any, np.ndarray]:
    """The tokenizer's encoding of a batch of jobs and the hidden states of ``layer`` (``view``: ``model``
    is cut after that layer, see :func:`first_layers`)."""
    import torch

    seqs_a = [job.words[0] or ["."] for job in batch]  # an empty side still needs a token
    seqs_b = [job.words[1] or ["."] for job in batch] if joint else None
    enc = tokenizer(seqs_a, seqs_b, is_split_into_words=True, padding=True, truncation=True,
                    max_length=max_length, return_tensors="pt")
    inputs = {k: enc[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in enc}
    with torch.inference_mode():
        if view or layer == -1:
            hidden = model(**inputs).last_hidden_state
        else:
            hidden = model(**inputs, output_hidden_states=True).hidden_states[layer]
    return enc, hidden.float().numpy()


def _word_means(enc: Any, row: int, seq: int, count: int, hidden: np.ndarray, dim: int) -> np.ndarray:
    """The mean subword state of each of the ``count`` words of sequence ``seq`` in batch row ``row``."""
    word_ids = enc.word_ids(row)
    seq_ids = enc.sequence_ids(row)
    pos = [t for t, (w, s) in enumerate(zip(word_ids, seq_ids, strict=True)) if s == seq and w is not None]
    wid = np.fromiter((word_ids[t] for t in pos), dtype=np.int64, count=len(pos))
    sums = np.zeros((count, dim), dtype=np.float32)
    if count:
        np.add.at(sums, wid, hidden[row, pos])
        counts = np.bincount(wid, minlength=count).astype(np.float32)
        sums /= np.maximum(counts, 1.0)[:, None]
    return sums


def _pair_states(plan: _Plan, vecs: dict[tuple[Any, str], np.ndarray],
                 lengths_of: dict[str, list[int]]) -> list[PairStates]:
    """Each item's pair states, one object per distinct pair key."""
    states: dict[_Key, PairStates] = {}
    out: list[PairStates] = []
    for key in plan.item_keys:
        found = states.get(key)
        if found is None:
            (sa, _), (ta, _) = plan.windows[key]
            found = states[key] = PairStates(SideStates(vecs[(key, "src")], sa, len(lengths_of[key[0]])),
                                             SideStates(vecs[(key, "tgt")], ta, len(lengths_of[key[1]])))
        out.append(found)
    return out


def first_layers(model: Any, layer: int) -> Any | None:
    """A view of ``model`` that stops after transformer layer ``layer`` (its last hidden state is
    ``hidden_states[layer]``), sharing the weights; None when the model is not laid out as
    ``model.encoder.layer`` (BERT, MPNet, RoBERTa, ...) — then all layers run.

    Reading a middle layer is both better for alignment (SimAlign) and cheaper: the layers above
    it are never computed.
    """
    import copy

    from torch import nn

    layers = getattr(getattr(model, "encoder", None), "layer", None)
    if not isinstance(layers, nn.ModuleList) or not 0 < layer <= len(layers):
        return None
    view = copy.copy(model)  # shallow: new attribute dicts, same parameter tensors
    view._modules = dict(model._modules)
    inner = copy.copy(model.encoder)
    inner._modules = dict(model.encoder._modules)
    inner.layer = nn.ModuleList(list(layers)[:layer])
    view.encoder = inner
    return view


def _words_by_text(items: Sequence[Prepared]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for item in items:
        out.setdefault(item.task.source, item.src.words)
        out.setdefault(item.task.target, item.tgt.words)
    return out


def _centre_window(lengths: Sequence[int], item: Prepared, n: int, m: int, budget: int) -> tuple[int, int]:
    """A target window around the source span's relative position (its likely counterpart)."""
    if m == 0:
        return 0, 0
    if sum(lengths) <= budget:
        return 0, m
    centre = min(m - 1, int(round((item.first + item.last) / 2 / max(1, n) * m)))
    return _window(lengths, centre, centre, budget)


def span_means(cum: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Means of words ``starts[i] .. ends[i]`` (inclusive) from a cumulative sum (``cum[0] = 0``)."""
    lengths = (ends - starts + 1).astype(np.float32)[:, None]
    return (cum[ends + 1] - cum[starts]) / lengths


def candidate_spans(length: int, source_len: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """All spans of a ``length``-word window whose length is within ``k`` of ``source_len``.

    Returns inclusive ``(starts, ends)``, ordered by length, then start.
    """
    lo, hi = max(1, source_len - k), min(length, source_len + k)
    starts: list[np.ndarray] = []
    ends: list[np.ndarray] = []
    for width in range(lo, hi + 1):
        s = np.arange(0, length - width + 1, dtype=np.int64)
        starts.append(s)
        ends.append(s + width - 1)
    if not starts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    return np.concatenate(starts), np.concatenate(ends)
