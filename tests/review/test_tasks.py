"""Review tasks: the protocol of Culkin et al. 2021 §6.1, assignment, and agreement statistics."""

from __future__ import annotations

import json
import time

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.pipeline.store import RunStore
from paraspan.review.stats import agreement, export_judgments, fleiss_kappa
from paraspan.review.tasks import (
    GOLD_IN,
    GOLD_OUT,
    SYSTEM,
    GoldPool,
    ReviewError,
    ReviewSettings,
    build_task,
    next_task,
    prepare_tasks,
    submit,
)
from tests.report.store_fixture import INPUTS, gold_sentences, input_sentence, make_store
from tests.review.conftest import prepared_store


def _pool() -> GoldPool:
    pool = GoldPool()
    pool.add(input_sentence(r) for r in INPUTS)
    pool.add(gold_sentences())
    return pool


def _output() -> Sentence:
    text = "The baker traded fresh bread to the villagers."
    return Sentence("t01~s0i1", text, [Structure("frame", "Commerce_sell", Span(10, 16, "trade.v"),
                                                 [Span(0, 9, "Seller")])], source_id="t01")


def test_task_follows_the_protocol():
    task, stats = build_task(_output(), "t01", _pool(), seed=0, definitions={"Commerce_sell": "Selling things."})
    items = {i["kind"]: i for i in task["items"]}
    assert set(items) == {SYSTEM, GOLD_IN, GOLD_OUT} and [i["slot"] for i in task["items"]] == ["c0", "c1", "c2"]
    assert items[SYSTEM]["ref"] == "t01~s0i1" and items[SYSTEM]["text"][10:16] == "traded"
    # gold in-frame: same frame, another LU; gold out-of-frame: another frame
    assert items[GOLD_IN]["label"] == "Commerce_sell" and stats.same_lu == 0
    gold_in_trigger = items[GOLD_IN]["text"][items[GOLD_IN]["start"]:items[GOLD_IN]["end"]]
    assert gold_in_trigger.lower() != "traded"
    assert items[GOLD_OUT]["label"] != "Commerce_sell"
    # the source sentence is never shown, neither as a control nor as an example
    source = "The baker sold fresh bread to the villagers."
    assert all(i["text"] != source for i in task["items"])
    assert 2 <= len(task["examples"]) <= 3
    assert all("gold:t01#" not in e["ref"] for e in task["examples"])
    # example triggers are disjoint from the candidates' triggers (footnote 19)
    triggers = {i["text"][i["start"]:i["end"]].lower() for i in task["items"]}
    for example in task["examples"]:
        marked = [m.lower() for m in __import__("re").findall(r'class="anchor"[^>]*>([^<]*)<', example["html"])]
        assert marked and not set(marked) & triggers
    assert task["definition"] == "Selling things."
    assert "Commerce_sell" in task["question"]
    # deterministic for a seed; the candidate order changes with the seed somewhere in the run
    again, _ = build_task(_output(), "t01", _pool(), seed=0)
    assert again["items"] == task["items"]
    orders = {tuple(i["kind"] for i in build_task(_output(), "t01", _pool(), seed=s)[0]["items"]) for s in range(12)}
    assert len(orders) > 1


def test_out_of_frame_control_is_adversarial_when_it_can_be():
    pool = _pool()
    text = "The children traded stickers at lunch."
    pool.add([Sentence("x1", text, [Structure("frame", "Exchange", Span(13, 19, "trade.v"))])])
    for seed in range(5):  # the output's own trigger word evoking another frame, whatever the seed
        task, _ = build_task(_output(), "t01", pool, seed=seed)
        [gold_out] = [i for i in task["items"] if i["kind"] == GOLD_OUT]
        assert gold_out["text"] == text and gold_out["label"] == "Exchange"


def test_task_falls_back_when_the_pool_is_small():
    pool = GoldPool()
    pool.add([input_sentence(INPUTS[0])])  # only the source itself
    task, stats = build_task(_output(), "t01", pool)
    assert [i["kind"] for i in task["items"]] == [SYSTEM]  # nothing else may be shown
    assert stats.no_in_frame == 1 and stats.no_out_frame == 1 and task["examples"] == []


