"""End to end on the command line: `paraspan augment` → `report` → `review` → `judgments` → `train-filter`.

The run uses the rule-based generator and aligner of tests/pipeline/fakes.py (no models), so the
whole chain takes seconds; the review answers go through the real HTTP app.
"""

from __future__ import annotations

import json
import re

from fastapi.testclient import TestClient

from paraspan.cli.main import main
from paraspan.corpus.formats import write_corpus
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.pipeline.store import RunStore
from paraspan.review.app import create_app
from paraspan.review.tasks import ReviewSettings
from tests.report.store_fixture import write_gold

CORPUS = [
    ("c1", "The farmer sold his tractor.", "Commerce_sell", "sell.v", "sold", [("The farmer", "Seller"), ("his tractor", "Goods")]),
    ("c2", "My aunt bought a new lamp.", "Commerce_buy", "buy.v", "bought", [("My aunt", "Buyer"), ("a new lamp", "Goods")]),
    ("c3", "The train arrived at noon.", "Arriving", "arrive.v", "arrived", [("The train", "Theme"), ("at noon", "Time")]),
    ("c4", "Our neighbour sold old books.", "Commerce_sell", "sell.v", "sold", [("Our neighbour", "Seller"), ("old books", "Goods")]),
    ("c5", "The students bought lunch.", "Commerce_buy", "buy.v", "bought", [("The students", "Buyer"), ("lunch", "Goods")]),
]


def _span(text: str, phrase: str, label: str) -> Span:
    start = text.index(phrase)
    return Span(start, start + len(phrase), label)


def _corpus(path):
    sentences = [Sentence(sid, text, [Structure("frame", frame, _span(text, word, lu), [_span(text, a, fe) for a, fe in args])])
                 for sid, text, frame, lu, word, args in CORPUS]
    write_corpus(sentences, path, "jsonl")
    return path


def _rate(text: str) -> float:
    # a deterministic stand-in for a person: longer sentences please this annotator less
    return 85.0 if len(text) < 32 else 20.0


def test_augment_report_review_judgments_train_filter(tmp_path, capsys):
    store = tmp_path / "run.db"
    assert main(["augment", str(_corpus(tmp_path / "corpus.jsonl")), "-o", str(tmp_path / "out.jsonl"),
                 "--store", str(store), "--generator", "tests.pipeline.fakes:make_generator",
                 "--aligner", "tests.pipeline.fakes:make_aligner", "--iterations", "3", "--no-progress",
                 "--filter", "all"]) == 0
    with RunStore.open(store, readonly=True) as run:
        outputs = run.counts()["outputs"]
    assert outputs >= 10

    report = tmp_path / "report.html"
    assert main(["report", str(store), "-o", str(report)]) == 0
    page = report.read_text(encoding="utf-8")
    rows = json.loads(re.search(r'id="data">(.*?)</script>', page, re.S).group(1))["rows"]
    assert len(rows) == outputs and "no judgments yet" in page

    assert main(["review", str(store), "--prepare-only", "--gold", str(write_gold(tmp_path / "gold.jsonl"))]) == 0
    assert "review tasks" in capsys.readouterr().err
    client = TestClient(create_app(store, ReviewSettings(redundancy=3)))
    for annotator in ("ann1", "ann2", "ann3"):
        while not (task := client.post("/api/next", json={"annotator": annotator}).json()).get("done"):
            scores = {c["slot"]: _rate(c["text"]) for c in task["candidates"]}
            response = client.post("/api/judgments", json={"annotator": annotator, "task": task["task"], "scores": scores})
            assert response.status_code == 201

    judgments = tmp_path / "judgments.jsonl"
    assert main(["judgments", str(store), "-o", str(judgments), "--controls", str(tmp_path / "controls.jsonl")]) == 0
    lines = [json.loads(line) for line in judgments.read_text().splitlines()]
    assert len(lines) == 3 * outputs
    stats = json.loads((tmp_path / "judgments.stats.json").read_text())
    assert stats["fleiss_kappa"] == 1.0 and stats["all_agree"] == 1.0  # three identical annotators
    assert stats["gold-in"]["judgments"] > 0 and stats["gold-out"]["judgments"] > 0
    assert "Fleiss' kappa" in capsys.readouterr().err

    model = tmp_path / "filter.json"
    assert main(["train-filter", str(judgments), "--store", str(store), "-o", str(model), "--epochs", "30",
                 "--folds", "2"]) == 0  # 2 of the outputs are rejected: 2 folds at most
    trained = json.loads(model.read_text())
    assert trained["kind"] == "paraspan-learned-filter" and trained["info"].get("unmatched_judgments", 0) == 0

    again = tmp_path / "report2.html"
    assert main(["report", str(store), "-o", str(again)]) == 0
    page = again.read_text(encoding="utf-8")
    assert 'alt="judgment distribution"' in page and f"{3 * outputs} judgments of {outputs} outputs" in page


