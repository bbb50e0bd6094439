"""Threshold filters (Culkin et al. 2021, Table 4) and their rule syntax."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import Filter, decide_all
from paraspan.filter.thresholds import (
    CALIBRATED,
    PRESETS,
    RECORDED,
    TABLE4,
    features,
    parse_rule,
)


def out(provenance):
    return Sentence("o", "x", source_id="s", provenance=provenance)


def prov(iteration, forward, anchor, spans=(0.9,)):
    return {"iteration": iteration, "paraphrase": {"forward": forward, "backward": -1.0, "score": forward - 1.0},
            "aligner": {"anchor": anchor, "spans": [{"score": anchor}] + [{"score": s} for s in spans]}}


def test_features():
    f = features(prov(2, -0.7, 0.96, (0.5,)))
    assert f["iteration"] == 2 and f["nll"] == pytest.approx(0.7) and f["min_span"] == 0.5


@pytest.mark.parametrize(("name", "p", "keep"), [
    ("iter1", prov(1, -2.0, 0.1), True),
    ("iter1", prov(2, -0.1, 1.0), False),
    ("iter3", prov(3, -2.0, 0.1), True),
    ("para0.6", prov(5, -0.59, 0.1), True),
    ("para0.6", prov(1, -0.61, 1.0), False),
    ("para0.8", prov(1, -0.79, 1.0), True),
    ("align0.99", prov(1, -0.1, 0.989), False),
    ("align0.95", prov(9, -3.0, 0.95), True),
    ("lax", prov(3, -0.8, 0.95), True),
    ("lax", prov(4, -0.1, 1.0), False),
    ("strict", prov(1, -0.5, 0.995), True),
    ("strict", prov(1, -0.5, 0.98), False),
    ("all", prov(10, -9.0, 0.0), True),
])
def test_presets(name, p, keep):
    assert parse_rule(name).decide(out(p)).keep is keep


def test_presets_are_table4_rows_and_their_calibrated_versions():
    assert set(TABLE4) | set(CALIBRATED) == set(PRESETS) == set(RECORDED)
    assert len(parse_rule("lax").clauses) == 3 and len(parse_rule("strict").clauses) == 3
    # the paper's rows are untouched
    assert PRESETS["align0.95"] == "aligner>=0.95" and PRESETS["align0.99"] == "aligner>=0.99"


def test_inline_rules_compose_with_presets():
    rule = parse_rule("lax&min_span>=0.5")
    assert rule.decide(out(prov(1, -0.1, 0.99, (0.6,)))).keep
    decision = rule.decide(out(prov(1, -0.1, 0.99, (0.4,))))
    assert not decision.keep and "min_span" in decision.reason and decision.score is None
    assert decision.details["min_span"] == 0.4
    assert not parse_rule("iteration<2").decide(out(prov(2, 0, 1))).keep


def test_missing_scores_fail_the_clause():
    assert not parse_rule("aligner>=0.5").decide(out({"iteration": 1})).keep
    assert not parse_rule("iter3").decide(out(None)).keep


def test_bad_rules_are_explained():
    with pytest.raises(ParaspanError, match="cannot read the filter"):
        parse_rule("iterations<=2")
    with pytest.raises(ParaspanError, match="cannot read the filter"):
        parse_rule("aligner>>2")


def test_filter_contract():
    outputs = [Sentence("a", "x", provenance=prov(1, -0.1, 1.0)), Sentence("b", "y", provenance=prov(4, -0.1, 1.0))]
    flt = parse_rule("iter3")
    assert isinstance(flt, Filter) and flt.name == "iter3"
    decisions = decide_all(flt, [(o, Sentence("s", "z")) for o in outputs])
    assert [d.keep for d in decisions] == [True, False]
    assert decisions == flt.decide_batch([(o, None) for o in outputs])  # the source is not read