def test_entity_runs_ask_about_the_label():
    text = "Maria flew to Lisbon on Monday."
    output = Sentence("e1~s0i1", "Maria travelled to Lisbon on Monday.",
                      [Structure("entity", "LOC", Span(19, 25, None))], source_id="e1")
    pool = GoldPool()
    pool.add([Sentence("e1", text, [Structure("entity", "LOC", Span(14, 20))]),
              Sentence("e2", "Paris is big.", [Structure("entity", "LOC", Span(0, 5))]),
              Sentence("e3", "Ahmed laughed.", [Structure("entity", "PER", Span(0, 5))])])
    task, _ = build_task(output, "e1", pool)
    assert task["question"] == "How well is the highlighted phrase a mention of a LOC entity in its sentence?"
    assert task["definition"] == ""
    items = {i["kind"]: i for i in task["items"]}
    assert items[GOLD_IN]["text"] == "Paris is big." and items[GOLD_OUT]["text"] == "Ahmed laughed."


def test_prepare_is_idempotent_and_samples(tmp_path):
    path = make_store(tmp_path / "run.db")
    with RunStore.open(path) as store:
        first = prepare_tasks(store, _pool(), sample=5)
        assert first.tasks == 5
        again = prepare_tasks(store, _pool(), sample=5)
        assert again.tasks == 0 and again.existing == 5
        rest = prepare_tasks(store, _pool())
        assert rest.tasks == 11 and rest.existing == 5
        kept = prepare_tasks(store, _pool(), filter="iter1")
        assert kept.tasks == 0 and kept.existing == 10


def test_concurrent_annotators_get_different_tasks_until_all_are_handed_out(tmp_path):
    path = prepared_store(tmp_path / "run.db", sample=4)
    settings = ReviewSettings(redundancy=2)
    with RunStore.open(path) as store:
        conn = store.conn
        first = [next_task(conn, name, settings)["task"] for name in ("a", "b", "c", "d")]
        assert len(set(first)) == 4  # four annotators at once: four different tasks
        assert next_task(conn, "a", settings)["task"] == first[0]  # a reload gives the same task back
        e = next_task(conn, "e", settings)["task"]  # all handed out: a second round starts
        assert e in first
        for name, task in zip("abcd", first, strict=True):
            submit(store, name, task, _all(conn, task, 60), settings)
        # a never gets a task twice; the task e is holding comes last (the fewest annotators first)
        order = []
        while (task := next_task(conn, "a", settings)) is not None:
            assert task["task"] not in order and task["task"] != first[0]
            order.append(task["task"])
            submit(store, "a", task["task"], _all(conn, task["task"], 40), settings)
        assert set(order) == set(first) - {first[0]}
        if e != first[0]:
            assert order[-1] == e
        assert next_task(conn, "b", settings)["task"] == first[0]  # the only task still short of two
        counts = dict(conn.execute("SELECT task_id, COUNT(DISTINCT annotator) FROM review_responses GROUP BY task_id"))
        assert max(counts.values()) <= 2


def test_an_expired_lease_frees_the_task(tmp_path):
    path = prepared_store(tmp_path / "run.db", sample=1)
    with RunStore.open(path) as store:
        held = next_task(store.conn, "a", ReviewSettings(redundancy=1, lease=3600))["task"]
        assert next_task(store.conn, "b", ReviewSettings(redundancy=1, lease=3600))["task"] == held  # only one task
        store.conn.execute("UPDATE review_assignments SET assigned = ?", (time.time() - 10,))
        short = ReviewSettings(redundancy=1, lease=5)
        assert next_task(store.conn, "c", short)["task"] == held


def _all(conn, task_id: int, score: float) -> dict[str, float]:
    items = json.loads(conn.execute("SELECT items FROM review_tasks WHERE id = ?", (task_id,)).fetchone()[0])
    return {i["slot"]: score for i in items}


