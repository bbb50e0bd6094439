"""The three aligners end to end on hand-written pairs (the packaged MiniLM, no shared data)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from paraspan.align.base import AlignTask, aligners, get_aligner
from paraspan.cli.main import main
from paraspan.errors import ParaspanError

SRC = "I bought a new car yesterday ."
TGT = "Yesterday I purchased a brand new automobile ."


def span(text: str, words: str) -> tuple[int, int]:
    start = text.index(words)
    return start, start + len(words)


@pytest.fixture(scope="module")
def discriminative():
    return get_aligner("discriminative", threads=2)


@pytest.fixture(scope="module")
def argmax():
    return get_aligner("argmax", threads=2)


def test_registry_lists_the_aligners() -> None:
    assert aligners().names() == ["argmax", "discriminative", "ibm2"]
    with pytest.raises(ParaspanError, match="unknown aligner 'nope'"):
        get_aligner("nope")


def test_shipped_head_aligns_obvious_cases(discriminative) -> None:
    assert discriminative.config.info.get("best_epoch")  # it is a trained head, not a placeholder
    cases = [
        (SRC, TGT, "bought", "purchased"),
        (SRC, TGT, "car", "automobile"),
        (SRC, TGT, "yesterday", "Yesterday"),
        ("The committee rejected the proposal on Monday .", "On Monday , the panel refused the plan .",
         "rejected", "refused"),
        ("The committee rejected the proposal on Monday .", "On Monday , the panel refused the plan .",
         "committee", "panel"),
        ("He quickly ran to the station .", "He hurried to the station .", "quickly ran", "hurried"),
        ("She is very happy with the results .", "She is delighted with the outcome .", "very happy", "delighted"),
    ]
    tasks = [AlignTask(str(i), s, t, span(s, a)) for i, (s, t, a, _) in enumerate(cases)]
    results = discriminative.align(tasks)
    got = [t.target[r.pred[0]:r.pred[1]] if r.pred else None for t, r in zip(tasks, results, strict=True)]
    assert got == [b for *_, b in cases]
    assert all(0.0 <= r.score <= 1.0 for r in results)


def test_identical_sentences_map_spans_to_themselves(discriminative, argmax) -> None:
    text = "The old bridge over the river was closed for repairs last week ."
    spans = [span(text, w) for w in ("old bridge", "river", "closed", "last week")]
    tasks = [AlignTask(str(i), text, text, s) for i, s in enumerate(spans)]
    for aligner in (discriminative, argmax, get_aligner("ibm2")):
        assert [r.pred for r in aligner.align(tasks)] == spans, aligner.name


def test_empty_target_widened_span_and_long_sentences(discriminative, argmax) -> None:
    filler = " ".join(f"word{i}" for i in range(400))
    long_src = f"{filler} the senator bought a house . {filler}"
    long_tgt = f"{filler} the senator purchased a home . {filler}"
    tasks = [
        AlignTask("empty", SRC, "", span(SRC, "car")),
        AlignTask("cut", SRC, TGT, (3, 8)),  # "ought" -> widened to "bought"
        AlignTask("long", long_src, long_tgt, span(long_src, "bought")),
        AlignTask("long-edge", long_src, long_tgt, (0, 5)),  # "word0", far from the middle
    ]
    for aligner in (discriminative, argmax):
        results = aligner.align(tasks)
        assert results[0].pred is None and results[0].note == "empty target"
        assert results[1].widened and results[1].source_span == (2, 8)
        assert results[1].pred == span(TGT, "purchased")
        assert long_tgt[results[2].pred[0]:results[2].pred[1]] == "purchased", aligner.name
        assert "window" in results[2].note
        assert len(results) == 4


def test_cli_align_and_evaluate(tmp_path, capsys) -> None:
    tasks = tmp_path / "tasks.jsonl"
    rows = [{"id": 1, "source": SRC, "target": TGT, "source_span": list(span(SRC, "bought")),
             "gold": list(span(TGT, "purchased")), "meta": "kept"},
            {"id": 2, "source": SRC, "target": TGT, "source_span": [3, 8], "gold": None}]
    tasks.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    for name in ("discriminative", "ibm2"):
        out = tmp_path / f"{name}.jsonl"
        assert main(["align", str(tasks), "-o", str(out), "--aligner", name, "--no-progress"]) == 0
        preds = [json.loads(x) for x in out.read_text().splitlines()]
        assert [p["id"] for p in preds] == [1, 2] and preds[0]["meta"] == "kept"
        assert preds[1]["aligned_source_span"] == [2, 8] and "widened" in preds[1]["note"]
        assert all("pred" in p and "score" in p for p in preds)
    capsys.readouterr()
    assert main(["evaluate", "alignment", str(tmp_path / "discriminative.jsonl"), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["all_tasks"] == 2 and scores["all_exact_recall"] == 100.0


def test_cli_bad_input_file_line(tmp_path) -> None:
    tasks = tmp_path / "bad.jsonl"
    tasks.write_text(json.dumps({"id": 1, "source": SRC, "target": TGT, "source_span": [0, 1]}) + "\n"
                     + json.dumps({"id": 2, "source": SRC, "target": TGT, "source_span": [0, 99]}) + "\n")
    proc = subprocess.run([sys.executable, "-m", "paraspan.cli.main", "align", str(tasks), "-o",
                           str(tmp_path / "o.jsonl"), "--aligner", "ibm2"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{tasks}:2: source_span [0, 99] is outside the source (length {len(SRC)})" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "o.jsonl").exists()
    assert main(["align", str(tasks), "-o", str(tmp_path / "o.jsonl"), "--aligner", "nope"]) == 1
    assert main(["align", str(tasks), "-o", str(tmp_path / "o.jsonl"), "--bitext", str(tasks)]) == 1


def test_train_aligner_cli_on_a_tiny_set(tmp_path, capsys) -> None:
    pairs = [("I bought a new car yesterday .", "Yesterday I purchased a new automobile ."),
             ("The committee rejected the proposal .", "The panel turned down the plan ."),
             ("She is very happy with the results .", "She is delighted with the outcome ."),
             ("The old bridge was closed for repairs .", "The aged bridge was shut for repair work ."),
             ("He quickly ran to the station .", "He hurried to the station ."),
             ("They started the meeting at noon .", "The meeting began at midday .")]
    rows = []
    for i, (s, t) in enumerate(pairs * 3):
        for j, (w, g) in enumerate(zip(s.split()[:3], t.split()[:3], strict=True)):
            rows.append({"id": f"{i}-{j}", "source": s, "target": t, "source_span": list(span(s, w)),
                         "gold": list(span(t, g)) if j != 2 else None})
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    head = tmp_path / "head.npz"
    assert main(["train-aligner", str(train), "--dev", str(train), "-o", str(head), "--epochs", "2",
                 "--holdout", "0.3", "--hidden", "16", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["config"]["hidden"] == 16 and len(report["history"]) == 2
    assert str(train) in report["dev"]
    aligner = get_aligner("discriminative", head=head)
    assert len(aligner.align([AlignTask("x", SRC, TGT, span(SRC, "car"))])) == 1
