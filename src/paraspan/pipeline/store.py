"""The run store: one SQLite file that holds an augmentation run, so that it can be resumed,
exported, filtered again, reported on and reviewed.

SQLite is embedded (no server), opened in WAL mode (readers — ``paraspan report``, the review
app — never block the writer), with a busy timeout so that several processes may share it.

Tables (schema version :data:`SCHEMA_VERSION`; a store of another version is refused with a
clear error, never silently reused):

``schema_version(version INTEGER, paraspan TEXT, created TEXT)``
    one row: the schema this file was written with, and the paraspan version that created it.
``meta(key TEXT PRIMARY KEY, value TEXT)``
    run settings as JSON (``config``: iterations, models, seed, filters …), used to refuse a
    ``--resume`` with different settings; ``input_fingerprint`` (``{"sha256", "inputs"}``: a
    digest of the input ids and texts in corpus order, :class:`InputFingerprint`), used to refuse a
    ``--resume`` with another corpus.
``inputs(id TEXT PRIMARY KEY, position INTEGER UNIQUE, json TEXT, status TEXT, structures INTEGER,
note TEXT, worker TEXT, finished REAL)``
    every input sentence (``json`` = its corpus-schema line) in corpus order. ``status`` is
    ``pending``, ``done`` (processed) or ``skipped`` (no structure to augment, or more than
    ``max_structures``: counted, passed through, the reason in ``note``). An input turns ``done``
    in the same transaction that writes all its candidates, outputs and decisions: the unit of
    work commits atomically.
``candidates(input_id, structure, iteration, candidate, text, forward, backward, score,
anchor_start, anchor_end, anchor_score, placed, chosen, meta)``
    every paraphrase candidate that was aligned. Key ``(input_id, structure, iteration,
    candidate)``; ``candidate`` is the paraphraser's rank (0 = best score); ``placed`` = all
    required spans were placed; ``chosen`` = it became the output.
``outputs(id TEXT PRIMARY KEY, input_id, structure, iteration, candidate, text, json, forward,
backward, score, aligner_score, min_span_score, frame, anchor_text, anchor_lemma)``
    one row per augmented sentence (``json`` = its corpus-schema line, with ``source_id`` and
    ``provenance``); unique on ``(input_id, structure, iteration)``. ``aligner_score`` is the
    anchor's, ``min_span_score`` the lowest over anchor and arguments.
``decisions(output_id, filter, keep, reason, score)``
    each filter's decision on each output; key ``(output_id, filter)``.
``judgments(id INTEGER PRIMARY KEY, output_id, annotator, score, time, note)``
    human judgments (0–100, ≥ 50 = accept, as in Culkin et al. 2021), written by the review app
    or imported; ``paraspan train-filter`` can learn from them.
``runs(id INTEGER PRIMARY KEY, started, finished, argv, status)``
    one row per invocation (a resumed run adds a row).
``work_stats(input_id TEXT PRIMARY KEY, json TEXT)``
    what one input cost: generator calls, sampled and scored tokens, seconds (wall and CPU) in
    generation, projection and filtering (:attr:`WorkResult.stats`). Added without a version
    change: a store written before it gains the empty table when opened for writing.

Every insert is idempotent (``INSERT OR IGNORE`` / ``OR REPLACE`` on the keys above), so a
unit of work replayed after a crash cannot duplicate anything.

The read API (:meth:`RunStore.iter_outputs`, :meth:`RunStore.source`,
:meth:`RunStore.add_judgment`, :meth:`RunStore.judgments`, :meth:`RunStore.counts`) is
stable: the report command and the review app are built on it.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, paraspan TEXT, created TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS inputs (
    id TEXT PRIMARY KEY, position INTEGER NOT NULL UNIQUE, json TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending', structures INTEGER NOT NULL DEFAULT 0,
    note TEXT, worker TEXT, finished REAL);
CREATE INDEX IF NOT EXISTS inputs_status ON inputs(status, position);
CREATE TABLE IF NOT EXISTS candidates (
    input_id TEXT NOT NULL, structure INTEGER NOT NULL, iteration INTEGER NOT NULL, candidate INTEGER NOT NULL,
    text TEXT NOT NULL, forward REAL, backward REAL, score REAL,
    anchor_start INTEGER, anchor_end INTEGER, anchor_score REAL, placed INTEGER NOT NULL DEFAULT 0,
    chosen INTEGER NOT NULL DEFAULT 0, meta TEXT,
    PRIMARY KEY (input_id, structure, iteration, candidate));
CREATE TABLE IF NOT EXISTS outputs (
    id TEXT PRIMARY KEY, input_id TEXT NOT NULL, structure INTEGER NOT NULL, iteration INTEGER NOT NULL,
    candidate INTEGER NOT NULL, text TEXT NOT NULL, json TEXT NOT NULL,
    forward REAL, backward REAL, score REAL, aligner_score REAL, min_span_score REAL,
    frame TEXT, anchor_text TEXT, anchor_lemma TEXT,
    UNIQUE (input_id, structure, iteration));
CREATE INDEX IF NOT EXISTS outputs_input ON outputs(input_id);
CREATE TABLE IF NOT EXISTS decisions (
    output_id TEXT NOT NULL, filter TEXT NOT NULL, keep INTEGER NOT NULL, reason TEXT, score REAL,
    PRIMARY KEY (output_id, filter));
CREATE TABLE IF NOT EXISTS judgments (
    id INTEGER PRIMARY KEY AUTOINCREMENT, output_id TEXT NOT NULL, annotator TEXT NOT NULL,
    score REAL NOT NULL CHECK (score >= 0 AND score <= 100), time TEXT NOT NULL, note TEXT);
CREATE INDEX IF NOT EXISTS judgments_output ON judgments(output_id);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, started TEXT NOT NULL, finished TEXT, argv TEXT, status TEXT);
CREATE TABLE IF NOT EXISTS work_stats (input_id TEXT PRIMARY KEY, json TEXT NOT NULL);
"""