def test_submit_validates_and_stores_nothing_twice(tmp_path):
    path = prepared_store(tmp_path / "run.db", sample=2)
    settings = ReviewSettings()
    with RunStore.open(path) as store:
        task = next_task(store.conn, "ann", settings)["task"]
        scores = _all(store.conn, task, 70)
        cases = [
            (dict(scores, c0=101), 422), (dict(scores, c0=-1), 422), (dict(scores, c0="50"), 422),
            ({**scores, "c9": 50}, 404), ({k: v for k, v in scores.items() if k != "c1"}, 422),
        ]
        for bad, status in cases:
            with pytest.raises(ReviewError) as info:
                submit(store, "ann", task, bad, settings)
            assert info.value.status == status
        with pytest.raises(ReviewError) as info:
            submit(store, "ann", 9999, scores, settings)
        assert info.value.status == 404
        with pytest.raises(ReviewError) as info:
            submit(store, "other", task, scores, settings)  # never given this task
        assert info.value.status == 409
        with pytest.raises(ReviewError) as info:
            submit(store, "  ", task, scores, settings)
        assert info.value.status == 422
        assert store.judgments() == []
        submit(store, "ann", task, scores, settings)
        with pytest.raises(ReviewError) as info:
            submit(store, "ann", task, scores, settings)
        assert info.value.status == 409
        assert len(store.judgments()) == 1
        assert store.conn.execute("SELECT COUNT(*) FROM review_responses").fetchone()[0] == 3


def test_fleiss_kappa():
    # Fleiss' kappa, the worked example on Wikipedia: 10 subjects, 14 raters, 5 categories → 0.210
    table = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
             [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
    assert fleiss_kappa(table) == pytest.approx(0.2099, abs=1e-4)
    assert fleiss_kappa([[3, 0], [0, 3], [3, 0]]) == pytest.approx(1.0)
    assert fleiss_kappa([[2, 0], [2, 0]]) is None  # one category only: undefined
    assert fleiss_kappa([[1, 0]]) is None  # no item with two raters
    # items with different numbers of raters are allowed
    assert fleiss_kappa([[3, 0], [0, 2], [1, 1]]) == pytest.approx(0.5, abs=0.2)


def test_agreement_and_export(tmp_path):
    path = prepared_store(tmp_path / "run.db", sample=3)
    settings = ReviewSettings(redundancy=3)
    with RunStore.open(path) as store:
        for name, score_of in (("a", {SYSTEM: 80, GOLD_IN: 90, GOLD_OUT: 10}),
                               ("b", {SYSTEM: 70, GOLD_IN: 60, GOLD_OUT: 30}),
                               ("c", {SYSTEM: 20, GOLD_IN: 80, GOLD_OUT: 70})):
            while (task := next_task(store.conn, name, settings)) is not None:
                items = json.loads(store.conn.execute("SELECT items FROM review_tasks WHERE id = ?",
                                                      (task["task"],)).fetchone()[0])
                submit(store, name, task["task"], {i["slot"]: score_of[i["kind"]] for i in items}, settings)
        stats = agreement(store)
        written, controls = export_judgments(store, tmp_path / "j.jsonl", controls=tmp_path / "c.jsonl")
    assert stats["system"]["judgments"] == 9 and stats["system"]["outputs"] == 3
    assert stats["system"]["outputs_accepted"] == 3  # mean of 80, 70, 20 ≥ 50
    assert stats["gold-in"]["accepted"] == 1.0 and stats["gold-out"]["accepted"] == pytest.approx(1 / 3, abs=1e-3)
    assert stats["all_agree"] == 0.0
    assert stats["fleiss_kappa"] is not None and stats["fleiss_kappa"] < 0
    assert stats["annotators"]["a"]["control_accuracy"] == 1.0
    assert stats["annotators"]["c"]["control_accuracy"] == 0.5
    lines = [json.loads(x) for x in (tmp_path / "j.jsonl").read_text().splitlines()]
    assert written == 9 and len(lines) == 9 and {"output_id", "score", "annotator", "time", "task"} <= set(lines[0])
    assert controls == 18
