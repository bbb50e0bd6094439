"""Review tasks: the protocol of Culkin et al. 2021 §6.1, assignment, and agreement statistics."""

from __future__ import annotations

import json
import re
import time

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.pipeline.store import RunStore
from paraspan.review.stats import agreement, export_judgments, fleiss_kappa
from paraspan.review.tasks import (
    GOLD_IN,
    GOLD_OUT,
    MAX_NOTE,
    SYSTEM,
    GoldPool,
    ReviewError,
    ReviewSettings,
    build_output_task,
    build_task,
    next_task,
    prepare_output_tasks,
    prepare_tasks,
    progress,
    submit,
)
from tests.report.store_fixture import INPUTS, gold_sentences, input_sentence, make_store
from tests.review.conftest import output_store, prepared_store


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


# ---------------------------------------------------------------------------------------- output mode


def _tags(html_text: str) -> list[tuple[str, str]]:
    """(marked text, tag right after it) pairs of labelled HTML."""
    return re.findall(r'<mark class="[a-z]+"[^>]*>([^<]*)</mark><span class="tag [a-z]+">([^<]*)</span>', html_text)


def test_output_task_shows_source_and_output_with_every_span_labelled():
    source = input_sentence(INPUTS[0])
    task = build_output_task(_output(), source, structure=0, definitions={"Commerce_sell": "Selling things."})
    view = task["view"]
    assert task["kind"] == "frame" and task["label"] == "Commerce_sell" and task["definition"] == "Selling things."
    assert view["source"]["text"] == source.text and view["output"]["text"] == _output().text
    # every span of the structure in the HTML, each followed by its label, in text order
    assert _tags(view["source"]["html"]) == [("The baker", "Seller"), ("sold", "Commerce_sell (sell.v)"),
                                             ("fresh bread", "Goods"), ("to the villagers", "Buyer")]
    assert _tags(view["output"]["html"]) == [("The baker", "Seller"), ("traded", "Commerce_sell (trade.v)")]
    # and as a list: the anchor first, then the arguments
    assert [(s["role"], s["text"], s["label"]) for s in view["output"]["spans"]] == [
        ("anchor", "traded", "Commerce_sell (trade.v)"), ("arg", "The baker", "Seller")]
    # one colour per label in both sentences; the source arguments the output lost are named
    colours = {s["label"]: s["colour"] for s in view["source"]["spans"]}
    assert all(colours.get(s["label"], s["colour"]) == s["colour"] for s in view["output"]["spans"])
    assert view["missing"] == [{"label": "Goods", "text": "fresh bread"}, {"label": "Buyer", "text": "to the villagers"}]
    assert [i["kind"] for i in task["items"]] == [SYSTEM] and task["items"][0]["slot"] == "c0"
    assert "every span and label" in task["question"] and "frame element" in task["question"]


def test_output_task_escapes_and_lists_nested_spans():
    text = "Tom & Jerry <met> the new mayor of Paris."
    mayor = text.index("the new mayor of Paris")
    structure = Structure("frame", "Meet", Span(12, 17, None),
                          [Span(0, 11, "Party<1>"), Span(mayor, mayor + 22, "Party_2"),
                           Span(text.index("Paris"), text.index("Paris") + 5, "Place")])
    output = Sentence("n1~s0i1", text, [structure], source_id="n1", provenance={"structure": 0})
    task = build_output_task(output, Sentence("n1", text, [structure]))
    shown = task["view"]["output"]
    assert "<met>" not in shown["html"] and "&lt;met&gt;" in shown["html"] and "Tom &amp; Jerry" in shown["html"]
    assert 'class="tag' not in shown["html"]  # nested spans: coloured only, the list names them
    assert [(s["text"], s["label"]) for s in shown["spans"]] == [
        ("<met>", "Meet"), ("Tom & Jerry", "Party<1>"), ("the new mayor of Paris", "Party_2"), ("Paris", "Place")]


