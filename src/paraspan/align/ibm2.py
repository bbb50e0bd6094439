"""The word-alignment baseline: fast_align-style IBM Model 2, symmetrised (Dyer et al. 2013).

Each direction is an IBM Model 2 whose alignment distribution favours the diagonal, as in
fast_align: a target word at position i of m aligns to the null word with probability ``p_null``
and otherwise to source position j of n with probability ∝ exp(-tension · |i/m − j/n|). The
lexical table t(f | e) is estimated by EM (``iterations`` rounds, uniform start) on the pairs
being aligned plus any extra bitext. The Viterbi alignments of both directions are combined
with grow-diag-final-and (Koehn et al. 2003), and the predicted span is the hull of the target
words linked to the source span's words — null when none is linked (Culkin et al. 2021, §4.3).
Words are lowercased; numpy only, vectorised over the whole corpus.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from paraspan.align.base import AlignResult, AlignTask, prepare_all
from paraspan.align.tokens import tokenize
from paraspan.errors import CorpusError

Link = tuple[int, int]  # (source word, target word)


@dataclass
class _Corpus:
    """All sentence pairs as flat arrays of (source word, target word) cells, null included."""

    pairs: list[tuple[list[int], list[int]]]
    cell_pair: np.ndarray  # for each cell: the index of its entry in the lexical table
    cell_col: np.ndarray  # for each cell: its (sentence, target position) column
    cell_prior: np.ndarray  # the alignment probability of the cell
    table_src: np.ndarray  # for each table entry: its source word id (for normalising t)
    offsets: np.ndarray  # cell offset of each sentence


def _build(pairs: list[tuple[list[int], list[int]]], p_null: float, tension: float) -> _Corpus:
    keys: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    priors: list[np.ndarray] = []
    offsets = [0]
    col_base = 0
    vocab = 1 + max((max(s + t, default=0) for s, t in pairs), default=0)
    for src, tgt in pairs:
        n, m = len(src), len(tgt)
        if m == 0:
            offsets.append(offsets[-1])
            continue
        e = np.array([0, *[w + 1 for w in src]], dtype=np.int64)  # id 0 = the null word
        f = np.array(tgt, dtype=np.int64)
        keys.append((e[:, None] * (vocab + 1) + f[None, :]).ravel())
        cols.append(np.broadcast_to(col_base + np.arange(m), (n + 1, m)).ravel())
        i = (np.arange(m) + 1) / m
        if n:
            j = (np.arange(n) + 1) / n
            w = np.exp(-tension * np.abs(i[None, :] - j[:, None]))
            w = (1 - p_null) * w / w.sum(axis=0, keepdims=True)
            prior = np.vstack([np.full((1, m), p_null), w])
        else:
            prior = np.ones((1, m))
        priors.append(prior.ravel())
        col_base += m
        offsets.append(offsets[-1] + (n + 1) * m)
    if not keys:
        empty = np.zeros(0, dtype=np.int64)
        return _Corpus(pairs, empty, empty, np.zeros(0), empty, np.array(offsets))
    all_keys = np.concatenate(keys)
    uniq, inverse = np.unique(all_keys, return_inverse=True)
    return _Corpus(pairs, inverse.astype(np.int64), np.concatenate(cols), np.concatenate(priors),
                   (uniq // (vocab + 1)).astype(np.int64), np.array(offsets))


def train_direction(pairs: list[tuple[list[int], list[int]]], *, iterations: int = 5, p_null: float = 0.08,
                    tension: float = 4.0) -> list[list[int]]:
    """EM for one direction; returns each pair's Viterbi alignment: for each target word, its
    source word or -1 (null)."""
    corpus = _build(pairs, p_null, tension)
    if not len(corpus.cell_pair):
        return [[-1] * len(t) for _, t in pairs]
    t = np.ones(int(corpus.cell_pair.max()) + 1)
    for _ in range(iterations):
        prob = t[corpus.cell_pair] * corpus.cell_prior
        norm = np.bincount(corpus.cell_col, weights=prob)
        post = prob / np.maximum(norm[corpus.cell_col], 1e-300)
        counts = np.bincount(corpus.cell_pair, weights=post, minlength=len(t))
        denom = np.bincount(corpus.table_src, weights=counts)
        t = counts / np.maximum(denom[corpus.table_src], 1e-300)
    score = t[corpus.cell_pair] * corpus.cell_prior
    out: list[list[int]] = []
    for k, (src, tgt) in enumerate(pairs):
        n, m = len(src), len(tgt)
        if m == 0:
            out.append([])
            continue
        cells = score[corpus.offsets[k]:corpus.offsets[k + 1]].reshape(n + 1, m)
        out.append([int(j) - 1 for j in cells.argmax(axis=0)])  # row 0 = null → -1
    return out


def grow_diag_final_and(forward: Iterable[Link], backward: Iterable[Link]) -> set[Link]:
    """Koehn's grow-diag-final-and symmetrisation of two directional link sets."""
    fwd, bwd = set(forward), set(backward)
    union = fwd | bwd
    links = fwd & bwd
    src_done = {s for s, _ in links}
    tgt_done = {t for _, t in links}
    neighbours = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
    grew = True
    while grew:
        grew = False
        for s, t in sorted(links):
            for ds, dt in neighbours:
                cand = (s + ds, t + dt)
                if cand in union and cand not in links and (cand[0] not in src_done or cand[1] not in tgt_done):
                    links.add(cand)
                    src_done.add(cand[0])
                    tgt_done.add(cand[1])
                    grew = True
    for direction in (fwd, bwd):  # final-and: unaligned on both sides
        for s, t in sorted(direction):
            if s not in src_done and t not in tgt_done:
                links.add((s, t))
                src_done.add(s)
                tgt_done.add(t)
    return links


