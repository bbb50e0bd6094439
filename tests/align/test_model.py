"""Candidates within k, SBCE labels, thresholds, windows, features (no encoder needed)."""

from __future__ import annotations

import numpy as np
import pytest

from paraspan.align.base import AlignTask, prepare
from paraspan.align.discriminative import HeadConfig, build_scorer, featurize, load_head, save_head
from paraspan.align.encoding import PairStates, SideStates, _window, candidate_spans, span_means
from paraspan.align.train import best_threshold, soft_labels


def test_candidates_within_k() -> None:
    starts, ends = candidate_spans(6, 2, 1)  # widths 1..3 over 6 words
    widths = ends - starts + 1
    assert set(widths) == {1, 2, 3}
    assert len(starts) == 6 + 5 + 4
    assert starts.min() == 0 and ends.max() == 5
    starts, ends = candidate_spans(4, 1, 5)  # widths 1..4, capped by the sentence
    assert len(starts) == 4 + 3 + 2 + 1
    starts, ends = candidate_spans(10, 9, 2)  # widths 7..10
    assert (ends - starts + 1).min() == 7
    assert len(candidate_spans(0, 1, 5)[0]) == 0


def test_span_means_from_cumsum() -> None:
    vecs = np.arange(12, dtype=np.float32).reshape(4, 3)
    cum = SideStates(vecs, 0, 4).cumsum()
    means = span_means(cum, np.array([0, 1, 3]), np.array([0, 2, 3]))
    np.testing.assert_allclose(means, [vecs[0], vecs[1:3].mean(0), vecs[3]])


def test_sbce_labels() -> None:
    starts, ends = np.array([2, 2, 1, 0, 3]), np.array([3, 2, 3, 5, 3])
    np.testing.assert_allclose(soft_labels((starts, ends), (2, 3)), [1.0, 0.5, 0.5, 2.0 ** -4, 0.5])
    assert not soft_labels((starts, ends), None).any()


def test_best_threshold_counts_like_the_evaluation() -> None:
    scores = np.array([0.9, 0.8, 0.3, 0.2])
    correct = np.array([True, True, False, False])
    gold_null = np.array([False, False, True, True])
    threshold, f1 = best_threshold(scores, correct, gold_null)
    assert 0.3 < threshold < 0.8 and f1 == 100.0
    # a wrong answer on a gold span: predicting it costs an fp but saves no fn
    threshold, f1 = best_threshold(np.array([0.9, 0.5]), np.array([True, False]), np.array([False, False]))
    assert threshold > 0.5 and f1 == pytest.approx(100 * 2 / 3)


def test_window_fits_the_budget_and_keeps_the_span() -> None:
    lengths = [1] * 100
    a, b = _window(lengths, 50, 52, 11)
    assert a <= 50 and b >= 53 and b - a == 11
    a, b = _window([3, 3, 3, 3], 1, 2, 4)  # the span alone does not fit: keep its first word
    assert (a, b) == (1, 2)
    assert _window([1, 1], 0, 0, 100) == (0, 2)


def _states(n: int, m: int, dim: int = 8, seed: int = 0) -> PairStates:
    rng = np.random.default_rng(seed)
    return PairStates(SideStates(rng.normal(size=(n, dim)).astype(np.float32), 0, n),
                      SideStates(rng.normal(size=(m, dim)).astype(np.float32), 0, m))


def test_featurize_shapes_and_cues() -> None:
    item = prepare(AlignTask("1", "I bought a red car .", "I purchased a red auto .", (2, 8)))
    assert item is not None and (item.first, item.last) == (1, 1)
    config = HeadConfig(dim=8, k=2, features=["df", "mx", "cue", "cos", "align", "lex"])
    cand = featurize(item, _states(6, 6), config)
    assert cand.feats.shape == (len(cand.starts), config.input_dim()) == (6 + 5 + 4, 8 + 8 + 4 + 1 + 12 + 6)
    assert np.isfinite(cand.feats).all()
    i = int(np.flatnonzero((cand.starts == 3) & (cand.ends == 3))[0])
    np.testing.assert_allclose(cand.feats[i, 16:20], [1 / 6, 1 / 6, 3 / 6, 1 / 6])
    keep = np.array([0, 3])
    assert len(featurize(item, _states(6, 6), config, keep=keep).starts) == 2
    # lexical features: "red" <- "red" is an exact match, "purchased" is not
    item2 = prepare(AlignTask("2", "I bought a red car .", "I purchased a red auto .", (11, 14)))
    assert item2 is not None
    cand2 = featurize(item2, _states(6, 6), config)
    lex = cand2.feats[:, -6]
    assert lex[(cand2.starts == 3) & (cand2.ends == 3)][0] == 1.0 and lex.sum() == 1.0


def test_head_round_trip(tmp_path) -> None:
    torch = pytest.importorskip("torch")
    config = HeadConfig(dim=8, features=["df", "cue"], hidden=16, threshold=0.25, info={"note": "test"})
    scorer = build_scorer(config)
    path = save_head(tmp_path / "head.npz", scorer, config)
    loaded, config2 = load_head(path)
    assert config2 == config
    x = torch.randn(5, config.input_dim())
    scorer.eval()
    assert torch.allclose(scorer(x), loaded(x))
    (tmp_path / "bad.npz").write_bytes(b"not a head")
    from paraspan.errors import ModelError

    with pytest.raises(ModelError, match="cannot read the aligner head"):
        load_head(tmp_path / "bad.npz")


def test_fixed_columns_give_the_same_features() -> None:
    from paraspan.align.discriminative import fixed_features

    item = prepare(AlignTask("1", "I bought a red car .", "I purchased a red auto .", (2, 14)))
    assert item is not None
    config = HeadConfig(dim=8, k=3, features=["df", "mx", "cue", "align", "lex"])
    states = _states(6, 6, seed=3)
    full = featurize(item, states, config)
    keep = np.array([1, 4, 7])
    fixed = fixed_features(item, states, config)
    np.testing.assert_allclose(featurize(item, states, config, keep=keep, fixed=fixed).feats, full.feats[keep])
