"""The learned filter: a 2x10 MLP over (iteration, paraphrase NLL, aligner score), or over the
verification checks every output records; cross-validated against the recorded rule."""

from __future__ import annotations

import json

import numpy as np
import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import build_filter
from paraspan.filter.learned import (
    INPUTS,
    LearnedFilter,
    LearnedFilterModel,
    cv_table,
    feature_columns,
    feature_row,
    feature_table,
    train_filter,
)


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


def checked_output(score: float, labels_ok: bool = True, iteration: int = 1) -> dict:
    """The provenance of a rule-rewriter output (no paraphrase NLL) with every check recorded: the
    fluency check (and so ``verified``) keeps scores ≥ -1.5, a lax rule."""
    fluency_ok = score >= -1.5
    return {
        "iteration": iteration,
        "aligner": {"anchor": 1.0, "spans": [{"role": "anchor", "score": 1.0}, {"role": "arg", "score": 0.9}]},
        "checks": {
            "labels": {"keep": labels_ok, "score": 0.2 if labels_ok else -0.1, "reason": ""},
            "spans": {"keep": True, "score": None, "reason": ""},
            "fluency": {"keep": fluency_ok, "score": score, "reason": ""},
            "relation": {"keep": True, "score": None, "reason": ""},
            "verified": {"keep": labels_ok and fluency_ok, "score": min(score, 0.2), "reason": ""},
        },
        "relation": {"label": "equivalence", "forward": "entailment", "backward": "entailment", "judge": "x"},
    }


def judged_outputs(n: int = 60, seed: int = 0) -> tuple[dict[str, dict], dict[str, float]]:
    """``n`` outputs with checks whose judgments follow the fluency score (accepted when ≥ -0.5,
    stricter than the rule's -1.5) and the labels check; and 5 judged outputs with no checks."""
    rng = np.random.default_rng(seed)
    provenance, scores = {}, {}
    for i in range(n):
        score = float(rng.uniform(-3.0, 1.0))
        labels_ok = bool(rng.uniform() < 0.85)
        provenance[f"o{i}"] = checked_output(round(score, 4), labels_ok, int(rng.integers(1, 4)))
        scores[f"o{i}"] = 90.0 if labels_ok and score >= -0.5 else 10.0
    for i in range(5):  # an older run's outputs: judged, but nothing verified them
        provenance[f"old{i}"] = {"iteration": 1, "paraphrase": {"forward": -0.4}, "aligner": {"anchor": 0.8}}
        scores[f"old{i}"] = 60.0
    scores["gone"] = 50.0  # judged, but not among the outputs
    return provenance, scores


def test_checks_model_learns_a_check_score_and_beats_the_rule(tmp_path):
    provenance, scores = judged_outputs()
    table = feature_table(provenance, scores, "checks")
    assert table.columns == feature_columns("checks")
    assert "checks.fluency.score" in table.columns and "checks.spans.score.missing" in table.columns
    assert "nll" not in table.columns  # rewrite and infill outputs have none
    assert len(table.rows) == 60 and table.dropped == {"missing checks": 5, "not among the outputs": 1}
    assert table.unmatched == 1 and all(r is not None for r in table.rule)
    model = train_filter(table.rows, table.labels, features="checks", columns=table.columns, folds=5,
                         rule=table.rule, seed=0)
    cv = model.info["cv"]
    assert cv["folds"] == 5 and len(cv["learned"]["per_fold"]) == 5 and len(cv["rule"]["per_fold"]) == 5
    assert sum(f["n"] for f in cv["learned"]["per_fold"]) == 60
    for fold in cv["learned"]["per_fold"]:  # stratified: every fold holds both classes
        assert 0 < fold["accepted"] < fold["n"]
        assert set(fold) >= {"precision", "recall", "kept_share", "accuracy"}
    learned, rule = cv["learned"]["mean"], cv["rule"]["mean"]
    assert rule["recall"] == 1.0 and rule["precision"] < 0.75  # the lax rule keeps too much
    assert learned["precision"] > rule["precision"] + 0.1
    assert learned["accuracy"] > rule["accuracy"]
    assert "learned_on_rule_rows" not in cv  # every row has a rule decision
    text = cv_table(cv)
    assert "rule (verified check)" in text and "learned (precision)" in text
    # the model file records its features and reads exactly those
    path = model.save(tmp_path / "checks.json")
    again = LearnedFilterModel.load(path)
    assert again.features == "checks" and again.columns == table.columns
    x = np.array(table.rows)
    assert np.allclose(again.predict(x), model.predict(x))
    flt = LearnedFilter(again, "p-classifier")
    good = flt.decide(Sentence("a", "x", provenance=checked_output(0.5)))
    bad = flt.decide(Sentence("b", "x", provenance=checked_output(-2.5)))
    assert good.score > bad.score and good.keep and not bad.keep
    missing = flt.decide(Sentence("c", "x", provenance=provenance["old0"]))
    assert missing.keep is False and missing.score is None and missing.reason == "missing checks"


