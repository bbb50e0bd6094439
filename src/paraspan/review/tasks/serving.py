"""Serving the tasks: annotators and notes checked, the next task assigned, a submission stored."""

from __future__ import annotations

import html
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from paraspan.pipeline.store import RunStore
from paraspan.review.tasks.common import (
    _NOTE,
    MAX_NAME,
    MAX_NOTE,
    MODES,
    NOTE_KINDS,
    OUTPUT,
    SYSTEM,
    TRIGGER,
    Mode,
    ReviewError,
    _now,
    ensure_tables,
    mode_of,
)


def check_annotator(name: str) -> str:
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME or any(ord(c) < 32 for c in name):
        raise ReviewError.from_code("E761", status=422, max_name=MAX_NAME)
    return name


def check_note(slot: str, note: Any, mode: Mode) -> str:
    """``note`` stripped; in output mode its kind lowercased (``Meaning: x`` → ``meaning: x``).

    Raises :class:`ReviewError` (422) for a note that is not text, is longer than
    :data:`MAX_NOTE`, or (output mode) does not start with ``KIND:``.
    """
    if not isinstance(note, str):
        raise ReviewError.from_code("E769", status=422, slot=slot, problem=f"must be text, not {note!r}",
                                    fix="send the note as a string")
    note = note.strip()
    if len(note) > MAX_NOTE:
        raise ReviewError.from_code("E769", status=422, slot=slot,
                                    problem=f"has {len(note)} characters, more than {MAX_NOTE}",
                                    fix="say briefly what was wrong first")
    if note and mode is OUTPUT:
        match = _NOTE.fullmatch(note)
        if match is None:
            raise ReviewError.from_code("E769", status=422, slot=slot, problem=f"does not start with a kind: {note!r}",
                                        fix="write KIND: free text, KIND one of " + ", ".join(NOTE_KINDS))
        note = f"{match.group(1).lower()}: {match.group(2).strip()}".rstrip()
    return note


@dataclass(frozen=True)
class ReviewSettings:
    redundancy: int = 3  # annotators per task (the paper: 3)
    lease: float = 1800.0  # seconds a handed-out task stays reserved for its annotator
    mode: str = TRIGGER.name  # which tasks are handed out: "trigger" or "output"

    def __post_init__(self) -> None:
        mode_of(self.mode)

    @property
    def tables(self) -> Mode:
        return MODES[self.mode]


def _public(row: sqlite3.Row | tuple, progress: dict[str, Any]) -> dict[str, Any]:
    """What the page may see of a task: no output id, no item kinds, no gold ids."""
    task_id, kind, label, definition, question, examples, items = row
    return {
        "task": task_id, "mode": TRIGGER.name, "kind": kind, "label": label, "definition": definition,
        "question": question,
        "examples": [e["html"] for e in json.loads(examples)],
        "candidates": [{"slot": i["slot"], "text": i["text"], "start": i["start"], "end": i["end"],
                        "html": html.escape(i["text"][:i["start"]]) + "<mark class=\"anchor\">"
                        + html.escape(i["text"][i["start"]:i["end"]]) + "</mark>" + html.escape(i["text"][i["end"]:])}
                       for i in json.loads(items)],
        "progress": progress,
    }


def _public_output(row: sqlite3.Row | tuple, progress: dict[str, Any]) -> dict[str, Any]:
    """What the page sees of an output-mode task: source and output with their spans, no ids."""
    task_id, kind, label, definition, question, view, items = row
    shown = json.loads(view)
    return {
        "task": task_id, "mode": OUTPUT.name, "kind": kind, "label": label, "definition": definition,
        "question": question, "source": shown["source"], "output": shown["output"], "missing": shown["missing"],
        "candidates": [{"slot": i["slot"]} for i in json.loads(items)],
        "note_kinds": list(NOTE_KINDS), "max_note": MAX_NOTE,
        "progress": progress,
    }


def progress(conn: sqlite3.Connection, annotator: str | None, settings: ReviewSettings) -> dict[str, Any]:
    m = settings.tables
    total = int(conn.execute(f"SELECT COUNT(*) FROM {m.tasks}").fetchone()[0])
    per_task = dict(conn.execute(f"SELECT task_id, COUNT(DISTINCT annotator) FROM {m.responses} GROUP BY task_id"))
    out: dict[str, Any] = {
        "tasks": total,
        "tasks_started": len(per_task),
        "tasks_complete": sum(1 for n in per_task.values() if n >= settings.redundancy),
        "redundancy": settings.redundancy,
        "ratings": sum(per_task.values()),
        "target": total * settings.redundancy,
        "annotators": int(conn.execute(f"SELECT COUNT(DISTINCT annotator) FROM {m.responses}").fetchone()[0]),
    }
    if annotator:
        mine = int(conn.execute(f"SELECT COUNT(DISTINCT task_id) FROM {m.responses} WHERE annotator = ?",
                                (annotator,)).fetchone()[0])
        held = int(conn.execute(f"SELECT COUNT(*) FROM {m.assignments} WHERE annotator = ?",
                                (annotator,)).fetchone()[0])
        open_for_me = int(conn.execute(
            f"SELECT COUNT(*) FROM {m.tasks} t WHERE NOT EXISTS (SELECT 1 FROM {m.assignments} a "
            f"WHERE a.task_id = t.id AND a.annotator = ?) AND (SELECT COUNT(DISTINCT r.annotator) FROM "
            f"{m.responses} r WHERE r.task_id = t.id) < ?", (annotator, settings.redundancy)).fetchone()[0])
        out["done_by_you"] = mine
        out["left_for_you"] = open_for_me + (held - mine)
    return out


