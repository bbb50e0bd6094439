"""The learned filter: a 2x10 MLP over (iteration, paraphrase NLL, aligner score)."""

from __future__ import annotations

import numpy as np
import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import build_filter
from paraspan.filter.learned import LearnedFilter, LearnedFilterModel, feature_row, train_filter


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    it = rng.integers(1, 11, n)
    nll = rng.uniform(0.2, 2.0, n)
    al = rng.uniform(0.3, 1.0, n)
    # accepted mostly when aligned well and early
    p = 1 / (1 + np.exp(-(6 * (al - 0.7) - 0.4 * (it - 4) - 1.5 * (nll - 1))))
    y = (rng.uniform(size=n) < p).astype(int)
    return np.stack([it, nll, al], axis=1), y


def test_learns_and_modes_trade_precision_for_recall():
    x, y = _data()
    prec = train_filter(x, y, mode="precision", down_weight=0.2, seed=1)
    rec = train_filter(x, y, mode="recall", down_weight=0.2, seed=1)
    kept_p = (prec.predict(x) >= 0.5).sum()
    kept_r = (rec.predict(x) >= 0.5).sum()
    assert kept_p < kept_r  # the precision model keeps fewer
    pred_p = prec.predict(x) >= 0.5
    precision_p = y[pred_p].mean()
    assert precision_p > y.mean() + 0.1  # better than keeping everything
    assert [len(w) for w in prec.weights] == [10, 10, 1]
    assert "test_scores" in prec.info


def test_save_load_roundtrip(tmp_path):
    x, y = _data(100)
    model = train_filter(x, y, epochs=50)
    path = model.save(tmp_path / "f.json")
    again = LearnedFilterModel.load(path)
    assert np.allclose(again.predict(x), model.predict(x))
    flt = LearnedFilter(again, "p-classifier")
    decision = flt.decide(Sentence("o", "x", provenance={"iteration": 1, "paraphrase": {"forward": -0.5},
                                                          "aligner": {"anchor": 0.99}}))
    assert isinstance(decision.keep, bool) and 0 <= decision.score <= 1 and "p=" in decision.reason
    assert decision.keep is (decision.score >= 0.5)
    missing = flt.decide(Sentence("o", "x", provenance={"iteration": 1}))
    assert missing.keep is False and missing.score is None
    # the registered factory: recorded under the mode's name unless told otherwise
    built = build_filter(f"learned:{path}")
    assert isinstance(built, LearnedFilter) and built.name == f"{model.mode[0]}-classifier"
    assert build_filter({"name": "learned", "path": str(path), "record_as": "mine"}).name == "mine"
    with pytest.raises(ParaspanError, match="learned filter"):
        build_filter(f"learned:{tmp_path / 'missing.json'}")


def test_bad_inputs(tmp_path):
    with pytest.raises(ParaspanError, match="too few"):
        train_filter([[1, 0.5, 0.9]] * 5, [1] * 5)
    bad = tmp_path / "x.json"
    bad.write_text("{}")
    with pytest.raises(ParaspanError, match="not a learned filter"):
        LearnedFilterModel.load(bad)
    assert feature_row({"iteration": 2, "paraphrase": {"forward": -0.3}, "aligner": {"anchor": 0.5}}) == [2.0, 0.3, 0.5]