def test_report_errors_are_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing.db"), "-o", str(tmp_path / "r.html")]) == 1
    err = capsys.readouterr().err
    assert "no such run store" in err and "Traceback" not in err
    (tmp_path / "junk.db").write_text("not sqlite at all")
    assert main(["judgments", str(tmp_path / "junk.db"), "-o", str(tmp_path / "j.jsonl")]) == 1
    assert "not a paraspan run store" in capsys.readouterr().err
    empty = tmp_path / "empty.db"
    RunStore.create(empty).close()
    assert main(["review", str(empty), "--prepare-only"]) == 1
    assert "nothing to review" in capsys.readouterr().err


def test_review_with_a_framenet_release(tmp_path, capsys):
    """Frame definitions and gold controls from FrameNet 1.5 (train documents only)."""
    from tests.conftest import need_shared
    from tests.report.store_fixture import make_store

    release = need_shared("data", "framenet", "fndata-1.5.tar.gz")
    splits = need_shared("data", "framenet", "fulltext-splits.json")
    store = make_store(tmp_path / "run.db")
    assert main(["review", str(store), "--prepare-only", "--frames", str(release), "--splits", str(splits),
                 "--sample", "4"]) == 0
    err = capsys.readouterr().err
    assert "4 review tasks" in err and "no gold in-frame control" not in err
    with RunStore.open(store, readonly=True) as run:
        tasks = run.conn.execute("SELECT label, definition, items, examples FROM review_tasks").fetchall()
    for label, definition, items, examples in tasks:
        assert len(definition) > 40  # FrameNet's definition of the frame, markup stripped
        assert "<" not in definition
        kinds = {i["kind"]: i for i in json.loads(items)}
        assert set(kinds) == {"system", "gold-in", "gold-out"}
        assert kinds["gold-in"]["label"] == label and kinds["gold-out"]["label"] != label
        assert len(json.loads(examples)) >= 2


def test_review_and_judgments_in_output_mode(tmp_path, capsys):
    """`paraspan review --mode output`: one task per output (`--filter all`: kept or rejected);
    `paraspan judgments` then carries each annotator's note as text."""
    from tests.report.store_fixture import make_store

    store = make_store(tmp_path / "run.db")
    assert main(["review", str(store), "--prepare-only", "--mode", "output", "--filter", "all", "--sample", "5"]) == 0
    assert "5 review tasks in output mode (5 new)" in capsys.readouterr().err
    assert main(["review", str(store), "--prepare-only", "--mode", "output", "--filter", "all"]) == 0
    assert "16 review tasks in output mode (11 new)" in capsys.readouterr().err
    assert main(["review", str(store), "--prepare-only", "--mode", "sentence"]) == 1
    assert "unknown review mode 'sentence'" in capsys.readouterr().err
    with RunStore.open(store, readonly=True) as run:
        assert run.conn.execute("SELECT COUNT(*) FROM review_tasks").fetchone()[0] == 0  # trigger tasks: none

    client = TestClient(create_app(store, ReviewSettings(redundancy=1, mode="output")))
    notes = {}
    while not (task := client.post("/api/next", json={"annotator": "lead"}).json()).get("done"):
        wrong = "markets" in task["output"]["text"]
        note = "frame: markets does not evoke Commerce_sell" if wrong else "correct: fine"
        body = {"annotator": "lead", "task": task["task"], "scores": {"c0": 10 if wrong else 90},
                "notes": {"c0": note}}
        assert client.post("/api/judgments", json=body).status_code == 201
        notes[task["task"]] = note
    assert len(notes) == 16
    out = tmp_path / "judged.jsonl"
    assert main(["judgments", str(store), "-o", str(out), "--mode", "output"]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 16 and all(line["note"] == notes[line["task"]] and line["mode"] == "output" for line in lines)
    assert sum(line["note"].startswith("frame:") for line in lines) == 1
    stats = json.loads((tmp_path / "judged.stats.json").read_text())
    assert stats["system"]["judgments"] == 16 and stats["gold-in"]["judgments"] == 0
    assert main(["judgments", str(store), "-o", str(out), "--mode", "nope"]) == 1
    assert "unknown review mode 'nope'" in capsys.readouterr().err