class StoreError(ParaspanError):
    """A run store is missing, of another version, or does not match the run."""


#: The first bytes of every SQLite database file.
_SQLITE_HEADER = b"SQLite format 3\x00"


def is_sqlite(path: Path) -> bool:
    """Whether ``path`` is a SQLite database file (an empty file counts: SQLite makes one a database)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(_SQLITE_HEADER))
    except OSError:
        return False
    return head in (b"", _SQLITE_HEADER)


class InputFingerprint:
    """A digest of input sentences (ids and texts, in order), built one sentence at a time."""

    def __init__(self) -> None:
        import hashlib

        self._hash = hashlib.sha256()
        self.count = 0

    def add(self, sid: str, text: str) -> None:
        # JSON with ASCII escapes: unambiguous between fields, and any str (a lone surrogate too) encodes
        self._hash.update(json.dumps([sid, text]).encode("ascii") + b"\n")
        self.count += 1

    def hexdigest(self) -> str:
        return self._hash.hexdigest()[:16]


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


@dataclass
class CandidateRow:
    """One aligned paraphrase candidate (a row of ``candidates``)."""

    structure: int
    iteration: int
    candidate: int
    text: str
    forward: float | None
    backward: float | None
    score: float | None
    anchor: tuple[int, int] | None
    anchor_score: float | None
    placed: bool
    chosen: bool
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class OutputRow:
    """One augmented sentence with the numbers filters and reports need."""

    sentence: Sentence
    structure: int
    iteration: int
    candidate: int
    forward: float | None
    backward: float | None
    score: float | None
    aligner_score: float | None
    min_span_score: float | None
    frame: str | None
    anchor_text: str | None
    anchor_lemma: str | None
    decisions: dict[str, tuple[bool, str, float | None]] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.sentence.id


@dataclass
class WorkResult:
    """Everything one input sentence produced: committed together."""

    input_id: str
    status: str  # "done" or "skipped"
    note: str | None = None
    candidates: list[CandidateRow] = field(default_factory=list)
    outputs: list[OutputRow] = field(default_factory=list)
    worker: str | None = None
    #: what the input cost (summed over its generator calls): ``calls``, ``sampled``,
    #: ``sampled_tokens``, ``sample_seconds``, ``generate_seconds``, ``place_seconds`` …
    stats: dict[str, float] = field(default_factory=dict)


@dataclass
class OutputRecord:
    """An output as the read API gives it: the sentence, its scores and each filter's decision."""

    id: str
    input_id: str
    sentence: Sentence
    iteration: int
    structure: int
    candidate: int
    scores: dict[str, float | None]
    decisions: dict[str, bool]
    reasons: dict[str, str]
    frame: str | None
    anchor_text: str | None
    anchor_lemma: str | None