def test_output_task_takes_the_source_structure_from_provenance():
    text = "Ann said that Bo bought a car."
    source = Sentence("s1", text, [Structure("frame", "Statement", Span(4, 8, "say.v"), [Span(0, 3, "Speaker")]),
                                   Structure("frame", "Commerce_buy", Span(17, 23, "buy.v"),
                                             [Span(14, 16, "Buyer"), Span(24, 29, "Goods")])])
    out_text = "Ann said that Bo purchased a car."
    output = Sentence("s1~s1i1", out_text, [Structure("frame", "Commerce_buy", Span(17, 26, "purchase.v"),
                                                      [Span(14, 16, "Buyer"), Span(27, 32, "Goods")])],
                      source_id="s1", provenance={"structure": 1, "iteration": 1})
    task = build_output_task(output, source, structure=0)  # provenance wins over the column
    assert _tags(task["view"]["source"]["html"]) == [("Bo", "Buyer"), ("bought", "Commerce_buy (buy.v)"),
                                                     ("a car", "Goods")]
    assert task["view"]["missing"] == []
    task = build_output_task(output, None)  # no source: the output is still shown
    assert task["view"]["source"]["spans"] == [] and len(task["view"]["output"]["spans"]) == 3


def test_output_task_shows_every_mention_of_an_ner_output_and_names_the_lost_one():
    """An NER output carries every mention it kept; the page showed only the first (noted while judging
    wikiann-ds-cascade). Now each is shown, and a source mention the output lacks is named."""
    text = "Ann met Bo in Oslo ."
    source = Sentence("w1", text, [Structure("entity", "PER", Span(0, 3)), Structure("entity", "PER", Span(8, 10)),
                                   Structure("entity", "LOC", Span(14, 18))])
    out_text = "In Oslo , Ann met Bo ."
    output = Sentence("w1~r1", out_text, [Structure("entity", "PER", Span(10, 13)), Structure("entity", "LOC", Span(3, 7))],
                      source_id="w1", provenance={"structure": 0})
    view = build_output_task(output, source)["view"]
    assert _tags(view["output"]["html"]) == [("Oslo", "LOC"), ("Ann", "PER")]
    assert [(s["role"], s["text"], s["label"]) for s in view["output"]["spans"]] == [
        ("anchor", "Ann", "PER"), ("other", "Oslo", "LOC")]
    assert [(s["role"], s["text"]) for s in view["source"]["spans"]] == [("anchor", "Ann"), ("other", "Bo"),
                                                                       ("other", "Oslo")]
    assert view["missing"] == [{"label": "PER", "text": "Bo"}]


def test_prepare_output_tasks_filter_sample_and_modes_apart(tmp_path):
    path = prepared_store(tmp_path / "run.db", sample=3)  # trigger tasks too: the modes do not mix
    with RunStore.open(path) as store:
        store.conn.execute("DELETE FROM decisions WHERE filter = 'all'")  # `all` is then no recorded filter
        kept = {r.id for r in store.iter_outputs("align0.95")}
        assert 0 < len(kept) < 16
        assert prepare_output_tasks(store, filter="align0.95").tasks == len(kept)  # only what the filter kept
        assert {r[0] for r in store.conn.execute("SELECT output_id FROM review_output_tasks")} == kept
        sampled = prepare_output_tasks(store, filter="all", sample=5)
        assert sampled.tasks + sampled.existing == 5
        every = prepare_output_tasks(store, filter="all")  # every output, kept or rejected
        assert every.tasks + every.existing == 16 and every.skipped == 0
        again = prepare_output_tasks(store)
        assert again.tasks == 0 and again.existing == 16
        assert store.conn.execute("SELECT COUNT(*) FROM review_tasks").fetchone()[0] == 3
        settings = ReviewSettings(mode="output")
        assert progress(store.conn, None, settings)["tasks"] == 16
        assert progress(store.conn, None, ReviewSettings())["tasks"] == 3
        task = next_task(store.conn, "ann", settings)
        assert task["mode"] == "output" and set(task) >= {"source", "output", "missing", "candidates"}
        assert next_task(store.conn, "ann", ReviewSettings())["mode"] == "trigger"
    with pytest.raises(ReviewError) as info:
        ReviewSettings(mode="sentence")
    assert info.value.code == "E759" and "trigger, output" in str(info.value)


