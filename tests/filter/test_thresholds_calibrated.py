"""The calibrated aligner presets (align-p95, align-p99, lax-cal, strict-cal) and the calibration
that sets their thresholds (paraspan.align.calibrate)."""

from __future__ import annotations

import pytest

from paraspan.align.calibrate import calibrate, is_copy_free, is_right, precision_at
from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import RECORDED, build_filters
from paraspan.filter.thresholds import ALIGN_P95, ALIGN_P99, PRESETS, parse_rule


def prov(iteration, forward, anchor):
    return {"iteration": iteration, "paraphrase": {"forward": forward, "backward": -1.0, "score": forward - 1.0},
            "aligner": {"anchor": anchor, "spans": [{"score": anchor}]}}


def test_calibrated_thresholds_lie_on_our_aligners_scale():
    # the pipeline's anchors score about 0.5-0.95: p95 must keep some of them, p99 is above p95
    assert 0.5 < ALIGN_P95 < 0.95 and ALIGN_P95 < ALIGN_P99 <= 1.0
    assert [str(c) for c in parse_rule("align-p95").clauses] == [f"aligner>={ALIGN_P95:g}"]
    assert [str(c) for c in parse_rule("align-p99").clauses] == [f"aligner>={ALIGN_P99:g}"]


def test_calibrated_conjunctions_match_lax_and_strict():
    lax, lax_cal = parse_rule("lax").clauses, parse_rule("lax-cal").clauses
    strict, strict_cal = parse_rule("strict").clauses, parse_rule("strict-cal").clauses
    assert lax[:2] == lax_cal[:2] and strict[:2] == strict_cal[:2]  # same iteration and NLL clauses
    assert (lax_cal[2].field, lax_cal[2].value) == ("aligner", ALIGN_P95)
    assert (strict_cal[2].field, strict_cal[2].value) == ("aligner", ALIGN_P99)


@pytest.mark.parametrize(("name", "p", "keep"), [
    ("align-p95", prov(9, -3.0, ALIGN_P95), True),  # at the threshold
    ("align-p95", prov(1, -0.1, 0.80), True),  # a typical anchor of ours: align0.95 drops it
    ("align-p95", prov(1, -0.1, ALIGN_P95 - 0.001), False),
    ("align-p99", prov(1, -0.1, 0.99), True),
    ("align-p99", prov(1, -0.1, 0.95), False),
    ("lax-cal", prov(3, -0.8, 0.80), True),
    ("lax-cal", prov(4, -0.1, 0.99), False),  # iteration
    ("lax-cal", prov(1, -0.9, 0.99), False),  # NLL
    ("lax-cal", prov(1, -0.1, 0.5), False),  # aligner
    ("strict-cal", prov(1, -0.5, 0.99), True),
    ("strict-cal", prov(1, -0.5, 0.98), False),
    ("strict-cal", prov(2, -0.5, 0.999), False),
])
def test_calibrated_presets_decide(name, p, keep):
    decision = parse_rule(name).decide(Sentence("o", "x", provenance=p))
    assert decision.keep is keep, decision.reason


def test_lax_cal_keeps_what_lax_drops_for_the_aligner_score_only():
    p = prov(2, -0.7, 0.85)
    out = Sentence("o", "x", provenance=p)
    assert not parse_rule("lax").decide(out).keep and parse_rule("lax-cal").decide(out).keep


def test_calibrated_presets_compose_and_are_recorded_by_runs():
    assert parse_rule("align-p95&iteration<=2").decide(Sentence("o", "x", provenance=prov(2, -2.0, 0.7))).keep
    names = [f.name for f in build_filters(RECORDED)]  # what every augment run records
    assert {"align-p95", "align-p99", "lax-cal", "strict-cal", "lax", "strict"} <= set(names)
    assert "align-p95" in PRESETS and "align-p95" in str(pytest.raises(ParaspanError, parse_rule, "nope").value)


def rec(source, span, target, gold, pred, score):
    s = source.index(span)
    return {"source": source, "target": target, "source_span": [s, s + len(span)],
            "gold": None if gold is None else [target.index(gold), target.index(gold) + len(gold)],
            "pred": None if pred is None else [target.index(pred), target.index(pred) + len(pred)], "score": score}


SRC = "I bought a car ."
TGT = "I purchased an auto ."


def test_right_and_copy_free():
    assert is_right(rec(SRC, "bought", TGT, "purchased", "purchased", 0.9))
    assert not is_right(rec(SRC, "bought", TGT, "purchased", "auto", 0.9))
    assert not is_right(rec(SRC, "bought", TGT, None, "purchased", 0.9))  # a span on a gold null
    assert is_copy_free(rec(SRC, "bought", TGT, "purchased", "purchased", 0.9))
    assert not is_copy_free(rec(SRC, "I", TGT, "I", "I", 0.9))
    assert not is_copy_free(rec("I Bought it .", "Bought", "I bought a car .", "bought", "bought", 0.9))


def _records(n_right_high, n_wrong_high, n_right_low, n_wrong_low):
    right = rec(SRC, "bought", TGT, "purchased", "purchased", 0.0)
    wrong = rec(SRC, "bought", TGT, "purchased", "auto", 0.0)
    out = []
    for i in range(n_right_high):
        out.append({**right, "score": 0.99 - i * 1e-4})
    for i in range(n_wrong_high):
        out.append({**wrong, "score": 0.97 - i * 1e-4})
    for i in range(n_right_low):
        out.append({**right, "score": 0.80 - i * 1e-4})
    for i in range(n_wrong_low):
        out.append({**wrong, "score": 0.60 - i * 1e-4})
    return out


def test_calibrate_finds_the_lowest_threshold_reaching_each_precision():
    # 100 right above 0.98, 1 wrong at 0.97, 60 right around 0.80, 40 wrong around 0.60
    records = _records(100, 1, 60, 40) + [rec(SRC, "bought", TGT, "purchased", None, 0.3)]  # null: not counted
    p95, p99 = calibrate(records, (0.95, 0.99))
    assert p99.threshold is not None and p95.threshold is not None
    assert p99.kept == 161 and p99.precision == pytest.approx(160 / 161, abs=1e-4)  # down to the 0.80 block
    # 95% lets 8 of the wrong 0.60 block in (160 / 168 = 95.2%; a 9th: 94.7%)
    assert p95.kept == 168 and p95.threshold == pytest.approx(0.60 - 7e-4, abs=1e-4)
    assert p95.predictions == 201 and p95.best_precision == 1.0
    kept, precision = precision_at(records, p99.threshold)
    assert kept == p99.kept and precision == p99.precision


def test_calibrate_says_when_a_precision_is_not_reached():
    [p99] = calibrate(_records(10, 5, 10, 5), (0.99,), min_support=20)
    assert p99.threshold is None and p99.kept == 0 and p99.best_precision < 0.99
    [p99] = calibrate(_records(30, 0, 0, 0), (0.99,), subset="copy_free")
    assert p99.threshold == pytest.approx(0.99 - 29e-4, abs=1e-4) and p99.kept == 30


def test_calibrate_rejects_bad_arguments():
    with pytest.raises(ParaspanError, match="subset"):
        calibrate([], subset="nope")
    with pytest.raises(ParaspanError, match="fractions"):
        calibrate([], targets=(95,))
