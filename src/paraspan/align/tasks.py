"""Span-alignment task files (JSONL): read with validation, write predictions.

Input, one task a line (character offsets, end exclusive)::

    {"id": "7", "source": "I bought a car .", "target": "I purchased an auto .",
     "source_span": [2, 8], "gold": [2, 11]}        # "gold" optional; null = no counterpart

Output: the same object with ``"pred": [s, e] | null`` and ``"score"`` added, plus
``"aligned_source_span"`` when the source span cut a token and was widened, and ``"note"``
when something else about the task is worth knowing (a sentence cut to a window, ...).

Every problem raises :class:`~paraspan.errors.CorpusError` with the file and line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraspan.align.base import AlignResult, AlignTask
from paraspan.corpus.jsonl import atomic_write, iter_lines, parse_json
from paraspan.errors import CorpusError, ProblemList

REQUIRED = ("id", "source", "target", "source_span")
FORMAT_HINT = ('each line must be {"id", "source", "target", "source_span": [start, end], '
               '"gold": [start, end] | null} with character offsets')


@dataclass
class TaskLine:
    """A task with the JSON object it came from (kept whole for the output) and its line."""

    task: AlignTask
    data: dict[str, Any]
    line: int


def _span(value: Any, what: str, text: str, side: str, file: str, line: int, code: str) -> tuple[int, int]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise CorpusError.from_code(code, file=file, line=line, fix=FORMAT_HINT,
                                    problem=f"{what} must be [start, end] (two integers), got {json.dumps(value)[:60]}")
    start, end = int(value[0]), int(value[1])
    if not (0 <= start < end <= len(text)):
        problem = "is empty" if start >= end else f"is outside the {side} (length {len(text)})"
        raise CorpusError.from_code(code, file=file, line=line, problem=f"{what} [{start}, {end}] {problem}",
                                    fix=f"offsets are characters into the {side}, end exclusive: 0 <= start < end <= "
                                        f"{len(text)}")
    return start, end


def parse_task(data: Any, *, file: str, line: int) -> AlignTask:
    """Validate one decoded JSON value and build its task (extra keys are kept in ``extra``)."""
    if not isinstance(data, dict):
        raise CorpusError.from_code("E601", file=file, line=line, type_name=type(data).__name__)
    missing = [k for k in REQUIRED if k not in data]
    if missing:
        raise CorpusError.from_code("E602", file=file, line=line, choices=", ".join(missing))
    for key in ("source", "target"):
        if not isinstance(data[key], str):
            raise CorpusError.from_code("E603", file=file, line=line,
                                        problem=f"{key!r} must be a string, got {type(data[key]).__name__}")
    if not isinstance(data["id"], (str, int)) or isinstance(data["id"], bool):
        raise CorpusError.from_code("E603", file=file, line=line, problem="'id' must be a string or an integer")
    source, target = data["source"], data["target"]
    if not source.strip():
        raise CorpusError.from_code("E605", file=file, line=line)
    span = _span(data["source_span"], "source_span", source, "source", file, line, "E604")
    if not source[span[0]:span[1]].strip():
        raise CorpusError.from_code("E606", file=file, line=line, span=list(span))
    gold = data.get("gold")
    if gold is not None:
        gold = _span(gold, "gold", target, "target", file, line, "E607")
    extra = {k: v for k, v in data.items() if k not in (*REQUIRED, "gold")}
    return AlignTask(str(data["id"]), source, target, span, gold, extra)


def iter_task_lines(path: str | Path) -> Iterator[TaskLine]:
    """Stream the tasks of a JSONL file ('-' = stdin); the first bad line raises (FILE:LINE)."""
    name = str(path)
    for number, raw in iter_lines(path):
        yield _task_line(raw, name, number)


def _task_line(raw: str, file: str, number: int) -> TaskLine:
    data = parse_json(raw, file=file, line=number, code="E600")
    return TaskLine(parse_task(data, file=file, line=number), data, number)


def read_task_lines(path: str | Path, max_problems: int = 100) -> list[TaskLine]:
    """All tasks of a file, every line checked before any is used: all problems raise at once."""
    name = str(path)
    problems = ProblemList()
    out: list[TaskLine] = []
    for number, raw in iter_lines(path):
        try:
            out.append(_task_line(raw, name, number))
        except CorpusError as exc:
            problems.problems.extend(exc.problems)
            if len(problems.problems) >= max_problems:
                break
    problems.raise_if_any()
    return out


def read_tasks(path: str | Path) -> list[AlignTask]:
    """All tasks of a file, validated (see :func:`read_task_lines`)."""
    return [t.task for t in read_task_lines(path)]


def prediction_record(line: TaskLine | dict[str, Any], result: AlignResult) -> dict[str, Any]:
    """The output object: the input's keys, then ``pred`` and ``score`` (and notes when any)."""
    data = dict(line.data if isinstance(line, TaskLine) else line)
    data["pred"] = list(result.pred) if result.pred is not None else None
    data["score"] = round(float(result.score), 6)
    notes = []
    if result.widened:
        data["aligned_source_span"] = list(result.source_span)
        notes.append("source span widened to token boundaries")
    if result.note:
        notes.append(result.note)
    if notes:
        data["note"] = "; ".join(notes)
    return data


def write_predictions(path: str | Path, lines: Sequence[TaskLine], results: Sequence[AlignResult]) -> int:
    """Write one prediction per task atomically ('-' = stdout); return how many."""
    if len(lines) != len(results):
        raise ValueError("one result per task is needed")
    records = (json.dumps(prediction_record(t, r), ensure_ascii=False) + "\n"
               for t, r in zip(lines, results, strict=True))
    if str(path) == "-":
        import sys

        for text in records:
            sys.stdout.write(text)
        return len(lines)
    with atomic_write(path) as handle:
        for text in records:
            handle.write(text)
    return len(lines)
