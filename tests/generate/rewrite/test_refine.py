"""The stand-in tagger and the SVM refinement (Algorithm 1) on hand-written sentences."""

from __future__ import annotations

import json
import math

import pytest

from paraspan.generate.rewrite.refine import Sample, candidate_thresholds, fit_svm, refine, result_to_json
from paraspan.generate.rewrite.rules import RuleSet, hand_rules
from paraspan.generate.rewrite.tagger import HeadTagger, gold_heads, head_f1, predicate_token
from paraspan.models import load_spacy

from .helpers import CORPUS, srl


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def test_head_f1():
    assert head_f1({}, {}) == 1.0
    assert head_f1({1: "ARG0"}, {1: "ARG0"}) == 1.0
    assert head_f1({1: "ARG0"}, {1: "ARG1"}) == 0.0
    assert head_f1({1: "ARG0", 3: "ARG1"}, {1: "ARG0"}) == pytest.approx(2 / 3)


def test_tagger_learns_its_training_data(nlp):
    docs = list(nlp.pipe(s.text for s in CORPUS))
    tagger = HeadTagger(nlp, c=1.0).fit(CORPUS, docs)
    assert tagger.score(CORPUS, docs)["f1"] > 0.9
    s = srl("t", "The dog ate the cake.", ("eat.01", "ate", [("ARG0", "The dog"), ("ARG1", "the cake")]))
    spans = tagger.predict(s, s.structures[0])
    assert {sp.label for sp in spans} <= {lab for x in CORPUS for st in x.structures for lab in
                                          (a.label for a in st.args)}
    doc = nlp(s.text)
    assert gold_heads(doc, s.structures[0]) == {1: "ARG0", 4: "ARG1"}
    assert predicate_token(doc, s.structures[0]) == 2


def _sample(rule: str, positive: bool) -> Sample:
    return Sample(rule, "x", positive, None, 0.0, 0.0)  # type: ignore[arg-type]


def test_svm_weights_order_rules_by_how_often_they_preserve_labels():
    samples = [_sample("good", True)] * 18 + [_sample("good", False)] * 2 + [_sample("bad", True)] * 3 + [
        _sample("bad", False)] * 17 + [_sample("mixed", True)] * 10 + [_sample("mixed", False)] * 10
    weights, c = fit_svm(samples, ["good", "bad", "mixed", "unused"])
    assert weights["good"] > 0 > weights["bad"]
    assert weights["good"] > weights["mixed"] > weights["bad"]
    assert weights["unused"] == 0.0
    ts = candidate_thresholds(weights)
    assert ts[0] == -math.inf and 0.001 in ts


def test_refine_end_to_end_and_rules_file(nlp, tmp_path):
    rules = RuleSet(hand_rules())
    result = refine(CORPUS, CORPUS[:4], rules, nlp=nlp, thresholds=[0.001])
    assert result.samples and {s.rule for s in result.samples} <= set(rules.names())
    assert result.tuning[0]["threshold"] == math.inf and len(result.tuning) == 2
    data = result_to_json(result, rules, sources={"test": True})
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(data))
    kept = {r["name"] for r in data["rules"] if r["kept"]}
    assert set(RuleSet.from_file(path).names()) == kept
    everything = RuleSet.from_file(path, kept_only=False)
    assert len(everything) == len(rules)
    assert sum(r["applied"] for r in data["rules"]) == len(result.samples)