@dataclass(frozen=True)
class Judgment:
    id: int
    output_id: str
    annotator: str
    score: float
    time: str
    note: str | None


class RunStore:
    """An open run store. Use :meth:`create`, :meth:`open` or :meth:`open_or_create`."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self.conn = conn
        self.path = path

    # ------------------------------------------------------------------ opening

    @staticmethod
    def _connect(path: Path, timeout: float) -> sqlite3.Connection:
        conn = sqlite3.connect(str(path), timeout=timeout, isolation_level=None)  # explicit transactions
        conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a commit survives a killed process
        conn.execute("PRAGMA foreign_keys = ON")
        return conn

    @classmethod
    def create(cls, path: str | Path, config: dict[str, Any] | None = None, *, timeout: float = 30.0) -> RunStore:
        """A new, empty store at ``path`` (which must not exist)."""
        from paraspan import __version__

        path = Path(path)
        if path.exists():
            if path.is_dir() or not is_sqlite(path):
                raise StoreError.from_code("E050", file=str(path))
            raise StoreError.from_code("E701", file=str(path))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError.from_code("E042", file=str(path), reason=exc.strerror or exc) from None
        conn = cls._connect(path, timeout)
        conn.execute("BEGIN")
        for statement in _SCHEMA.strip().split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("INSERT INTO schema_version VALUES (?, ?, ?)", (SCHEMA_VERSION, __version__, _now()))
        conn.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(config or {}, sort_keys=True),))
        conn.execute("COMMIT")
        return cls(conn, path)

    @classmethod
    def open(cls, path: str | Path, *, timeout: float = 30.0, readonly: bool = False) -> RunStore:
        """An existing store; refuses files that are not paraspan stores or of another version."""
        path = Path(path)
        if not path.is_file():
            raise StoreError.from_code("E702", file=str(path))
        try:
            if readonly:
                conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=timeout, isolation_level=None)
                conn.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            else:
                conn = cls._connect(path, timeout)
            row = conn.execute("SELECT version, paraspan FROM schema_version").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError.from_code("E703", file=str(path), problem=f"not a paraspan run store ({exc})",
                                       fix="give a file written by `paraspan augment --store`") from None
        if row is None:
            raise StoreError.from_code("E703", file=str(path), problem="the run store has no schema version",
                                       fix="it is damaged: start a new --store")
        if int(row[0]) != SCHEMA_VERSION:
            conn.close()
            raise StoreError.from_code("E704", file=str(path), version=row[0], written_by=row[1],
                                       schema_version=SCHEMA_VERSION)
        if not readonly:  # tables added since version 1 (additive: older readers ignore them)
            conn.execute("CREATE TABLE IF NOT EXISTS work_stats (input_id TEXT PRIMARY KEY, json TEXT NOT NULL)")
        return cls(conn, path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ run bookkeeping

    @property
    def config(self) -> dict[str, Any]:
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        return json.loads(row[0]) if row else {}

    def set_meta(self, key: str, value: Any) -> None:
        self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value, sort_keys=True)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def start_run(self, argv: Sequence[str] | None = None) -> int:
        cur = self.conn.execute("INSERT INTO runs (started, argv, status) VALUES (?, ?, 'running')",
                                (_now(), json.dumps(list(argv or []))))
        return int(cur.lastrowid or 0)

    def finish_run(self, run_id: int, status: str = "finished") -> None:
        self.conn.execute("UPDATE runs SET finished = ?, status = ? WHERE id = ?", (_now(), status, run_id))

    def interrupt_running(self) -> bool:
        """Mark the latest run ``interrupted`` if it is still ``running``; whether it was."""
        cur = self.conn.execute("UPDATE runs SET finished = ?, status = 'interrupted' WHERE status = 'running' "
                                "AND id = (SELECT MAX(id) FROM runs)", (_now(),))
        return bool(cur.rowcount)

    # ------------------------------------------------------------------ inputs

    def add_inputs(self, sentences: Iterable[tuple[Sentence, int]], batch: int = 1000) -> int:
        """Record input sentences (with their position in the corpus) not yet in the store.

        Streams: at most ``batch`` rows are held at once. Returns how many were new.
        """
        from paraspan.corpus.jsonl import dumps

        added = 0
        rows: list[tuple[Any, ...]] = []

        def flush() -> None:
            nonlocal added
            if not rows:
                return
            self.conn.execute("BEGIN IMMEDIATE")
            before = self.conn.total_changes
            self.conn.executemany("INSERT OR IGNORE INTO inputs (id, position, json, structures) VALUES (?, ?, ?, ?)",
                                  rows)
            added += self.conn.total_changes - before
            self.conn.execute("COMMIT")
            rows.clear()

        for sentence, position in sentences:
            rows.append((sentence.id, position, dumps(sentence), len(sentence.structures)))
            if len(rows) >= batch:
                flush()
        flush()
        return added

    def pending(self, chunk: int = 500, only: Collection[str] | None = None) -> Iterator[Sentence]:
        """Inputs not yet processed, in corpus order, fetched ``chunk`` at a time (bounded memory);
        ``only``: just those with these ids (the others stay pending)."""
        from paraspan.corpus.jsonl import parse_line

        last = -1
        while True:
            rows = self.conn.execute(
                "SELECT position, id, json FROM inputs WHERE status = 'pending' AND position > ? "
                "ORDER BY position LIMIT ?", (last, chunk)).fetchall()
            if not rows:
                return
            for position, input_id, raw in rows:
                last = position
                if only is None or input_id in only:
                    yield parse_line(raw)

    def count_inputs(self, status: str | None = None, only: Collection[str] | None = None) -> int:
        """How many inputs (with ``status``; ``only``: of these ids) the store holds."""
        if only is not None:
            query = "SELECT id FROM inputs" + (" WHERE status = ?" if status is not None else "")
            return sum(row[0] in only for row in self.conn.execute(query, () if status is None else (status,)))
        if status is None:
            return int(self.conn.execute("SELECT COUNT(*) FROM inputs").fetchone()[0])
        return int(self.conn.execute("SELECT COUNT(*) FROM inputs WHERE status = ?", (status,)).fetchone()[0])

    def input_fingerprint(self) -> tuple[str, int]:
        """The :class:`InputFingerprint` digest of the inputs the store holds, and their number: as
        recorded in ``meta`` when that covers them all, else computed from the inputs table."""
        total = self.count_inputs()
        recorded = self.get_meta("input_fingerprint")
        if isinstance(recorded, dict) and recorded.get("inputs") == total and isinstance(recorded.get("sha256"), str):
            return recorded["sha256"], total
        digest = InputFingerprint()
        for (raw,) in self.conn.execute("SELECT json FROM inputs ORDER BY position"):
            data = json.loads(raw)
            digest.add(data["id"], data["text"])
        return digest.hexdigest(), digest.count

    def source(self, input_id: str) -> Sentence | None:
        """The input sentence ``input_id`` (the source of its outputs)."""
        from paraspan.corpus.jsonl import parse_line

        row = self.conn.execute("SELECT json FROM inputs WHERE id = ?", (input_id,)).fetchone()
        return parse_line(row[0]) if row else None

    def input_notes(self) -> dict[str, str | None]:
        """Why each input got no output where it got none (the loop's note: ``structure N: iteration I: …``),
        by input id."""
        return dict(self.conn.execute("SELECT id, note FROM inputs").fetchall())

    def iter_inputs(self, status: str | None = None) -> Iterator[Sentence]:
        from paraspan.corpus.jsonl import parse_line

        query = "SELECT json FROM inputs" + (" WHERE status = ?" if status else "") + " ORDER BY position"
        for (raw,) in self.conn.execute(query, (status,) if status else ()):
            yield parse_line(raw)

    # ------------------------------------------------------------------ the unit of work

    def commit_work(self, result: WorkResult) -> None:
        """Write one input's candidates, outputs and decisions and mark it done, atomically."""
        from paraspan.corpus.jsonl import dumps

        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT status FROM inputs WHERE id = ?", (result.input_id,)).fetchone()
            if row is None:
                raise StoreError.from_code("E705", input_id=result.input_id)
            if row[0] != "pending":  # another worker (or a replay) already committed it
                conn.execute("ROLLBACK")
                return
            conn.executemany(
                "INSERT OR REPLACE INTO candidates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(result.input_id, c.structure, c.iteration, c.candidate, c.text, c.forward, c.backward, c.score,
                  c.anchor[0] if c.anchor else None, c.anchor[1] if c.anchor else None, c.anchor_score,
                  int(c.placed), int(c.chosen), json.dumps(c.meta, ensure_ascii=False))
                 for c in result.candidates])
            for out in result.outputs:
                conn.execute(
                    "INSERT OR REPLACE INTO outputs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (out.sentence.id, result.input_id, out.structure, out.iteration, out.candidate, out.sentence.text,
                     dumps(out.sentence), out.forward, out.backward, out.score, out.aligner_score,
                     out.min_span_score, out.frame, out.anchor_text, out.anchor_lemma))
                conn.executemany("INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?)",
                                 [(out.sentence.id, name, int(keep), reason, score)
                                  for name, (keep, reason, score) in out.decisions.items()])
            conn.execute("UPDATE inputs SET status = ?, note = ?, worker = ?, finished = ? WHERE id = ?",
                         (result.status, result.note, result.worker, time.time(), result.input_id))
            if result.stats:
                conn.execute("INSERT OR REPLACE INTO work_stats VALUES (?, ?)",
                             (result.input_id, json.dumps(result.stats, sort_keys=True)))
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def set_decisions(self, decisions: Iterable[tuple[str, str, bool, str, float | None]]) -> None:
        """Record (output id, filter, keep, reason, score) decisions, replacing earlier ones."""
        self.conn.execute("BEGIN IMMEDIATE")
        self.conn.executemany("INSERT OR REPLACE INTO decisions VALUES (?, ?, ?, ?, ?)",
                              [(o, f, int(k), r, s) for o, f, k, r, s in decisions])
        self.conn.execute("COMMIT")

    # ------------------------------------------------------------------ read API (stable)

    def filters(self) -> list[str]:
        """Names of the filters that have decided on outputs."""
        return [r[0] for r in self.conn.execute("SELECT DISTINCT filter FROM decisions ORDER BY filter")]

    def iter_outputs(self, filter: str | None = None, *, kept: bool = True) -> Iterator[OutputRecord]:
        """Outputs in input order, then structure and iteration, with scores and decisions.

        ``filter``: only outputs that this filter kept (``kept=False``: that it dropped).
        Unknown filter names raise :class:`StoreError` listing the known ones.
        """
        from paraspan.corpus.jsonl import parse_line

        if filter is not None and filter not in self.filters():
            known = ", ".join(self.filters()) or "none"
            raise StoreError.from_code("E706", file=str(self.path), filter=filter, known=known)
        query = ("SELECT o.id, o.input_id, o.structure, o.iteration, o.candidate, o.json, o.forward, o.backward, "
                 "o.score, o.aligner_score, o.min_span_score, o.frame, o.anchor_text, o.anchor_lemma "
                 "FROM outputs o JOIN inputs i ON i.id = o.input_id")
        args: tuple[Any, ...] = ()
        if filter is not None:
            query += " JOIN decisions d ON d.output_id = o.id AND d.filter = ? WHERE d.keep = ?"
            args = (filter, int(kept))
        query += " ORDER BY i.position, o.structure, o.iteration"
        # a second connection-level cursor for decisions while iterating: fetch in chunks
        cur = self.conn.execute(query, args)
        while True:
            rows = cur.fetchmany(256)
            if not rows:
                return
            ids = [r[0] for r in rows]
            marks = ",".join("?" * len(ids))
            decided: dict[str, dict[str, tuple[bool, str]]] = {}
            for oid, name, keep, reason in self.conn.execute(
                    f"SELECT output_id, filter, keep, reason FROM decisions WHERE output_id IN ({marks})", ids):
                decided.setdefault(oid, {})[name] = (bool(keep), reason or "")
            for (oid, iid, structure, iteration, cand, raw, fwd, bwd, score, al, mn, frame, atext,
                 alemma) in rows:
                d = decided.get(oid, {})
                yield OutputRecord(
                    id=oid, input_id=iid, sentence=parse_line(raw), iteration=iteration, structure=structure,
                    candidate=cand,
                    scores={"forward": fwd, "backward": bwd, "score": score, "aligner": al, "min_span": mn},
                    decisions={k: v[0] for k, v in d.items()}, reasons={k: v[1] for k, v in d.items()},
                    frame=frame, anchor_text=atext, anchor_lemma=alemma)

    def commands(self) -> list[list[str]]:
        """The command line of each run (invocation) that wrote this store, oldest first."""
        return [json.loads(argv) if argv else [] for (argv,) in self.conn.execute("SELECT argv FROM runs ORDER BY id")]

    def iter_candidates(self, input_id: str) -> Iterator[CandidateRow]:
        for (_, structure, iteration, cand, text, fwd, bwd, score, a_s, a_e, a_score, placed, chosen,
             meta) in self.conn.execute("SELECT * FROM candidates WHERE input_id = ? "
                                        "ORDER BY structure, iteration, candidate", (input_id,)):
            yield CandidateRow(structure, iteration, cand, text, fwd, bwd, score,
                               (a_s, a_e) if a_s is not None else None, a_score, bool(placed), bool(chosen),
                               json.loads(meta) if meta else {})

    def add_judgment(self, output_id: str, score: float, annotator: str = "anonymous", note: str | None = None) -> int:
        """Record a human judgment (0–100) of an output; returns its id."""
        if not 0 <= float(score) <= 100:
            raise StoreError.from_code("E707", score=score)
        cur = self.conn.execute(
            "INSERT INTO judgments (output_id, annotator, score, time, note) VALUES (?, ?, ?, ?, ?)",
            (output_id, annotator, float(score), _now(), note))
        return int(cur.lastrowid or 0)

    def judgments(self, output_id: str | None = None) -> list[Judgment]:
        query = "SELECT id, output_id, annotator, score, time, note FROM judgments"
        rows = (self.conn.execute(query + " WHERE output_id = ? ORDER BY id", (output_id,)) if output_id
                else self.conn.execute(query + " ORDER BY id"))
        return [Judgment(*r) for r in rows]

    def work_stats(self) -> dict[str, float]:
        """:attr:`WorkResult.stats` summed over every committed input (empty for an older store)."""
        total: dict[str, float] = {}
        try:
            rows = self.conn.execute("SELECT json FROM work_stats").fetchall()
        except sqlite3.OperationalError:  # a store written before the table, opened read-only
            return total
        for (line,) in rows:
            for key, value in json.loads(line).items():
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    total[key] = total.get(key, 0) + value
        total["inputs"] = len(rows)
        return total

    def counts(self) -> dict[str, Any]:
        """Inputs by status, outputs per iteration and kept outputs per filter."""
        conn = self.conn
        return {
            "inputs": dict(conn.execute("SELECT status, COUNT(*) FROM inputs GROUP BY status").fetchall()),
            "outputs": int(conn.execute("SELECT COUNT(*) FROM outputs").fetchone()[0]),
            "outputs_per_iteration": {int(k): v for k, v in conn.execute(
                "SELECT iteration, COUNT(*) FROM outputs GROUP BY iteration ORDER BY iteration")},
            "kept_per_filter": dict(conn.execute(
                "SELECT filter, SUM(keep) FROM decisions GROUP BY filter ORDER BY filter").fetchall()),
            "candidates": int(conn.execute("SELECT COUNT(*) FROM candidates").fetchone()[0]),
            "judgments": int(conn.execute("SELECT COUNT(*) FROM judgments").fetchone()[0]),
        }