def read_bitext(path: str | Path) -> list[tuple[str, str]]:
    """Sentence pairs from span-task JSONL (source/target), MultiMWA TSV, or ``src ||| tgt`` lines."""
    from paraspan.corpus.jsonl import iter_lines

    name = str(path)
    out: list[tuple[str, str]] = []
    for number, raw in iter_lines(path):
        if name.endswith(".jsonl"):
            try:
                data = json.loads(raw)
                out.append((str(data["source"]), str(data["target"])))
            except (json.JSONDecodeError, KeyError, TypeError):
                raise CorpusError.from_code("E640", file=name, line=number, fix="",
                                            problem="expected a JSON object with 'source' and 'target'") from None
        elif name.endswith(".tsv"):
            cols = raw.split("\t")
            if len(cols) < 4:
                raise CorpusError.from_code("E640", file=name, line=number,
                                            problem="expected MultiMWA columns: id, sentence 1, -, sentence 2, ...",
                                            fix="")
            out.append((cols[1], cols[3]))
        else:
            if "|||" not in raw:
                raise CorpusError.from_code("E640", file=name, line=number, problem="expected 'source ||| target'",
                                            fix="fast_align's bitext format")
            src, _, tgt = raw.partition("|||")
            out.append((src.strip(), tgt.strip()))
    return out


class IBM2Aligner:
    name = "ibm2"

    def __init__(self, bitext: Sequence[str | Path] = (), *, iterations: int = 5, p_null: float = 0.08,
                 tension: float = 4.0, lowercase: bool = True) -> None:
        self.extra = [pair for path in bitext for pair in read_bitext(path)]
        self.iterations = iterations
        self.p_null = p_null
        self.tension = tension
        self.lowercase = lowercase

    def links(self, pairs: Sequence[tuple[Sequence[str], Sequence[str]]]) -> list[set[Link]]:
        """Symmetrised links for each (source words, target words) pair, EM run on them + bitext."""
        vocab: dict[str, int] = {}

        def ids(words: Sequence[str]) -> list[int]:
            return [vocab.setdefault(w.lower() if self.lowercase else w, len(vocab)) for w in words]

        own = [(ids(s), ids(t)) for s, t in pairs]
        extra = [(ids(tokenize(s).words), ids(tokenize(t).words)) for s, t in self.extra]
        corpus = own + extra
        fwd = train_direction(corpus, iterations=self.iterations, p_null=self.p_null,
                              tension=self.tension)[: len(own)]  # target word -> source word
        bwd = train_direction([(t, s) for s, t in corpus], iterations=self.iterations, p_null=self.p_null,
                              tension=self.tension)[: len(own)]  # source word -> target word
        out: list[set[Link]] = []
        for f, b in zip(fwd, bwd, strict=True):
            f_links = {(s, t) for t, s in enumerate(f) if s >= 0}
            b_links = {(s, t) for s, t in enumerate(b) if t >= 0}
            out.append(grow_diag_final_and(f_links, b_links))
        return out

    def align(self, tasks: Sequence[AlignTask], progress: Callable[[int], None] | None = None) -> list[AlignResult]:
        results, work = prepare_all(tasks, need_target=False)
        pair_index: dict[tuple[str, str], int] = {}
        pairs: list[tuple[list[str], list[str]]] = []
        for _, item in work:
            key = (item.task.source, item.task.target)
            if key not in pair_index:
                pair_index[key] = len(pairs)
                pairs.append((item.src.words, item.tgt.words))
        links = self.links(pairs)
        for i, item in work:
            found = links[pair_index[(item.task.source, item.task.target)]]
            span_words = range(item.first, item.last + 1)
            linked = sorted(t for s, t in found if item.first <= s <= item.last)
            if not linked:
                results[i] = AlignResult(None, 0.0, item.snapped, item.widened)
                continue
            covered = len({s for s, _ in found if item.first <= s <= item.last}) / len(span_words)
            results[i] = AlignResult(item.tgt.char_span(linked[0], linked[-1]), covered, item.snapped, item.widened)
        if progress is not None:
            progress(len(tasks))
        return [r for r in results if r is not None]
