from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.evaluate.downstream.curves import (
    CurveConfig,
    combine_points,
    copy_of,
    paired_stats,
    recorded_bases,
    run_curve,
)
from paraspan.evaluate.downstream.learners import RunResult
from tests.evaluate.downstream.toy import frame_corpus


@dataclass
class CountingLearner:
    """F1 = number of training sentences (augmented ones count double); diverges on request."""

    diverge_over: int = 10**9
    name: str = "count"

    def run(self, train, evals, seed):
        n = sum(2 if s.is_augmented else 1 for s in train)
        if n > self.diverge_over:
            return RunResult(diverged="non-finite loss at step 3")
        return RunResult(scores={name: {"f1": float(n)} for name in evals})


def copy_augmenter(sentences: list[Sentence], seed: int) -> list[Sentence]:
    """One deterministic 'rewrite' per sentence that has a structure."""
    return [Sentence(f"{s.id}~c", s.text, s.structures, {}, s.id, {"method": "copy"}) for s in sentences
            if s.structures]


def test_curve_shape_pairing_and_sizes():
    train = frame_corpus(20)
    curve = run_curve(CountingLearner(), train, {"dev": train[:2], "test": train[2:4]},
                      CurveConfig(percents=(10, 50, 100), seeds=(0, 1, 2), lexsub=False), copy_augmenter)
    assert list(curve.points) == ["10", "50", "100"]
    point = curve.points["50"]
    assert point["base"] == [10.0, 10.0, 10.0] and point["augmented"] == [30.0, 30.0, 30.0]
    assert point["n_augmented"] == [10, 10, 10]
    assert point["gain"]["augmented"]["gain_mean"] == 20.0
    assert point["other"]["test"]["base"] == [10.0, 10.0, 10.0]
    assert curve.points["10"]["n_train"] == [2, 2, 2]


def test_empty_augmentation_and_divergence_are_reported_not_hidden():
    train = frame_corpus(10)
    curve = run_curve(CountingLearner(diverge_over=12), train, {"dev": train[:2]},
                      CurveConfig(percents=(50, 100), seeds=(0,), lexsub=False),
                      lambda s, seed: [] if len(s) < 10 else copy_augmenter(s, seed))
    assert curve.points["50"]["augmented"] == [None]
    assert "empty augmentation set" in curve.points["50"]["notes"][0]
    assert curve.points["100"]["augmented"] == [None]
    assert curve.points["100"]["diverged"] == [{"seed": 0, "condition": "augmented",
                                                "reason": "non-finite loss at step 3"}]
    assert curve.points["100"]["gain"]["augmented"]["n"] == 0


@dataclass
class LoggingLearner(CountingLearner):
    """CountingLearner that logs the size of every training set it is given."""

    sizes: list[int] = field(default_factory=list)

    def run(self, train, evals, seed):
        self.sizes.append(len(train))
        return super().run(train, evals, seed)


def test_recorded_gold_only_runs_are_taken_not_trained_and_marked():
    train = frame_corpus(20)
    evals = {"dev": train[:2], "test": train[2:4]}
    first = run_curve(CountingLearner(), train, evals, CurveConfig(percents=(50,), seeds=(0, 1), lexsub=False),
                      copy_augmenter)
    point = dict(first.points["50"])
    point["base"] = [77.0, None]  # seed 1's run left no score: trained again
    point["other"] = {"test": {"base": [66.0, None]}}
    point["unseen_labels"] = [{"dev": ["Arriving"], "test": []}, None]
    recorded = recorded_bases(point, "dev", "earlier.json")
    assert sorted(recorded) == [0]
    # a recorded run of another subset size (another corpus or percent) is not taken
    wrong_size = {(50, 1): recorded_bases({**point, "base": [5.0, 5.0], "n_train": [10, 9]}, "dev", "x")[1]}
    learner = LoggingLearner()
    curve = run_curve(learner, train, evals,
                      CurveConfig(percents=(50,), seeds=(0, 1), lexsub=False,
                                  base_runs={(50, 0): recorded[0], **wrong_size}), copy_augmenter)
    got = curve.points["50"]
    assert got["base"] == [77.0, 10.0] and got["other"]["test"]["base"] == [66.0, 10.0]
    assert got["base_from"] == ["earlier.json", None]
    assert got["unseen_labels"][0] == {"dev": ["Arriving"], "test": []}
    # seed 0: augmented only; seed 1: gold only (its recorded run is of 9 sentences, not 10) and augmented
    assert learner.sizes == [20, 10, 20]
    assert got["gain"]["augmented"]["gain_mean"] == pytest.approx(((30 - 77) + (30 - 10)) / 2)
    # a curve without recorded runs does not grow the key, and joining it keeps the seeds aligned
    plain = run_curve(CountingLearner(), train, evals, CurveConfig(percents=(50,), seeds=(2,), lexsub=False),
                      copy_augmenter).points["50"]
    assert "base_from" not in plain
    assert combine_points(got, plain)["base_from"] == ["earlier.json", None, None]


