"""Augmentation to a budget and the held-aside gold control (Cui & Swayamdipta, Fig. 2), on the toy
corpus with fake augmenters and a counting learner (no model)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.evaluate.downstream.budget import (
    Budget,
    augment_to_budget,
    budget_order,
    held_aside_gold,
    merge_reports,
)
from paraspan.evaluate.downstream.curves import CurveConfig, combine_points, run_curve
from paraspan.evaluate.downstream.data import sample_subset
from paraspan.evaluate.downstream.learners import RunResult
from tests.evaluate.downstream.toy import frame_corpus


@dataclass
class ChunkAugmenter:
    """``per`` outputs per sentence with a structure (none for ids in ``barren``); logs each call."""

    per: int = 3
    barren: frozenset[str] = frozenset()
    calls: list[list[str]] = field(default_factory=list)

    def __call__(self, sentences: list[Sentence], seed: int) -> list[Sentence]:
        self.calls.append([s.id for s in sentences])
        self.last = {"inputs": len(sentences), "store_inputs": len(self.calls), "notes": {"none": 1}}
        return [Sentence(f"{s.id}~{k}", s.text, s.structures, {}, s.id, {"method": "fake"})
                for s in sentences if s.structures and s.id not in self.barren for k in range(self.per)]

    def report(self) -> dict:
        return dict(self.last)


@dataclass
class TrainLearner:
    """F1 = the number of training sentences; keeps every training set it is given."""

    name: str = "count"
    seen: list[list[Sentence]] = field(default_factory=list)

    def run(self, train, evals, seed):
        self.seen.append(list(train))
        return RunResult(scores={name: {"f1": float(len(train))} for name in evals})


def test_budget_count_is_a_percent_of_the_full_training_set():
    assert Budget(6.25).count(3139) == 196 and Budget(6.25).count(160) == 10
    assert Budget(6.25).to_dict(160) == {"percent": 6.25, "count": 10, "chunk": 8, "of": "the full training set"}
    for bad in ((0.0,), (5.0, 0)):
        with pytest.raises(ValueError):
            Budget(*bad)


def test_the_budget_cuts_outputs_to_the_count_and_stops_calling_once_reached():
    subset = frame_corpus(40)
    augmenter = ChunkAugmenter(per=3)
    done = augment_to_budget(augmenter, subset, seed=1, count=10, chunk=2)
    # 6 outputs a call: the second call reaches 10, and no third call is made
    assert augmenter.calls == [[s.id for s in budget_order(subset, 1)[k:k + 2]] for k in (0, 2)]
    assert len(done.outputs) == 10 and len({o.id for o in done.outputs}) == 10
    assert {o.source_id for o in done.outputs} <= set(augmenter.calls[0] + augmenter.calls[1])
    assert [s.id for s in done.used] == augmenter.calls[0] + augmenter.calls[1]
    assert done.record == {"target": 10, "sentences_used": 4, "calls": 2, "outputs_before_cut": 12, "reached": True}
    # the reports of the calls as one: counts summed, the store's size the last call's
    assert done.report == {"inputs": 4, "store_inputs": 2, "notes": {"none": 2}}
    # the order and the cut depend on the seed only
    again = augment_to_budget(ChunkAugmenter(per=3), subset, seed=1, count=10, chunk=2)
    assert [o.id for o in again.outputs] == [o.id for o in done.outputs]
    other = augment_to_budget(ChunkAugmenter(per=3), subset, seed=2, count=10, chunk=2)
    assert [o.id for o in other.outputs] != [o.id for o in done.outputs]
    # nothing asked: no call
    idle = ChunkAugmenter()
    assert augment_to_budget(idle, subset, seed=1, count=0).outputs == [] and idle.calls == []


def test_a_subset_that_runs_out_gives_fewer_and_says_so():
    subset = frame_corpus(12)
    barren = frozenset(s.id for s in subset[2:])
    done = augment_to_budget(ChunkAugmenter(per=1, barren=barren), subset, seed=0, count=5, chunk=4)
    assert len(done.outputs) == 2 and done.record["reached"] is False
    assert done.record["sentences_used"] == 12 and done.record["calls"] == 3
    assert done.derived == {subset[0].id, subset[1].id}


def test_an_augmenter_of_the_whole_subset_is_called_once_and_its_outputs_taken_in_the_same_order():
    subset = frame_corpus(40)

    class Whole(ChunkAugmenter):
        whole_subset = True

    whole = Whole(per=3)
    done = augment_to_budget(whole, subset, seed=1, count=10, chunk=2)
    assert whole.calls == [[s.id for s in subset]]
    chunked = augment_to_budget(ChunkAugmenter(per=3), subset, seed=1, count=10, chunk=2)
    assert [o.id for o in done.outputs] == [o.id for o in chunked.outputs]
    assert done.record["whole_subset"] is True and done.record["sentences_used"] == 4


def test_merge_reports():
    merged = merge_reports([{"kept": 2, "seconds": 1.25, "notes": {"a": 1}, "store": "x", "store_inputs": 8},
                            {"kept": 3, "seconds": 2.0, "notes": {"a": 1, "b": 2}, "store": "x", "store_inputs": 16}])
    assert merged == {"kept": 5, "seconds": 3.2, "notes": {"a": 2, "b": 2}, "store": "x", "store_inputs": 16}


def test_held_aside_gold_never_draws_from_the_subset_and_matches_the_count():
    train = frame_corpus(40)
    subset = sample_subset(train, 25, 3)
    gold = held_aside_gold(train, subset, 7, seed=3)
    assert len(gold) == 7 and not {s.id for s in gold} & {s.id for s in subset}
    assert [s.id for s in gold] == [s.id for s in held_aside_gold(train, subset, 7, seed=3)]
    assert [s.id for s in gold] != [s.id for s in held_aside_gold(train, subset, 7, seed=4)]
    # fewer left than asked: all of them
    assert len(held_aside_gold(train, train[:35], 9, seed=0)) == 5 and held_aside_gold(train, train, 3, 0) == []


def _curve(learner, train, seeds, augmenter=None, **config):
    options = {"percents": (25,), "seeds": seeds, "lexsub": False, "copy_control": True, "gold_control": True,
               "augment_budget": Budget(6.25, chunk=2), **config}
    return run_curve(learner, train, {"dev": train[:2]}, CurveConfig(**options),
                     augmenter or ChunkAugmenter(per=3))


def test_the_curve_trains_on_the_budget_its_copies_and_as_much_held_aside_gold_paired_by_seed():
    train = frame_corpus(160)  # 25%: 40 sentences; 6.25% of 160: 10 generated
    learner = TrainLearner()
    curve = _curve(learner, train, (0, 1, 2))
    point = curve.points["25"]
    assert curve.meta["augment_budget"] == {"percent": 6.25, "count": 10, "chunk": 2, "of": "the full training set"}
    assert point["n_augmented"] == point["n_gold"] == [10, 10, 10]
    assert [r["calls"] for r in point["budget"]] == [2, 2, 2] and all(r["reached"] for r in point["budget"])
    assert point["base"] == [40.0] * 3 and point["augmented"] == point["copy"] == point["gold"] == [50.0] * 3
    assert point["gain"]["gold"]["gain_mean"] == 10.0 and point["gain"]["augmented_over_gold"]["gain_mean"] == 0.0
    # per seed: base, augmented, copy, gold on the same subset; the gold run's extra sentences are real
    # gold sentences from outside that subset
    for k in range(3):
        base, augmented, copies, gold = learner.seen[4 * k:4 * k + 4]
        subset = {s.id for s in base}
        assert {s.id for s in augmented[:40]} == {s.id for s in copies[:40]} == {s.id for s in gold[:40]} == subset
        extra = gold[40:]
        assert len(extra) == 10 and not any(s.is_augmented for s in extra) and not {s.id for s in extra} & subset
        assert all(s.source_id in subset for s in augmented[40:])
    # seeds pair: each seed alone gives its record of the joint run, and the pieces combine into it
    alone = [_curve(TrainLearner(), train, (seed,)).points["25"] for seed in (2, 0, 1)]
    both = combine_points(combine_points(alone[0], alone[1]), alone[2])
    for key in ("seeds", "n_train", "base", "augmented", "copy", "gold", "n_gold", "budget", "n_augmented"):
        assert both[key] == point[key], key


def test_a_budget_the_subset_cannot_fill_gives_a_matching_gold_control_and_notes_it():
    train = frame_corpus(160)
    subset = sample_subset(train, 25, 0)
    barren = frozenset(s.id for s in subset[3:])
    point = _curve(TrainLearner(), train, (0,), ChunkAugmenter(per=1, barren=barren)).points["25"]
    assert point["n_augmented"] == point["n_gold"] == [3] and point["budget"][0]["reached"] is False
    assert point["budget"][0]["sentences_used"] == 40 and point["gold"] == [43.0]
    # no output at all: the augmented, copy and gold runs keep their places, noted
    empty = _curve(TrainLearner(), train, (0, 1), lambda s, seed: []).points["25"]
    assert empty["gold"] == [None, None] and empty["copy"] == [None, None] and empty["n_gold"] == [0, 0]
    assert "seed 0: empty held-aside gold set" in empty["notes"]


def test_a_budgeted_curve_is_not_mixed_with_an_unbudgeted_one(tmp_path):
    from paraspan.errors import ParaspanError
    from paraspan.evaluate.downstream.runner import merge_results

    train = frame_corpus(160)
    out = tmp_path / "r.json"
    plain = run_curve(TrainLearner(), train, {"dev": train[:2]},
                      CurveConfig(percents=(25,), seeds=(0,), lexsub=False), ChunkAugmenter())
    merge_results(out, plain, {"augmenter": "fake"})
    assert "augment_budget" not in json.loads(out.read_text())["meta"]["count"]
    with pytest.raises(ParaspanError) as err:
        merge_results(out, _curve(TrainLearner(), train, (1,)), {"augmenter": "fake"})
    assert err.value.code == "E931" and "augment_budget" in str(err.value)
    budgeted = tmp_path / "b.json"
    for seeds in ((1,), (0, 2)):  # runs of the same budget combine seed by seed
        data = merge_results(budgeted, _curve(TrainLearner(), train, seeds), {"augmenter": "fake"})
    assert data["count"]["25"]["seeds"] == [0, 1, 2] and len(data["count"]["25"]["budget"]) == 3


def test_a_jsonl_file_under_a_budget_is_read_whole(tmp_path):
    from paraspan.evaluate.downstream.augment import get_augmenter

    train = frame_corpus(160)
    subset = sample_subset(train, 25, 0)
    path = tmp_path / "aug.jsonl"
    path.write_text("".join(json.dumps(o.to_dict()) + "\n" for o in ChunkAugmenter(per=2)(subset, 0)))
    done = augment_to_budget(get_augmenter(f"jsonl:{path}"), subset, seed=0, count=10, chunk=2)
    assert len(done.outputs) == 10 and done.record["calls"] == 1 and done.record["sentences_used"] == 6


def test_a_generator_under_a_budget_fills_its_store_once(tmp_path):
    """The pipeline with the fake generator ("stole" has no synonym): the chunks go into the store,
    and a later run with the same budget (the curve after ``--augment-only``) generates nothing."""
    from paraspan.evaluate.downstream.augment import get_augmenter

    train = frame_corpus(96)
    subset = sample_subset(train, 25, 0)

    def augmenter():
        return get_augmenter("generator:tests.pipeline.fakes:make_generator", filter="all",
                             store_dir=tmp_path / "stores", prefix="toy",
                             settings={"aligner": "tests.pipeline.fakes:make_aligner", "kinds": ["frame"]})

    first = augment_to_budget(augmenter(), subset, seed=0, count=6, chunk=4)
    assert len(first.outputs) == 6 and first.record["reached"]
    assert first.report["generated_now"] == first.report["inputs"] == first.record["sentences_used"] < len(subset)
    assert first.report["store_inputs"] == first.record["sentences_used"]
    again = augment_to_budget(augmenter(), subset, seed=0, count=6, chunk=4)
    assert again.report["generated_now"] == 0 and again.record == first.record
    assert [o.text for o in again.outputs] == [o.text for o in first.outputs]
    assert len(list((tmp_path / "stores").glob("*.db"))) == 1
