from __future__ import annotations

import pytest

from paraspan.evaluate.downstream.grid import Source, build_grid, markdown

HEAD = {"hidden": 8, "positive_weight": 8.0}


def run(augmenter: str, points: dict[str, dict], *, filt: str | None = "all", head: dict | None = None,
        task: str = "frame_id") -> dict:
    meta = {"augmenter": augmenter, "dataset": "toy", "report": "dev", "head": head or HEAD}
    if filt:
        meta["filter"] = filt
    return {task: points, "meta": {task: meta}}


def point(seeds, base, augmented, copy=None, test=None, n_augmented=None):
    out = {"seeds": seeds, "n_train": [10] * len(seeds), "base": base, "augmented": augmented,
           "n_augmented": n_augmented or [5] * len(seeds)}
    if copy is not None:
        out["copy"] = copy
    if test is not None:
        out["other"] = {"test": test}
    return out


def test_runs_are_paired_by_seed_across_files_and_goal_needs_every_comparison():
    cascade = run("generator:cascade", {"10": point([0, 1, 2], [50, 51, 52], [53, 54.1, 55], [51, 52, 53])},
                  filt="verified")
    # the same seeds in another order: pairing is by seed, not by position
    token = run("generator:token_replace", {"10": point([2, 0, 1], [52, 50, 51], [52.4, 50.5, 51.4])})
    grid = build_grid([Source("c.json", cascade), Source("t.json", token)])["frame_id"]
    row = grid["points"]["dev"]["10"]["cascade"]
    assert row["vs_copy"]["gain_mean"] == pytest.approx(2.03, abs=0.01)
    best = row["vs_best_baseline"]
    assert best["name"] == "token_replace" and best["seeds"] == [0, 1, 2]
    assert best["gain_mean"] == pytest.approx(2.6, abs=0.01)  # (2.5 + 2.7 + 2.6) / 3
    assert grid["verdict"]["met"] and grid["verdict"]["met_by"] == ["cascade"]
    # an unfiltered paraspan generator does not count for frame identification's goal (verified data)
    unfiltered = build_grid([Source("c.json", run("rewrite", cascade["frame_id"], filt=None)),
                             Source("t.json", token)])["frame_id"]
    assert not unfiltered["verdict"]["met"]


def test_best_baseline_is_chosen_on_the_reported_set_and_kept_on_test():
    cascade = run("generator:cascade", {"10": point([0, 1], [50, 50], [51, 51], test={"base": [30, 30],
                                                                                      "augmented": [31, 31]})},
                  filt="verified")
    token = run("generator:token_replace", {"10": point([0, 1], [50, 50], [52, 52.2], test={
        "base": [30, 30], "augmented": [29, 29]})})
    synonym = run("generator:synonym_replace", {"10": point([0, 1], [50, 50], [50.5, 50.4], test={
        "base": [30, 30], "augmented": [33, 33]})})
    grid = build_grid([Source("c", cascade), Source("t", token), Source("s", synonym)])["frame_id"]
    assert grid["points"]["dev"]["10"]["cascade"]["vs_best_baseline"]["name"] == "token_replace"
    # on test synonym replacement is higher, but the choice was made on dev
    assert grid["points"]["test"]["10"]["cascade"]["vs_best_baseline"]["name"] == "token_replace"
    assert grid["points"]["test"]["10"]["cascade"]["vs_best_baseline"]["gain_mean"] == pytest.approx(2.0)


def test_different_learners_are_refused_and_dropped_conditions_left_out():
    a = run("generator:cascade", {"10": point([0, 1], [1, 2], [2, 3], [1, 2])}, filt="verified")
    b = run("generator:token_replace", {"10": point([0, 1], [1, 2], [2, 3])}, head={"hidden": 16})
    with pytest.raises(ValueError, match="not comparable"):
        build_grid([Source("a.json", a), Source("b.json", b)])
    grid = build_grid([Source("a.json", a, drop=("copy",), note="defective copies")])["frame_id"]
    row = grid["points"]["dev"]["10"]["cascade"]
    assert row["vs_copy"] is None and "copy" not in row
    assert grid["augmenters"]["cascade"]["notes"] == ["defective copies"]
    with pytest.raises(ValueError, match="no 'meta'"):
        build_grid([Source("x.json", {"frame_id": {}})])