def test_report_set_must_exist():
    with pytest.raises(ValueError):
        run_curve(CountingLearner(), frame_corpus(4), {"dev": []}, CurveConfig(report="test"))


def test_paired_stats():
    stats = paired_stats([50.0, 52.0, 51.0], [53.0, 54.0, 55.0])
    assert stats["gain_mean"] == 3.0 and stats["gain_sd"] == 1.0 and stats["n"] == 3
    assert 0 < stats["p_value"] < 0.05
    assert paired_stats([1.0, None], [2.0, 3.0])["n"] == 1


@dataclass
class RecordingLearner(CountingLearner):
    """A counting learner that keeps the augmented sentences of each run it is given."""

    seen: list[list[Sentence]] = field(default_factory=list)

    def run(self, train, evals, seed):
        self.seen.append([s for s in train if s.is_augmented])
        return super().run(train, evals, seed)


def test_copy_control_matches_the_augmented_count_with_source_copies():
    train = frame_corpus(10)
    learner = RecordingLearner()
    curve = run_curve(learner, train, {"dev": train[:2]},
                      CurveConfig(percents=(100,), seeds=(0,), lexsub=False, copy_control=True), copy_augmenter)
    seen = learner.seen
    copies = seen[-1]
    assert len(copies) == len(seen[1]) == 10
    assert all(c.provenance == {"method": "copy"} and c.text == train[i].text for i, c in enumerate(copies))
    assert curve.points["100"]["copy"] == curve.points["100"]["augmented"]
    assert "copy" in curve.points["100"]["gain"]


def _two_frames() -> Sentence:
    """ "Anna bought a car and sold the bread ." with a frame per verb."""
    text = "Anna bought a car and sold the bread ."
    buy = Structure("frame", "Commerce_buy", Span(5, 11, "buy.v"), [Span(0, 4, "Buyer"), Span(12, 17, "Goods")])
    sell = Structure("frame", "Commerce_sell", Span(22, 26, "sell.v"), [Span(0, 4, "Seller"), Span(27, 36, "Goods")])
    return Sentence("toy:two", text, [buy, sell], {})


def test_a_copy_carries_the_structures_its_output_carries_not_its_sources_whole_annotation():
    source = _two_frames()
    # a pipeline output: one structure, its chain's (the second), in a rewritten text
    text = "It was Anna that bought a car and sold the bread ."
    sell = Structure("frame", "Commerce_sell", Span(34, 38, "sell.v"), [Span(7, 11, "Seller"), Span(39, 48, "Goods")])
    chain = Sentence("o1", text, [sell], {}, source.id, {"structure": 1})
    copy = copy_of(chain, source)
    assert copy.text == source.text and copy.structures == [source.structures[1]]
    assert copy.provenance == {"method": "copy"} and copy.source_id == source.id and copy.id == "o1:copy"
    # no index (another augmenter): matched by kind and label, each source structure once
    both = Sentence("o2", text, [sell, sell], {}, source.id, {"method": "rewrite"})
    assert copy_of(both, source).structures == [source.structures[1]]
    every = Sentence("o3", source.text, list(source.structures), {}, source.id, {})
    assert copy_of(every, source).structures == source.structures
    # an index that does not name the output's frame is not trusted
    wrong = Sentence("o4", text, [sell], {}, source.id, {"structure": 0})
    assert copy_of(wrong, source).structures == [source.structures[1]]