def test_output_submit_stores_the_note_and_validates_it(tmp_path):
    path = output_store(tmp_path / "run.db", sample=3)
    settings = ReviewSettings(mode="output")
    with RunStore.open(path) as store:
        task = next_task(store.conn, "ann", settings)
        assert [c["slot"] for c in task["candidates"]] == ["c0"]
        cases = [({"c0": "x" * (MAX_NOTE + 1)}, 422, "more than 300"),
                 ({"c0": "looks odd"}, 422, "does not start with a kind"),  # KIND: text in output mode
                 ({"c0": "fluency: odd"}, 422, "frame, meaning, span, label, grammar, correct"),
                 ({"c0": 7}, 422, "must be text"),
                 ({"c9": "span: x"}, 404, "no candidate c9")]
        for notes, status, words in cases:
            with pytest.raises(ReviewError) as info:
                submit(store, "ann", task["task"], {"c0": 30}, settings, notes=notes)
            assert info.value.status == status and words in str(info.value)
        assert store.judgments() == []
        submit(store, "ann", task["task"], {"c0": 30}, settings, notes={"c0": "  Span:  the Goods were lost "})
        [judgment] = store.judgments()
        assert json.loads(judgment.note) == {"review_task": task["task"], "seconds": json.loads(judgment.note)["seconds"],
                                             "mode": "output", "note": "span: the Goods were lost"}
        # a note is optional; an empty one is none
        second = next_task(store.conn, "ann", settings)
        submit(store, "ann", second["task"], {"c0": 90}, settings, notes={"c0": " "})
        assert "note" not in json.loads(store.judgments()[-1].note)
        responses = store.conn.execute("SELECT kind, score FROM review_output_responses ORDER BY score").fetchall()
        assert responses == [("system", 30.0), ("system", 90.0)]
        assert store.conn.execute("SELECT COUNT(*) FROM review_responses").fetchone()[0] == 0


def test_trigger_notes_are_free_text_and_kept_for_the_output_only(tmp_path):
    path = prepared_store(tmp_path / "run.db", sample=1)
    settings = ReviewSettings()
    with RunStore.open(path) as store:
        task = next_task(store.conn, "ann", settings)["task"]
        with pytest.raises(ReviewError) as info:
            submit(store, "ann", task, _all(store.conn, task, 60), settings, notes={"c0": "y" * 301})
        assert info.value.status == 422 and info.value.code == "E769"
        notes = {slot: f"note on {slot}" for slot in _all(store.conn, task, 60)}  # the page cannot tell which is the output
        submit(store, "ann", task, _all(store.conn, task, 60), settings, notes=notes)
        [judgment] = store.judgments()
        items = json.loads(store.conn.execute("SELECT items FROM review_tasks WHERE id = ?", (task,)).fetchone()[0])
        slot = next(i["slot"] for i in items if i["kind"] == SYSTEM)
        note = json.loads(judgment.note)
        assert set(note) == {"review_task", "seconds", "note"} and note["note"] == f"note on {slot}"


def test_export_carries_the_note_and_the_mode(tmp_path):
    path = output_store(tmp_path / "run.db", sample=2)
    with RunStore.open(path) as store:
        # a trigger judgment and a plain one on the same store
        prepare_tasks(store, _pool(), sample=1)
        trigger = next_task(store.conn, "t", ReviewSettings())["task"]
        submit(store, "t", trigger, _all(store.conn, trigger, 70), ReviewSettings())
        store.add_judgment("t01~s0i1", 10, "script", note="grammar: by hand")
        settings = ReviewSettings(mode="output")
        for score, note in ((20, "meaning: forty dollars became forty cents"), (80, None)):
            task = next_task(store.conn, "ann", settings)["task"]
            submit(store, "ann", task, {"c0": score}, settings, notes={"c0": note} if note else None)
        written, _ = export_judgments(store, tmp_path / "all.jsonl")
        only, controls = export_judgments(store, tmp_path / "out.jsonl", controls=tmp_path / "c.jsonl", mode="output")
        stats = agreement(store, mode="output")
    lines = [json.loads(x) for x in (tmp_path / "all.jsonl").read_text().splitlines()]
    assert written == 4 and [line.get("mode") for line in lines] == ["trigger", None, "output", "output"]
    assert lines[0]["task"] == trigger and "note" not in lines[0] and isinstance(lines[0]["seconds"], float)
    assert lines[1]["note"] == "grammar: by hand" and "task" not in lines[1]
    assert lines[2]["note"] == "meaning: forty dollars became forty cents" and lines[2]["score"] == 20.0
    assert "note" not in lines[3] and {"output_id", "score", "annotator", "time", "task", "seconds"} <= set(lines[3])
    assert only == 2 and controls == 0 and (tmp_path / "c.jsonl").read_text() == ""
    assert [json.loads(x)["note"] for x in (tmp_path / "out.jsonl").read_text().splitlines()[:1]] == [
        "meaning: forty dollars became forty cents"]
    assert stats["system"]["judgments"] == 2 and stats["gold-in"]["judgments"] == 0
