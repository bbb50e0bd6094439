"""Span-alignment metrics: exact and soft P/R/F1, null handling, the non-identical subset."""

from __future__ import annotations

import json

import pytest

from paraspan.errors import CorpusError
from paraspan.evaluate.alignment import AlignmentEvaluator, is_identical, read_predictions

SRC = "I bought a red car ."
TGT = "I purchased a red auto ."  # I=0:1 purchased=2:11 a=12:13 red=14:17 auto=18:22 .=23:24


def rec(span, gold, pred, source=SRC, target=TGT):
    return {"source": source, "target": target, "source_span": span, "gold": gold, "pred": pred}


def test_exact_counts_follow_the_paper() -> None:
    records = [
        rec([2, 8], [2, 11], [2, 11]),  # tp
        rec([2, 8], [2, 11], [2, 13]),  # wrong span: fp and fn
        rec([2, 8], [2, 11], None),  # predicted null on a gold span: fn only
        rec([0, 1], None, None),  # null on null: not counted (null accuracy)
        rec([0, 1], None, [0, 1]),  # a span on a gold null: fp
    ]
    s = AlignmentEvaluator()(records)
    # tp=1, fp=2, fn=2
    assert s["all_exact_precision"] == pytest.approx(100 / 3)
    assert s["all_exact_recall"] == pytest.approx(100 / 3)
    assert s["all_exact_f1"] == pytest.approx(100 / 3)
    assert s["all_tasks"] == 5 and s["all_gold_null"] == 2 and s["all_pred_null"] == 2
    assert s["all_null_accuracy"] == 50.0


def test_soft_counts_tokens() -> None:
    # gold "red auto" (2 tokens), pred "a red" (2 tokens): overlap 1
    s = AlignmentEvaluator()([rec([11, 18], [14, 22], [12, 17])])
    assert s["all_soft_precision"] == 50.0 and s["all_soft_recall"] == 50.0
    assert s["all_exact_f1"] == 0.0


def test_spans_compared_on_token_boundaries() -> None:
    s = AlignmentEvaluator()([rec([2, 8], [2, 11], [1, 11]), rec([2, 8], [2, 11], [3, 9])])
    assert s["all_exact_f1"] == 100.0  # " purchased" and "urchas" both snap to "purchased"


def test_without_threshold_precision_equals_recall() -> None:
    records = [rec([2, 8], [2, 11], [2, 11]), rec([2, 8], [2, 11], [14, 17]), rec([9, 12], [14, 17], [14, 17])]
    s = AlignmentEvaluator()(records)
    assert s["all_exact_precision"] == s["all_exact_recall"] == pytest.approx(200 / 3)


def test_non_identical_subset() -> None:
    assert is_identical("a Red car", [2, 5], "the red auto", [4, 7])
    assert not is_identical(SRC, [2, 8], TGT, [2, 11])
    assert not is_identical(SRC, [0, 1], TGT, None)  # a gold null is not a copy
    records = [rec([11, 14], [14, 17], [14, 17]),  # red -> red: identical
               rec([2, 8], [2, 11], [2, 13]),  # bought -> purchased, wrong
               rec([0, 1], None, None)]
    s = AlignmentEvaluator()(records)
    assert s["all_tasks"] == 3 and s["non_identical_tasks"] == 2
    assert s["all_exact_f1"] == 50.0 and s["non_identical_exact_f1"] == 0.0


def test_empty_input_and_all_null() -> None:
    s = AlignmentEvaluator()([])
    assert s["all_exact_f1"] == 0.0 and s["all_tasks"] == 0
    s = AlignmentEvaluator()([rec([0, 1], None, None)])
    assert s["all_exact_f1"] == 0.0 and s["all_null_accuracy"] == 100.0
    assert AlignmentEvaluator.primary_metric in s


def test_read_predictions_checks_keys(tmp_path) -> None:
    path = tmp_path / "preds.jsonl"
    good = {"id": "1", **rec([2, 8], [2, 11], [2, 11])}
    path.write_text(json.dumps(good) + "\n" + json.dumps({k: v for k, v in good.items() if k != "pred"}) + "\n")
    with pytest.raises(CorpusError, match=r"preds.jsonl:2: no 'pred' key"):
        read_predictions(path)
    path.write_text(json.dumps(dict(good, pred=[5, 99])) + "\n")
    with pytest.raises(CorpusError, match="not a span inside the target"):
        read_predictions(path)
    path.write_text(json.dumps(good) + "\n")
    assert read_predictions(path)[0]["pred"] == [2, 11]
