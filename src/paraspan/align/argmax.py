"""The embedding-argmax baseline (SimAlign-style, Jalili Sabet et al. 2020).

Each sentence is encoded on its own with the frozen encoder; a span is the mean of its word
vectors; the answer is the target span, among those whose length is within ``k`` words of the
source span's, with the highest cosine similarity to the source span. Below ``threshold`` the
answer is null. No training: the default layer (3 of MiniLM's 6; SimAlign also reads a middle
layer) and threshold were chosen on the MultiMWA train span tasks by exact F1. ``layer=-1`` reads
the last layer (the sentence-embedding one), which aligns markedly worse.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from paraspan.align.base import AlignResult, AlignTask, Prepared, prepare_all
from paraspan.align.encoding import PairStates, candidate_spans, encode_pairs, span_means

DEFAULT_LAYER = 3  # of 6: middle layers align words better (SimAlign); chosen on the train tasks
DEFAULT_THRESHOLD = 0.68  # exact-F1 best on mtref-train + wiki-train tasks (MiniLM, layer 3)


class ArgmaxAligner:
    name = "argmax"

    def __init__(
        self,
        encoder: str | os.PathLike[str] | Any | None = None,
        *,
        k: int = 5,
        threshold: float = DEFAULT_THRESHOLD,
        layer: int = DEFAULT_LAYER,
        threads: int | None = None,  # kept for configs that name it: torch's threads are the process's
        batch_size: int = 32,
    ) -> None:
        if encoder is None or isinstance(encoder, (str, os.PathLike)):
            from paraspan.models.encoder import load_encoder

            encoder = load_encoder(encoder, batch_size=batch_size)
        self.encoder = encoder
        self.k = k
        self.threshold = threshold
        self.layer = layer
        self.batch_size = batch_size

    def best_spans(self, items: Sequence[Prepared], progress: Callable[[int], None] | None = None
                   ) -> list[tuple[int, int, float, bool] | None]:
        """Per item: (first, last, cosine, truncated) of the most similar candidate; None if none."""
        states = encode_pairs(self.encoder, items, joint=False, layer=self.layer, batch_size=self.batch_size,
                              progress=progress)
        return best_from_states(items, states, self.k)

    def align(self, tasks: Sequence[AlignTask], progress: Callable[[int], None] | None = None) -> list[AlignResult]:
        results, work = prepare_all(tasks)
        if progress is not None and len(tasks) > len(work):
            progress(len(tasks) - len(work))
        best: list[tuple[int, int, float, bool] | None] = []
        for start in range(0, len(work), 512):  # bounded memory, as in the discriminative aligner
            best.extend(self.best_spans([item for _, item in work[start:start + 512]], progress))
        for (i, item), found in zip(work, best, strict=True):
            if found is None:
                results[i] = AlignResult(None, 0.0, item.snapped, item.widened, "no candidate span")
                continue
            first, last, sim, truncated = found
            pred = item.tgt.char_span(first, last) if sim >= self.threshold else None
            note = "sentence cut to the encoder's window" if truncated else ""
            results[i] = AlignResult(pred, sim, item.snapped, item.widened, note)
        return [r for r in results if r is not None]


def best_from_states(items: Sequence[Prepared], states: Sequence[PairStates], k: int
                     ) -> list[tuple[int, int, float, bool] | None]:
    """The argmax step on word vectors already computed (see :meth:`ArgmaxAligner.best_spans`)."""
    cums: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    out: list[tuple[int, int, float, bool] | None] = []
    for item, st in zip(items, states, strict=True):
        key = id(st)
        if key not in cums:
            cums[key] = (st.src.cumsum(), st.tgt.cumsum())
        src_cum, tgt_cum = cums[key]
        first = item.first - st.src.offset
        last = min(item.last - st.src.offset, len(st.src.vecs) - 1)
        starts, ends = candidate_spans(len(st.tgt.vecs), item.last - item.first + 1, k)
        if not len(starts):
            out.append(None)
            continue
        s_vec = span_means(src_cum, np.array([first]), np.array([last]))[0]
        c_vecs = span_means(tgt_cum, starts, ends)
        sims = (c_vecs @ s_vec) / np.maximum(np.linalg.norm(c_vecs, axis=1) * np.linalg.norm(s_vec), 1e-8)
        best = int(np.argmax(sims))
        truncated = st.src.truncated or st.tgt.truncated
        out.append((int(starts[best]) + st.tgt.offset, int(ends[best]) + st.tgt.offset, float(sims[best]),
                    truncated))
    return out
