"""Reading span tasks: validation with FILE:LINE, and the prediction records."""

from __future__ import annotations

import json

import pytest

from paraspan.align.base import AlignResult, AlignTask
from paraspan.align.tasks import prediction_record, read_task_lines, read_tasks
from paraspan.errors import CorpusError

GOOD: dict = {"id": "t1", "source": "I bought a car .", "target": "I purchased an auto .", "source_span": [2, 8],
        "gold": [2, 11]}


def write(tmp_path, *lines: object) -> str:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return str(path)


def test_reads_tasks_and_keeps_extra_keys(tmp_path) -> None:
    path = write(tmp_path, GOOD, dict(GOOD, id=7, gold=None, meta={"x": 1}))
    tasks = read_tasks(path)
    assert tasks[0] == AlignTask("t1", GOOD["source"], GOOD["target"], (2, 8), (2, 11))
    assert tasks[1].id == "7" and tasks[1].gold is None and tasks[1].extra == {"meta": {"x": 1}}


@pytest.mark.parametrize(("bad", "code", "text"), [
    ("{oops", "E600", "malformed JSON"),
    ("[1, 2]", "E601", "expected a JSON object"),
    ({"id": "x", "source": "a b"}, "E602", "missing key(s): target, source_span"),
    (dict(GOOD, source=3), "E603", "'source' must be a string"),
    (dict(GOOD, source="", source_span=[0, 1]), "E605", "source sentence is empty"),
    (dict(GOOD, source_span=[10, 99]), "E604", "outside the source (length 16)"),
    (dict(GOOD, source_span=[4, 4]), "E604", "is empty"),
    (dict(GOOD, source_span=[1, "x"]), "E604", "two integers"),
    (dict(GOOD, source_span=[1, 2]), "E606", "covers only whitespace"),
    (dict(GOOD, gold=[0, 500]), "E607", "outside the target"),
])
def test_bad_lines_name_file_and_line(tmp_path, bad, code, text) -> None:
    path = write(tmp_path, GOOD, bad)
    with pytest.raises(CorpusError) as info:
        read_tasks(path)
    assert info.value.code == code
    assert f"{path}:2: " in str(info.value) and text in str(info.value)


def test_all_problems_reported_at_once(tmp_path) -> None:
    path = write(tmp_path, "{oops", GOOD, dict(GOOD, source_span=[10, 99]))
    with pytest.raises(CorpusError) as info:
        read_task_lines(path)
    assert [(p.line, p.code) for p in info.value.problems] == [(1, "E600"), (3, "E604")]


def test_empty_target_is_allowed(tmp_path) -> None:
    assert read_tasks(write(tmp_path, dict(GOOD, target="", gold=None)))[0].target == ""


def test_missing_file() -> None:
    with pytest.raises(CorpusError, match="no such file"):
        read_tasks("/nonexistent/tasks.jsonl")


def test_prediction_record_notes_widening() -> None:
    rec = prediction_record(GOOD, AlignResult((2, 11), 0.91234567, (2, 8)))
    assert rec["pred"] == [2, 11] and rec["score"] == 0.912346 and "note" not in rec
    rec = prediction_record(GOOD, AlignResult(None, 0.1, (2, 8), widened=True))
    assert rec["pred"] is None and rec["aligned_source_span"] == [2, 8] and "widened" in rec["note"]
