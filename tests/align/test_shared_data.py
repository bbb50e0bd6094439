"""The aligners on slices of the MultiMWA dev span tasks in ../shared (skipped when absent)."""

from __future__ import annotations

import pytest

from paraspan.align.base import get_aligner
from paraspan.align.tasks import prediction_record, read_task_lines
from paraspan.evaluate.alignment import AlignmentEvaluator
from tests.conftest import need_shared

pytestmark = pytest.mark.shared


def score(name: str, split: str, n: int, **options: object) -> dict[str, float]:
    path = need_shared("data", "alignment", "span-tasks", f"{split}.jsonl")
    lines = read_task_lines(path)[:n]
    results = get_aligner(name, **options).align([t.task for t in lines])
    return AlignmentEvaluator()(prediction_record(t, r) for t, r in zip(lines, results, strict=True))


def test_discriminative_on_mtref_dev_slice() -> None:
    s = score("discriminative", "mtref-dev", 300, threads=2)
    assert s["all_exact_f1"] >= 82 and s["non_identical_exact_f1"] >= 60


def test_argmax_on_wiki_dev_slice() -> None:
    assert score("argmax", "wiki-dev", 200, threads=2)["all_exact_f1"] >= 90


def test_ibm2_on_mtref_dev_slice() -> None:
    assert score("ibm2", "mtref-dev", 300)["all_exact_f1"] >= 35  # EM on 150 pairs only, no extra bitext
