from __future__ import annotations

from dataclasses import dataclass, field

from paraspan.evaluate.downstream.learners import HeadConfig, RunResult
from paraspan.evaluate.downstream.runner import choose_weight, head_config, merge_grid, positive_weight_grid
from tests.evaluate.downstream.toy import frame_corpus


def test_head_config_takes_the_learners_default_and_overrides():
    from paraspan.evaluate.downstream import frame_id, srl

    assert head_config("frame_id").positive_weight == frame_id.POSITIVE_WEIGHT
    assert head_config("srl").positive_weight == srl.POSITIVE_WEIGHT
    changed = head_config("frame_id", epochs=3, positive_weight=2)
    assert changed.epochs == 3 and changed.positive_weight == 2.0


@dataclass
class PeakedLearner:
    """Dev F1 peaks at positive weight 4 (minus the seed); records what it trained on."""

    config: HeadConfig = field(default_factory=HeadConfig)
    name: str = "peaked"
    seen: list = field(default_factory=list)

    def run(self, train, evals, seed):
        self.seen.append((len(train), sorted(evals), self.config.positive_weight))
        f1 = 50.0 - abs(self.config.positive_weight - 4.0) - seed
        return RunResult(scores={name: {"f1": f1, "precision": f1, "recall": f1} for name in evals}, seconds=1.0)


def test_the_base_learner_is_run_at_each_weight_and_the_best_mean_dev_f1_is_chosen():
    learner = PeakedLearner()
    train = frame_corpus(20)
    grid = positive_weight_grid(learner, train, {"dev": train[:2], "test": train[2:4]}, "dev", [1, 2, 4, 8],
                                [10, 100], [0, 1])
    assert sorted(grid) == ["1", "2", "4", "8"] and grid["4"]["10"]["f1"] == [50.0, 49.0]
    assert grid["8"]["100"]["seeds"] == [0, 1] and grid["8"]["100"]["diverged"] == [None, None]
    # only the chosen evaluation set is scored (never another one, e.g. FrameNet test)
    assert all(evals == ["dev"] for _, evals, _ in learner.seen)
    assert {n for n, _, _ in learner.seen} == {2, 20}
    chosen, means = choose_weight(grid, 10)
    assert chosen == 4.0 and means["10"]["4"] == {"mean": 49.5, "sd": 0.71, "n": 2}
    assert means["100"]["1"]["mean"] == 46.5


def test_grids_merge_by_seed_and_ties_go_to_the_smaller_weight():
    a = {"2": {"10": {"seeds": [0], "f1": [40.0]}}, "1": {"10": {"seeds": [0], "f1": [40.0]}}}
    assert choose_weight(a, 10)[0] == 1.0
    b = {"2": {"10": {"seeds": [1, 0], "f1": [45.0, 41.0]}}, "1": {"10": {"seeds": [1], "f1": [42.0]}}}
    merged = merge_grid(a, b)
    assert merged["2"]["10"] == {"seeds": [0, 1], "f1": [41.0, 45.0]}
    assert merged["1"]["10"] == {"seeds": [0, 1], "f1": [40.0, 42.0]}
    assert choose_weight(merged, 10)[0] == 2.0
    assert choose_weight(merged, 100)[0] is None