def test_rows_lacking_features_are_counted_per_feature_set():
    provenance, scores = judged_outputs(20)
    paper = feature_table(provenance, scores, "paper")
    assert paper.columns == list(INPUTS)
    assert len(paper.rows) == 5 and paper.dropped == {"missing nll": 20, "not among the outputs": 1}
    # all: the NLL is optional (0 and a missing indicator); the checks are not
    every = feature_table(provenance, scores, "all")
    assert every.columns[:3] == ["iteration", "nll", "nll.missing"]
    assert len(every.rows) == 20 and every.dropped == {"missing checks": 5, "not among the outputs": 1}
    row = dict(zip(every.columns, every.rows[0], strict=True))
    assert row["nll"] == 0.0 and row["nll.missing"] == 1.0 and row["relation.forward.entailment"] == 1.0
    assert row["checks.spans.score"] == 0.0 and row["checks.spans.score.missing"] == 1.0
    # a check that no judged output records is left out, one that some lack drops those rows
    for prov in provenance.values():
        prov.get("checks", {}).pop("relation", None)
    del provenance["o0"]["checks"]["fluency"]
    table = feature_table(provenance, scores, "checks")
    assert table.absent_checks == ["relation"] and "checks.relation.keep" not in table.columns
    assert table.dropped["missing checks.fluency"] == 1 and len(table.rows) == 19
    # outputs that record no check at all are not `checks` rows (no set of zero checks)
    assert feature_table({k: provenance[k] for k in provenance if k.startswith("old")}, scores,
                         "checks").dropped == {"missing checks": 5, "not among the outputs": 21}
    # a NaN score counts as missing
    provenance["o1"]["checks"]["labels"]["score"] = float("nan")
    values = dict(zip(table.columns, feature_row(provenance["o1"], table.columns), strict=True))
    assert values["checks.labels.score"] == 0.0 and values["checks.labels.score.missing"] == 1.0


def test_old_model_file_without_feature_set_loads_as_paper(tmp_path):
    x, y = _data(100)
    data = json.loads(train_filter(x, y, epochs=30).save(tmp_path / "new.json").read_text())
    assert data["features"] == "paper" and data["columns"] == ["iteration", "nll", "aligner"]
    old = {k: v for k, v in data.items() if k not in ("features", "columns")} | {"version": 1}
    (tmp_path / "old.json").write_text(json.dumps(old))
    model = LearnedFilterModel.load(tmp_path / "old.json")
    assert model.features == "paper" and model.columns == ["iteration", "nll", "aligner"]
    assert np.allclose(model.predict(x), LearnedFilterModel.load(tmp_path / "new.json").predict(x))
    decision = LearnedFilter(model).decide(Sentence("o", "x", provenance={
        "iteration": 1, "paraphrase": {"forward": -0.5}, "aligner": {"anchor": 0.99}}))
    assert decision.score is not None
    (tmp_path / "odd.json").write_text(json.dumps(data | {"features": "vibes"}))
    with pytest.raises(ParaspanError, match="feature set 'vibes'"):
        LearnedFilterModel.load(tmp_path / "odd.json")
    (tmp_path / "short.json").write_text(json.dumps(data | {"columns": ["iteration"]}))
    with pytest.raises(ParaspanError, match="do not match"):
        LearnedFilterModel.load(tmp_path / "short.json")


def test_cross_validation_needs_enough_of_each_class():
    x, y = _data(40, seed=3)
    y = np.zeros(40, dtype=int)
    y[:4] = 1  # 4 accepted: too few for 5 folds
    with pytest.raises(ParaspanError, match="5-fold") as err:
        train_filter(x, y, folds=5, epochs=5)
    assert err.value.code == "E728" and "at least 5 accepted and 5 rejected" in str(err.value)
    model = train_filter(x, y, folds=4, epochs=5)  # enough for 4
    assert model.info["cv"]["folds"] == 4 and model.info["cv"]["rule"] is None
    assert "no recorded verified check" in cv_table(model.info["cv"])
    with pytest.raises(ParaspanError, match="with 1 folds"):
        train_filter(x, y, folds=1)
    with pytest.raises(ParaspanError, match="unknown feature set"):
        train_filter(x, y, features="vibes")
    assert "cv" not in train_filter(x, y, epochs=5).info  # no folds by default: behaviour unchanged


def test_rule_compared_on_its_own_rows_when_some_lack_it():
    x, y = _data(60, seed=4)  # a third of the rows have no recorded rule decision
    rule = [bool(v) if i % 3 else None for i, v in enumerate(x[:, 2] > 0.7)]
    model = train_filter(x, y, folds=3, rule=rule, epochs=50)
    cv = model.info["cv"]
    assert cv["rule"]["n"] == sum(r is not None for r in rule)
    assert sum(f["n"] for f in cv["rule"]["per_fold"]) == cv["rule"]["n"]
    assert sum(f["n"] for f in cv["learned_on_rule_rows"]["per_fold"]) == cv["rule"]["n"]
    assert "learned, on the rule's rows" in cv_table(cv)


def test_cross_validation_keeps_a_source_sentence_in_one_fold():
    """Outputs of one sentence share text and scores: with them on both sides of a fold the
    filter is scored on what it memorised. Here each group's rows are identical copies with one
    label drawn per group, so only memory can beat chance — and grouping takes it away."""
    rng = np.random.default_rng(0)
    base, labels = rng.normal(size=(40, 3)), rng.integers(0, 2, 40)
    x = np.repeat(base, 6, axis=0)
    y = np.repeat(labels, 6)
    groups = [f"s{i}" for i in range(40) for _ in range(6)]
    leaky = train_filter(x, y, folds=5, epochs=300, mode="recall", down_weight=1.0)
    grouped = train_filter(x, y, folds=5, epochs=300, mode="recall", down_weight=1.0, groups=groups)
    assert grouped.info["cv"]["grouped"] == 40 and leaky.info["cv"]["grouped"] is None
    assert leaky.info["cv"]["learned"]["pooled"]["accuracy"] > 0.8  # memory
    assert grouped.info["cv"]["learned"]["pooled"]["accuracy"] < 0.7  # chance, give or take
    with pytest.raises(ParaspanError) as err:
        train_filter(x, y, folds=5, groups=["a", "b", "c"] * 80)  # 3 sentences cannot fill 5 folds
    assert err.value.code == "E728"
