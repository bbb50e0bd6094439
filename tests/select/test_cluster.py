"""Edit-distance k-medoids with a source-anchored cluster."""

from __future__ import annotations

import numpy as np

from paraspan.select.cluster import (
    SOURCE_CLUSTER,
    distance_matrix,
    distance_tokens,
    farthest_first,
    kmedoids,
    select_diverse,
)

SOURCE = "The company sold its shares to investors."
CANDIDATES = [
    "The company sold its stock to investors.",  # 0: one word from the source
    "Investors bought the firm's stock.",  # 1
    "Investors purchased the firm's stock.",  # 2: near 1
    "Shares of the company went to investors.",  # 3
    "Shares of the company were sold to investors.",  # 4: near 3
    "The firm offloaded its equity onto buyers.",  # 5
]


def test_distance_tokens_strip_case_and_punctuation() -> None:
    assert distance_tokens("The firm's stock, sold!") == ["the", "firm", "s", "stock", "sold"]


def test_distance_matrix_is_token_levenshtein() -> None:
    dist = distance_matrix(["a b c", "a x c", "a b c d"])
    assert dist.tolist() == [[0, 1, 1], [1, 0, 2], [1, 2, 0]]


def test_farthest_first_starts_farthest_from_the_anchor() -> None:
    dist = np.array([[0, 2, 9], [2, 0, 8], [9, 8, 0]])
    anchor = np.array([1, 5, 3])
    assert farthest_first(dist, 2, anchor) == [1, 2]  # 1 is farthest from the anchor, then 2 from {anchor, 1}
    assert farthest_first(dist, 2) == [2, 0]  # no anchor: largest total distance first
    assert farthest_first(dist, 10, anchor) == [1, 2, 0]  # k is capped by the number of points


def test_near_copies_of_the_source_land_in_the_discarded_cluster() -> None:
    clustering = kmedoids(CANDIDATES, SOURCE, k=3)
    assert clustering.labels[0] == SOURCE_CLUSTER
    assert clustering.labels[1] == clustering.labels[2]  # near-duplicates share a cluster
    assert clustering.labels[3] == clustering.labels[4]
    picks = select_diverse(CANDIDATES, [0.0] * len(CANDIDATES), SOURCE, n=5, k=3)
    assert 0 not in [i for i, _ in picks]
    assert len({cluster for _, cluster in picks}) == len(picks)  # one per cluster


def test_best_of_each_cluster_ranked_by_score() -> None:
    scores = [-0.1, -1.0, -0.5, -2.0, -0.9, -3.0]
    picks = select_diverse(CANDIDATES, scores, SOURCE, n=2, k=3)
    assert [i for i, _ in picks] == [2, 4]  # best of {1, 2}, best of {3, 4}; {5} ranks third


def test_clustering_is_deterministic() -> None:
    first = kmedoids(CANDIDATES, SOURCE, k=3)
    assert all(kmedoids(CANDIDATES, SOURCE, k=3) == first for _ in range(3))


def test_small_and_empty_pools() -> None:
    assert select_diverse([], [], SOURCE, n=5) == []
    assert select_diverse(["Buyers got the shares."], [-1.0], SOURCE, n=5) == [(0, 0)]
    one = kmedoids(["x y"], None, k=4)
    assert one.labels == [0] and one.centres == [0]