def test_copy_control_adds_only_the_outputs_structures():
    source = _two_frames()
    learner = RecordingLearner()

    def one_per_chain(sentences, seed):
        return [Sentence(f"{s.id}~{k}", s.text, [st], {}, s.id, {"structure": k})
                for s in sentences for k, st in enumerate(s.structures)]

    run_curve(learner, [source], {"dev": [source]},
              CurveConfig(percents=(100,), seeds=(0,), lexsub=False, copy_control=True), one_per_chain)
    copies = learner.seen[-1]
    assert [len(c.structures) for c in copies] == [1, 1]  # two structures in all, as in the outputs, not four
    assert [c.structures[0].label for c in copies] == ["Commerce_buy", "Commerce_sell"]


def test_runs_over_disjoint_seeds_combine_into_one_point(tmp_path):
    from paraspan.evaluate.downstream.runner import merge_results

    train = frame_corpus(20)
    out = tmp_path / "r.json"
    for seeds in ((1,), (0, 2)):
        curve = run_curve(CountingLearner(), train, {"dev": train[:2], "test": train[:2]},
                          CurveConfig(percents=(50,), seeds=seeds, lexsub=False, copy_control=True), copy_augmenter)
        data = merge_results(out, curve, {"command": f"seeds {seeds}"})
    point = data["count"]["50"]
    assert point["seeds"] == [0, 1, 2] and point["base"] == [10.0] * 3 and point["n_augmented"] == [10] * 3
    assert point["other"]["test"]["augmented"] == [30.0] * 3 and len(point["seconds"]["copy"]) == 3
    assert point["gain"]["augmented"]["n"] == 3 and point["gain"]["augmented_over_copy"]["gain_mean"] == 0.0
    assert data["meta"]["count"]["commands"] == ["seeds (1,)", "seeds (0, 2)"]
    # seed 0 run again (with an augmenter that doubles its outputs): its record is replaced, the
    # records of seeds 1 and 2 are kept
    again = run_curve(CountingLearner(), train, {"dev": train[:2], "test": train[:2]},
                      CurveConfig(percents=(50,), seeds=(0,), lexsub=False),
                      lambda s, seed: copy_augmenter(s, seed) * 2)
    point = merge_results(out, again, {})["count"]["50"]
    assert point["seeds"] == [0, 1, 2] and point["n_augmented"] == [20, 10, 10]
    assert point["augmented"] == [50.0, 30.0, 30.0] and point["other"]["test"]["augmented"] == [50.0, 30.0, 30.0]
    assert point["copy"] == [None, 30.0, 30.0] and point["gain"]["augmented_over_copy"]["n"] == 2
    assert [len(v) for v in point["seconds"].values()] == [3, 3, 3]


def test_a_seed_run_again_drops_its_old_notes_and_divergences_only():
    train = frame_corpus(20)

    def point(seeds, diverge_over):
        return run_curve(CountingLearner(diverge_over=diverge_over), train, {"dev": train[:2]},
                         CurveConfig(percents=(50,), seeds=seeds, lexsub=False),
                         lambda s, seed: [] if seed == 1 else copy_augmenter(s, seed)).points["50"]

    old = point((0, 1, 2), diverge_over=25)  # seeds 0 and 2 diverge when augmented; seed 1 gets nothing
    assert [d["seed"] for d in old["diverged"]] == [0, 2] and old["notes"] == ["seed 1: empty augmentation set"]
    both = combine_points(old, point((2,), diverge_over=10**9))
    assert both["seeds"] == [0, 1, 2] and both["augmented"] == [None, None, 30.0]
    assert [d["seed"] for d in both["diverged"]] == [0] and both["notes"] == ["seed 1: empty augmentation set"]
    # records of older runs that did not name their seed are kept, not guessed at
    legacy = {**old, "diverged": [{"condition": "augmented", "reason": "nan"}], "dropped_not_from_subset": [3]}
    kept = combine_points(legacy, point((0,), diverge_over=10**9))
    assert kept["diverged"] == [{"condition": "augmented", "reason": "nan"}] and kept["dropped_not_from_subset"] == [3]


