"""Pick a collectively diverse subset of candidates: k-means under Levenshtein distance.

ParaBank 2 (Hu et al., 2019, §2.3): distances are token-level edit distances between
lower-cased, punctuation-stripped candidates; the k centres start as the k candidates farthest
apart (farthest-first); one extra cluster is anchored on the *source* sentence, is never
re-centred, and is thrown away at the end — it soaks up the candidates that barely changed the
source. The best-scored member of every other cluster is kept; those are ranked by score.

Centres are re-computed as medoids (k-medoids, since a mean of strings does not exist): the
member with the smallest total distance to the rest of its cluster. Everything is deterministic:
ties go to the lower index (candidates are taken in the order given; regular clusters come
before the source cluster, so a candidate equally close to both is kept).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

_PUNCT_RE = re.compile(r"[^\w\s]|_")

#: Label of the source-anchored cluster in :attr:`Clustering.labels`.
SOURCE_CLUSTER = -1


def distance_tokens(text: str) -> list[str]:
    """Lower-cased tokens with punctuation stripped (what the edit distance counts)."""
    return _PUNCT_RE.sub(" ", text.lower()).split()


def distance_matrix(texts: Sequence[str]) -> np.ndarray:
    """Token-level Levenshtein distances between all pairs of ``texts``."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cdist

    tokens = [distance_tokens(t) for t in texts]
    if not tokens:
        return np.zeros((0, 0), dtype=np.int32)
    return np.asarray(cdist(tokens, tokens, scorer=Levenshtein.distance), dtype=np.int32)


@dataclass(frozen=True)
class Clustering:
    """``labels[i]``: the cluster of candidate ``i`` (0..k-1, or :data:`SOURCE_CLUSTER`);
    ``centres[c]``: the candidate index at the centre of cluster ``c``."""

    labels: list[int]
    centres: list[int]
    iterations: int

    def members(self, cluster: int) -> list[int]:
        return [i for i, label in enumerate(self.labels) if label == cluster]


def farthest_first(dist: np.ndarray, k: int, anchor: np.ndarray | None = None) -> list[int]:
    """``k`` indices, each the farthest (max–min distance) from those chosen before.

    With ``anchor`` (distances to a fixed extra centre, here the source), the first pick is the
    candidate farthest from it; without, the candidate with the largest total distance.
    """
    n = dist.shape[0]
    k = min(k, n)
    if k <= 0:
        return []
    if anchor is not None:
        nearest = anchor.astype(np.int64).copy()
        first = int(np.argmax(nearest))
    else:
        first = int(np.argmax(dist.sum(axis=1)))
        nearest = np.full(n, np.iinfo(np.int64).max)
    chosen = [first]
    nearest = np.minimum(nearest, dist[first])
    while len(chosen) < k:
        masked = nearest.copy()
        masked[chosen] = -1
        nxt = int(np.argmax(masked))  # first index among ties
        if masked[nxt] < 0:
            break
        chosen.append(nxt)
        nearest = np.minimum(nearest, dist[nxt])
    return chosen


def kmedoids(texts: Sequence[str], source: str | None, k: int, *, max_iter: int = 20) -> Clustering:
    """Cluster ``texts`` into ``k`` clusters plus (with a ``source``) the fixed source cluster."""
    n = len(texts)
    if n == 0:
        return Clustering([], [], 0)
    full = distance_matrix([*texts, source] if source is not None else list(texts))
    dist = full[:n, :n]
    anchor = full[n, :n] if source is not None else None
    centres = farthest_first(dist, k, anchor)
    labels: list[int] = []
    iterations = 0
    while iterations < max_iter:
        iterations += 1
        to_centres = dist[:, centres]  # (n, k)
        best = to_centres.argmin(axis=1)
        best_dist = to_centres[np.arange(n), best]
        new_labels = [int(c) for c in best]
        if anchor is not None:
            # strictly closer to the source than to every centre → the source cluster
            new_labels = [SOURCE_CLUSTER if anchor[i] < best_dist[i] else label
                          for i, label in enumerate(new_labels)]
        if new_labels == labels:
            break
        labels = new_labels
        new_centres = []
        for c, centre in enumerate(centres):
            members = [i for i, label in enumerate(labels) if label == c]
            if not members:
                new_centres.append(centre)  # keep an emptied cluster's centre
                continue
            within = dist[np.ix_(members, members)].sum(axis=1)
            new_centres.append(members[int(np.argmin(within))])
        centres = new_centres
    return Clustering(labels, centres, iterations)


def best_per_cluster(clustering: Clustering, scores: Sequence[float], n: int,
                     eligible: Sequence[bool] | None = None) -> list[tuple[int, int]]:
    """The best-scored eligible member of each regular cluster, best first, at most ``n``."""
    picks: list[tuple[int, int]] = []
    for cluster in range(len(clustering.centres)):
        members = [i for i in clustering.members(cluster) if eligible is None or eligible[i]]
        if members:
            best = max(members, key=lambda i: (scores[i], -i))
            picks.append((best, cluster))
    picks.sort(key=lambda pick: (-scores[pick[0]], pick[0]))
    return picks[:n]


def select_diverse(texts: Sequence[str], scores: Sequence[float], source: str | None, n: int,
                   k: int | None = None) -> list[tuple[int, int]]:
    """The best-scored candidate of each regular cluster, best first, at most ``n``.

    Returns ``(candidate index, cluster)`` pairs. ``k`` regular clusters (default ``n + 2``;
    ParaBank 2 used 7 for ``n = 5``). Higher score = better.
    """
    if not texts or n <= 0:
        return []
    return best_per_cluster(kmedoids(texts, source, k if k is not None else n + 2), scores, n)