def test_runs_of_another_learner_get_a_task_of_their_own():
    """Runs of one task with another learner are refused together, and go side by side when one set
    is put under a task of its own; that task keeps the goal of the task it came from."""
    old = run("generator:cascade", {"10": point([0, 1, 2], [1, 2, 3], [2, 3.1, 4.2], [1, 2, 3])}, filt=None,
              task="ner", head={"epochs": 10})
    new = run("generator:cascade", {"10": point([0, 1], [5, 6], [5, 6], [5, 6])}, filt=None, task="ner",
              head={"epochs": 20, "averages": True})
    with pytest.raises(ValueError, match="not comparable"):
        build_grid([Source("old", old), Source("new", new)])
    grid = build_grid([Source("old", old, task="ner_10passes"), Source("new", new)])
    assert set(grid) == {"ner", "ner_10passes"}
    assert grid["ner_10passes"]["learner"] == {"epochs": 10}
    assert grid["ner_10passes"]["points"]["dev"]["10"]["cascade"]["augmented"]["mean"] == pytest.approx(3.1)
    assert grid["ner"]["points"]["dev"]["10"]["cascade"]["augmented"]["mean"] == 5.5
    assert grid["ner_10passes"]["verdict"]["goal"] == grid["ner"]["verdict"]["goal"]
    assert grid["ner_10passes"]["verdict"]["met"]  # +1.0, +1.1, +1.2 over its copies


def test_a_later_source_replaces_a_point_and_others_are_kept():
    old = run("generator:token_replace", {"10": point([0, 1], [1, 1], [2, 2]), "25": point([0, 1], [3, 3], [4, 4])})
    new = run("generator:token_replace", {"25": point([0, 1], [3, 3], [5, 5])})
    grid = build_grid([Source("old", old), Source("new", new, percents=("25",))])["frame_id"]
    assert grid["points"]["dev"]["10"]["token_replace"]["augmented"]["mean"] == 2
    assert grid["points"]["dev"]["25"]["token_replace"]["augmented"]["mean"] == 5
    assert grid["points"]["dev"]["25"]["token_replace"]["source"] == "new"
    text = markdown({"frame_id": grid})
    assert "| 25 | token_replace (all) | 2 | 5 | 3.0 | 5.0 | – |" in text and "**not met**" in text


def test_plot_draws_every_augmenter_and_its_copies(tmp_path):
    pytest.importorskip("matplotlib")
    from paraspan.evaluate.downstream.plot import plot_grid

    a = run("generator:cascade", {p: point([0, 1], [1, 2], [2, 3], [1.5, 2.5]) for p in ("0.5", "10", "25")},
            filt="verified")
    grid = build_grid([Source("a.json", a)])["frame_id"]
    target = plot_grid(grid, "dev", tmp_path / "grid.png")
    assert target.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_gold_only_retrained_by_each_run_gives_the_learners_own_spread():
    # two runs of the same subsets whose gold-only F1s differ (another machine): the spread per seed is
    # what the grid reports as noise, whatever the augmenters did; a seed run once has no spread
    first = run("generator:token_replace", {"25": point([0, 1, 2], [56.0, 58.0, 55.0], [57, 58, 56])})
    second = run("generator:cascade", {"25": point([0, 1], [58.0, 55.4], [58, 56])}, filt="verified")
    same = run("generator:synonym_replace", {"25": point([0], [56.0], [56.5])})
    grid = build_grid([Source("t", first), Source("c", second), Source("s", same)])["frame_id"]
    reruns = grid["gold_only_reruns"]["25"]
    assert reruns["seeds"] == [0, 1] and reruns["runs"] == 3
    assert reruns["per_seed"][0] == [56.0, 58.0, 56.0]
    assert reruns["spread_max"] == pytest.approx(2.6) and reruns["spread_mean"] == pytest.approx(2.3)
    assert "25%: up to 2.6 (mean 2.3; 2 seeds, up to 3 runs)" in markdown({"frame_id": grid})
    # one run per seed: nothing to compare
    assert build_grid([Source("t", first)])["frame_id"]["gold_only_reruns"] == {}


def test_gold_only_runs_taken_from_another_file_are_not_counted_as_retrainings():
    first = run("generator:cascade", {"25": point([0, 1], [56.0, 58.0], [57, 58])}, filt="verified")
    taken = point([0, 1], [56.0, 57.1], [57, 57])
    taken["base_from"] = ["cascade.json", None]  # seed 0's gold-only run is the cascade file's
    grid = build_grid([Source("c", first), Source("s", run("generator:synonym_replace", {"25": taken}))])
    reruns = grid["frame_id"]["gold_only_reruns"]["25"]
    assert reruns["seeds"] == [1] and reruns["per_seed"][1] == [58.0, 57.1]
    # the taken run still pairs the augmenter's seed 0 with its gold only
    assert grid["frame_id"]["points"]["dev"]["25"]["synonym_replace"]["vs_base"]["n"] == 2
