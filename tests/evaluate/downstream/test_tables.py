"""The README table of a results file (``benchmarks/downstream.py --table``)."""

from __future__ import annotations

from paraspan.evaluate.downstream.budget import Budget
from paraspan.evaluate.downstream.curves import CurveConfig, run_curve
from paraspan.evaluate.downstream.runner import merge_results
from paraspan.evaluate.downstream.tables import table
from tests.evaluate.downstream.test_budget import ChunkAugmenter, TrainLearner
from tests.evaluate.downstream.toy import frame_corpus


def _data(tmp_path, **config):
    train = frame_corpus(160)
    curve = run_curve(TrainLearner(), train, {"dev": train[:2]},
                      CurveConfig(percents=(25,), seeds=(0, 1, 2), lexsub=False, copy_control=True, **config),
                      ChunkAugmenter(per=3))
    curve.task = "srl_framenet"
    return merge_results(tmp_path / "r.json", curve, {"augmenter": "fake"})


def test_the_gold_control_gets_its_own_columns_paired_by_seed(tmp_path):
    data = _data(tmp_path, gold_control=True, augment_budget=Budget(6.25, chunk=2))
    lines = table(data).splitlines()
    assert lines[0].endswith("| + held-aside gold | gold-control F1 | gold − base | augmented − gold |")
    assert lines[1].count("|") == lines[0].count("|") == lines[2].count("|") == 16
    # 40 gold + 10 generated, + 10 copies, + 10 held-aside gold: the gains over seeds are constant
    assert lines[2].startswith("| srl_framenet (dev) | 25 | 40 | 10 | 40.0 ± 0.0 | 50.0 ± 0.0 | +10.0 ± 0.0 |")
    assert lines[2].endswith("| 50.0 ± 0.0 | +0.0 ± 0.0 | 10 | 50.0 ± 0.0 | +10.0 ± 0.0 | +0.0 ± 0.0 |")
    assert lines[-1] == ("srl_framenet 25%: augmented to a budget of 10 sentences (6.25% of 160), 2 a call; "
                         "from 4–4 of 40 subset sentences; reached for every seed.")


def test_a_file_without_the_gold_control_keeps_its_table(tmp_path):
    lines = table(_data(tmp_path)).splitlines()
    assert len(lines) == 3 and lines[0].endswith("| copy-control F1 | augmented − copy |")
    assert lines[2].count("|") == 12


def test_a_fractional_percent_is_a_row_of_its_own(tmp_path):
    train = frame_corpus(160)
    curve = run_curve(TrainLearner(), train, {"dev": train[:2]},
                      CurveConfig(percents=(2.5, 25), seeds=(0, 1), lexsub=False, copy_control=True),
                      ChunkAugmenter(per=3))
    curve.task = "srl_framenet"
    lines = table(merge_results(tmp_path / "r.json", curve, {"augmenter": "fake"})).splitlines()
    assert [line.split("|")[2].strip() for line in lines[2:4]] == ["2.5", "25"]
    assert lines[2].split("|")[3].strip() == "4"  # 2.5% of 160