def test_a_seed_without_outputs_keeps_its_place_in_the_copy_control():
    train = frame_corpus(20)
    curve = run_curve(CountingLearner(), train, {"dev": train[:2], "test": train[:2]},
                      CurveConfig(percents=(50,), seeds=(0, 1, 2), lexsub=False, copy_control=True),
                      lambda s, seed: [] if seed == 1 else copy_augmenter(s, seed))
    point = curve.points["50"]
    assert point["copy"] == [30.0, None, 30.0] and point["augmented"] == [30.0, None, 30.0]
    assert point["other"]["test"]["copy"] == [30.0, None, 30.0] and point["seconds"]["augmented"][1] is None
    assert point["gain"]["augmented_over_copy"]["n"] == 2


def test_results_of_another_setting_are_refused_not_mixed_into_a_point(tmp_path):
    from paraspan.errors import ParaspanError
    from paraspan.evaluate.downstream.runner import merge_results

    train = frame_corpus(20)
    out = tmp_path / "r.json"

    def curve():
        return run_curve(CountingLearner(), train, {"dev": train[:2]},
                         CurveConfig(percents=(50,), seeds=(0,), lexsub=False), copy_augmenter)

    merge_results(out, curve(), {"augmenter": "rewrite", "head": {"positive_weight": 8.0, "hidden": (64,)}})
    # the same setting again (a tuple comes back from JSON as a list): accepted
    merge_results(out, curve(), {"augmenter": "rewrite", "head": {"positive_weight": 8.0, "hidden": (64,)}})
    before = out.read_text()
    with pytest.raises(ParaspanError) as info:
        merge_results(out, curve(), {"augmenter": "rewrite", "head": {"positive_weight": 1.0, "hidden": (64,)}})
    assert info.value.code == "E931" and "head:" in str(info.value) and str(out) in str(info.value)
    with pytest.raises(ParaspanError, match="augmenter: 'rewrite' there, 'generator:token_replace' here"):
        merge_results(out, curve(), {"augmenter": "generator:token_replace",
                                     "head": {"positive_weight": 8.0, "hidden": (64,)}})
    assert out.read_text() == before


@dataclass
class LabelLearner(CountingLearner):
    """Reports the gold labels of each evaluation set that the training data never shows."""

    def run(self, train, evals, seed):
        result = super().run(train, evals, seed)
        seen = {st.label for s in train for st in s.structures}
        for name, sentences in evals.items():
            gold = {st.label for s in sentences for st in s.structures}
            result.scores[name]["gold_unseen_labels"] = sorted(gold - seen)
        return result


def test_labels_absent_from_the_subset_and_sentences_without_output_are_recorded():
    train = frame_corpus(12)  # verbs cycle bought, sold, stole: Commerce_buy, Commerce_sell, Theft
    only_buy = [s for s in train if "bought" in s.text]
    reports = []

    class Reporting:
        prepared = None

        def prepare(self, corpus):
            self.prepared = len(corpus)

        def __call__(self, sentences, seed):  # nothing to replace in "stole" sentences
            outs = copy_augmenter([s for s in sentences if "stole" not in s.text], seed)
            reports.append({"kept": len(outs)})
            return outs

        def report(self):
            return reports[-1]

    augmenter = Reporting()
    curve = run_curve(LabelLearner(), only_buy, {"dev": train},
                      CurveConfig(percents=(100,), seeds=(0,), lexsub=False), augmenter)
    point = curve.points["100"]
    assert point["unseen_labels"] == [{"dev": ["Commerce_sell", "Theft"]}]
    assert point["n_no_output"] == [0] and point["augment_report"] == [{"kept": 4}]
    assert augmenter.prepared == 4
    curve = run_curve(LabelLearner(), train, {"dev": train}, CurveConfig(percents=(100,), seeds=(0,), lexsub=False),
                      augmenter)
    point = curve.points["100"]
    assert point["unseen_labels"] == [{"dev": []}] and point["n_no_output"] == [4]


def test_new_per_seed_records_combine_over_seeds():
    from paraspan.evaluate.downstream.curves import combine_points

    train = frame_corpus(20)
    a, b = (run_curve(LabelLearner(), train, {"dev": train[:3]},
                      CurveConfig(percents=(50,), seeds=seeds, lexsub=False), copy_augmenter).points["50"]
            for seeds in ((1,), (0,)))
    both = combine_points(a, b)
    assert both["seeds"] == [0, 1] and len(both["unseen_labels"]) == 2 and len(both["n_no_output"]) == 2
