"""What both review modes share: the modes and their tables, the errors, seeded ranks and the writing of tasks."""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from paraspan.errors import ParaspanError, format_code
from paraspan.pipeline.store import RunStore

SYSTEM, GOLD_IN, GOLD_OUT = "system", "gold-in", "gold-out"
SLOTS = ("c0", "c1", "c2")
MAX_NAME = 64
MAX_NOTE = 300  # characters of an annotator's note
#: What was wrong first (output mode notes are ``KIND: free text``); ``label``: an entity type, role or frame
#: element named wrong on a right span; ``correct`` when nothing was.
NOTE_KINDS = ("frame", "meaning", "span", "label", "grammar", "correct")
_NOTE = re.compile(r"\s*(" + "|".join(NOTE_KINDS) + r")\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)

# The same three tables per mode; {shown} is the column with what the page shows besides the candidates.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS {tasks} (
    id INTEGER PRIMARY KEY, output_id TEXT NOT NULL UNIQUE, rank INTEGER NOT NULL, kind TEXT NOT NULL,
    label TEXT NOT NULL, definition TEXT, question TEXT NOT NULL, {shown} TEXT NOT NULL, items TEXT NOT NULL,
    created TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS {tasks}_rank ON {tasks}(rank);
CREATE TABLE IF NOT EXISTS {assignments} (
    task_id INTEGER NOT NULL, annotator TEXT NOT NULL, assigned REAL NOT NULL, PRIMARY KEY (task_id, annotator));
CREATE TABLE IF NOT EXISTS {responses} (
    task_id INTEGER NOT NULL, annotator TEXT NOT NULL, item_id TEXT NOT NULL, kind TEXT NOT NULL,
    score REAL NOT NULL CHECK (score >= 0 AND score <= 100), time TEXT NOT NULL, seconds REAL,
    judgment_id INTEGER, PRIMARY KEY (task_id, annotator, item_id));
CREATE INDEX IF NOT EXISTS {responses}_annotator ON {responses}(annotator);
"""


@dataclass(frozen=True)
class Mode:
    """A review mode and the tables that hold its tasks, assignments and responses."""

    name: str
    tasks: str
    assignments: str
    responses: str
    shown: str  # the task column with what the page shows besides the candidates (JSON)


TRIGGER = Mode("trigger", "review_tasks", "review_assignments", "review_responses", "examples")
OUTPUT = Mode("output", "review_output_tasks", "review_output_assignments", "review_output_responses", "view")
MODES = {m.name: m for m in (TRIGGER, OUTPUT)}

QUESTIONS = {
    "frame": "How well does the highlighted phrase evoke the frame {label} in its sentence?",
    "srl": "How well does the highlighted word express the predicate sense {label} in its sentence?",
    "entity": "How well is the highlighted phrase a mention of a {label} entity in its sentence?",
    "event": "How well does the highlighted phrase trigger an event of type {label} in its sentence?",
}


class ReviewError(ParaspanError):
    """A review request that cannot be served; ``status`` is the HTTP status to answer with."""

    def __init__(self, message: str, hint: str = "", status: int = 400, code: str = "E760") -> None:
        super().__init__(message, hint, code=code)
        self.status = status
        self.message = message

    @classmethod
    def from_code(cls, code: str, *, status: int = 400, **fields: Any) -> ReviewError:  # type: ignore[override]
        """The catalogue's ``code`` answered with HTTP ``status``."""
        message, hint = format_code(code, **fields)
        return cls(message, hint, status=status, code=code)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def mode_of(name: str) -> Mode:
    """The review mode called ``name`` (``trigger`` or ``output``)."""
    if name not in MODES:
        raise ReviewError.from_code("E759", mode=name, choices=", ".join(MODES))
    return MODES[name]


def ensure_tables(conn: sqlite3.Connection) -> None:
    for mode in MODES.values():
        schema = _SCHEMA.format(tasks=mode.tasks, assignments=mode.assignments, responses=mode.responses,
                                shown=mode.shown)
        for statement in schema.strip().split(";"):
            if statement.strip():
                conn.execute(statement)



def _rank(seed: int, key: str) -> int:
    return int(hashlib.sha256(f"{seed}|{key}".encode()).hexdigest()[:12], 16)



@dataclass
class PrepareResult:
    tasks: int = 0  # new tasks written
    existing: int = 0  # outputs that already had a task
    skipped: int = 0  # outputs without an anchor to highlight
    no_in_frame: int = 0  # tasks without a gold in-frame control
    same_lu: int = 0  # tasks whose in-frame control has the output's LU (no other LU in the pool)
    no_out_frame: int = 0




def _chosen(store: RunStore, filter: str | None, sample: int | None, seed: int) -> list[Any]:
    """The outputs ``filter`` kept (all without one), or a seeded ``sample`` of them."""
    records = list(store.iter_outputs(filter))
    if sample is not None and sample < len(records):
        records = sorted(records, key=lambda r: _rank(seed, r.id))[:sample]
    return records


def _insert(conn: sqlite3.Connection, mode: Mode, rows: list[tuple[Any, ...]]) -> None:
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(f"INSERT OR IGNORE INTO {mode.tasks} (output_id, rank, kind, label, definition, question, "
                     f"{mode.shown}, items, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("COMMIT")


def write_tasks(store: RunStore, mode: Mode, *, filter: str | None, sample: int | None, seed: int,
                build: Callable[[Any, PrepareResult], dict[str, Any] | None]) -> PrepareResult:
    """Write a ``mode`` task for every output ``filter`` kept (a seeded ``sample`` of them) that has none.

    ``build(record, result)`` makes an output's task, or returns None for one it skips (counting why in
    ``result``). Idempotent: outputs that already have a task keep it (answers stay attached to what was shown).
    """
    conn = store.conn
    ensure_tables(conn)
    existing = {r[0] for r in conn.execute(f"SELECT output_id FROM {mode.tasks}")}
    result = PrepareResult()
    rows = []
    for record in _chosen(store, filter, sample, seed):
        if record.id in existing:
            result.existing += 1
            continue
        task = build(record, result)
        if task is None:
            continue
        result.tasks += 1
        rows.append((task["output_id"], task["rank"], task["kind"], task["label"], task["definition"],
                     task["question"], json.dumps(task[mode.shown], ensure_ascii=False),
                     json.dumps(task["items"], ensure_ascii=False), _now()))
    _insert(conn, mode, rows)
    return result