def next_task(conn: sqlite3.Connection, annotator: str, settings: ReviewSettings) -> dict[str, Any] | None:
    """The task to show ``annotator`` now (reserving it), or None when nothing is left for them."""
    annotator = check_annotator(annotator)
    ensure_tables(conn)
    m = settings.tables
    columns = f"id, kind, label, definition, question, {m.shown}, items"
    now = time.time()
    conn.execute("BEGIN IMMEDIATE")  # one assigner at a time: two annotators never race for one task
    try:
        row = conn.execute(
            f"SELECT {columns} FROM {m.tasks} WHERE id = (SELECT a.task_id FROM {m.assignments} a "
            f"WHERE a.annotator = ? AND NOT EXISTS (SELECT 1 FROM {m.responses} r WHERE r.task_id = a.task_id "
            "AND r.annotator = a.annotator) ORDER BY a.assigned LIMIT 1)", (annotator,)).fetchone()
        if row is not None:  # their unfinished task (a reload, a second tab): the same one
            conn.execute(f"UPDATE {m.assignments} SET assigned = ? WHERE task_id = ? AND annotator = ?",
                         (now, row[0], annotator))
        else:
            row = conn.execute(
                f"""SELECT {columns} FROM (
                      SELECT t.*,
                        (SELECT COUNT(DISTINCT r.annotator) FROM {m.responses} r WHERE r.task_id = t.id) AS done,
                        (SELECT COUNT(*) FROM {m.assignments} a WHERE a.task_id = t.id AND a.assigned > ?
                           AND NOT EXISTS (SELECT 1 FROM {m.responses} r WHERE r.task_id = a.task_id
                                           AND r.annotator = a.annotator)) AS active
                      FROM {m.tasks} t
                      WHERE NOT EXISTS (SELECT 1 FROM {m.assignments} a WHERE a.task_id = t.id
                                        AND a.annotator = ?))
                    WHERE done < ? ORDER BY done + active, active, rank, id LIMIT 1""",
                (now - settings.lease, annotator, settings.redundancy)).fetchone()
            if row is not None:
                conn.execute(f"INSERT INTO {m.assignments} VALUES (?, ?, ?)", (row[0], annotator, now))
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    if row is None:
        return None
    public = _public_output if m is OUTPUT else _public
    return public(row, progress(conn, annotator, settings))


def submit(store: RunStore, annotator: str, task_id: int, scores: dict[str, float],
           settings: ReviewSettings, notes: dict[str, str] | None = None) -> dict[str, Any]:
    """Record one annotator's ratings of one task's candidates, atomically; returns their progress.

    ``notes`` (optional, per candidate) say why; the system output's note goes into its judgment's
    JSON note (``"note"``), a control's is not kept. In output mode a note is ``KIND: free text``.

    Raises :class:`ReviewError` (with an HTTP status) for an unknown task (404) or candidate (404),
    a missing candidate, a score outside 0–100 or a bad note (422), a task not handed to this
    annotator (409) and a second submission (409). Nothing is written unless everything is valid.
    """
    annotator = check_annotator(annotator)
    conn = store.conn
    ensure_tables(conn)
    m = settings.tables
    for slot, score in scores.items():
        if not isinstance(score, (int, float)) or isinstance(score, bool) or not 0 <= float(score) <= 100:
            raise ReviewError.from_code("E762", status=422, slot=slot, score=score)
    checked = {slot: check_note(slot, note, m) for slot, note in (notes or {}).items()}
    conn.execute("BEGIN IMMEDIATE")
    try:
        row = conn.execute(f"SELECT output_id, items FROM {m.tasks} WHERE id = ?", (task_id,)).fetchone()
        if row is None:
            raise ReviewError.from_code("E763", status=404, task_id=task_id)
        items = {i["slot"]: i for i in json.loads(row[1])}
        unknown = sorted((set(scores) | set(checked)) - set(items))
        if unknown:
            raise ReviewError.from_code("E764", status=404, task_id=task_id, choices=", ".join(unknown),
                                        choices2=", ".join(sorted(items)))
        missing = sorted(set(items) - set(scores))
        if missing:
            raise ReviewError.from_code("E765", status=422, choices=", ".join(missing), task_id=task_id)
        assigned = conn.execute(f"SELECT assigned FROM {m.assignments} WHERE task_id = ? AND annotator = ?",
                                (task_id, annotator)).fetchone()
        if assigned is None:
            raise ReviewError.from_code("E766", status=409, task_id=task_id, annotator=annotator)
        if conn.execute(f"SELECT 1 FROM {m.responses} WHERE task_id = ? AND annotator = ? LIMIT 1",
                        (task_id, annotator)).fetchone():
            raise ReviewError.from_code("E767", status=409, annotator=annotator, task_id=task_id)
        seconds = round(time.time() - float(assigned[0]), 1)
        stamp = _now()
        for slot, item in items.items():
            score = float(scores[slot])
            judgment_id = None
            if item["kind"] == SYSTEM:
                note: dict[str, Any] = {"review_task": task_id, "seconds": seconds}
                if m is not TRIGGER:
                    note["mode"] = m.name
                if checked.get(slot):
                    note["note"] = checked[slot]
                judgment_id = store.add_judgment(item["ref"], score, annotator,
                                                 note=json.dumps(note, ensure_ascii=False))
            conn.execute(f"INSERT INTO {m.responses} VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                         (task_id, annotator, item["ref"], item["kind"], score, stamp, seconds, judgment_id))
        conn.execute("COMMIT")
    except sqlite3.IntegrityError:  # a concurrent double submission that passed the check above
        conn.execute("ROLLBACK")
        raise ReviewError.from_code("E767", status=409, annotator=annotator, task_id=task_id) from None
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return progress(conn, annotator, settings)
