"""The run store: schema, idempotent units of work, read API, version check."""

from __future__ import annotations

import sqlite3

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.pipeline.store import SCHEMA_VERSION, CandidateRow, OutputRow, RunStore, StoreError, WorkResult


def _sentence(i: int) -> Sentence:
    return Sentence(f"s{i}", "The cat sold a hat.", [Structure("frame", "Commerce_sell", Span(8, 12, "sell.v"),
                                                              [Span(0, 7, "Seller")])])


def _work(sid: str, outputs: int = 1) -> WorkResult:
    result = WorkResult(sid, "done")
    for it in range(1, outputs + 1):
        out = Sentence(f"{sid}~s0i{it}", "The cat traded a hat.",
                       [Structure("frame", "Commerce_sell", Span(8, 14, "trade.v"), [Span(0, 7, "Seller")])],
                       source_id=sid, provenance={"iteration": it, "paraphrase": {"forward": -0.5},
                                                  "aligner": {"anchor": 0.97}})
        result.candidates.append(CandidateRow(0, it, 0, out.text, -0.5, -0.6, -1.1, (8, 14), 0.97, True, True))
        result.outputs.append(OutputRow(out, 0, it, 0, -0.5, -0.6, -1.1, 0.97, 0.9, "Commerce_sell", "traded",
                                        "trade", {"all": (True, "", None), "iter1": (it == 1, "", None)}))
    return result


def test_create_tables_wal_and_version(tmp_path):
    store = RunStore.create(tmp_path / "run.db", {"iterations": 2})
    tables = {r[0] for r in store.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"schema_version", "meta", "inputs", "candidates", "outputs", "decisions", "judgments", "runs"} <= tables
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.config == {"iterations": 2}
    store.close()
    with pytest.raises(StoreError, match="already exists"):
        RunStore.create(tmp_path / "run.db")


def test_commit_is_idempotent_and_read_api(tmp_path):
    store = RunStore.create(tmp_path / "run.db")
    assert store.add_inputs((_sentence(i), i) for i in range(3)) == 3
    assert store.add_inputs((_sentence(i), i) for i in range(3)) == 0  # replay: nothing new
    store.commit_work(_work("s0", outputs=2))
    store.commit_work(_work("s0", outputs=2))  # a replayed unit of work changes nothing
    assert [s.id for s in store.pending()] == ["s1", "s2"]
    counts = store.counts()
    assert counts["outputs"] == 2 and counts["candidates"] == 2
    assert counts["outputs_per_iteration"] == {1: 1, 2: 1}
    records = list(store.iter_outputs())
    assert [r.id for r in records] == ["s0~s0i1", "s0~s0i2"]
    assert records[0].decisions == {"all": True, "iter1": True} and records[1].decisions["iter1"] is False
    assert records[0].scores["aligner"] == pytest.approx(0.97)
    assert [r.id for r in store.iter_outputs("iter1")] == ["s0~s0i1"]
    assert store.source("s0").text == "The cat sold a hat."
    with pytest.raises(StoreError, match="no decisions for filter"):
        list(store.iter_outputs("nope"))


def test_judgments(tmp_path):
    store = RunStore.create(tmp_path / "run.db")
    store.add_inputs([(_sentence(0), 0)])
    store.commit_work(_work("s0"))
    jid = store.add_judgment("s0~s0i1", 80, "ann1", note="fine")
    assert jid > 0
    [j] = store.judgments("s0~s0i1")
    assert (j.annotator, j.score, j.note) == ("ann1", 80.0, "fine")
    with pytest.raises(StoreError, match="0-100"):
        store.add_judgment("s0~s0i1", 101)


def test_other_version_is_refused(tmp_path):
    path = tmp_path / "run.db"
    RunStore.create(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="schema version") as info:
        RunStore.open(path)
    assert info.value.code == "E704"


def test_not_a_store(tmp_path):
    path = tmp_path / "junk.db"
    path.write_text("hello, not sqlite " * 100)
    with pytest.raises(StoreError, match="not a paraspan run store"):
        RunStore.open(path)
    with pytest.raises(StoreError, match="not a SQLite run store") as info:  # not "already exists — pass --resume"
        RunStore.create(path)
    assert info.value.code == "E050"
    assert path.read_text() == "hello, not sqlite " * 100  # never written over
    with pytest.raises(StoreError, match="no such run store"):
        RunStore.open(tmp_path / "missing.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(StoreError, match="not a paraspan run store"):
        RunStore.open(other)


def test_pending_streams_in_chunks(tmp_path):
    store = RunStore.create(tmp_path / "run.db")
    store.add_inputs(((_sentence(i), i) for i in range(1200)), batch=100)
    seen = [s.id for s in store.pending(chunk=50)]
    assert len(seen) == 1200 and seen[:2] == ["s0", "s1"] and len(set(seen)) == 1200


def test_work_stats_are_kept_per_input_and_summed(tmp_path):
    """What each input cost is committed with it; a store written before the table gains it on opening."""
    from paraspan.pipeline.summary import summarize

    store = RunStore.create(tmp_path / "run.db")
    store.add_inputs([(_sentence(0), 0), (_sentence(1), 1)])
    for sid, tokens in (("s0", 120), ("s1", 80)):
        work = _work(sid)
        work.stats = {"calls": 2, "sampled_tokens": tokens, "sample_seconds": 4.0}
        store.commit_work(work)
    assert store.work_stats() == {"calls": 4, "sampled_tokens": 200, "sample_seconds": 8.0, "inputs": 2}
    summary = summarize(store)
    assert summary.cost["sampled_tokens"] == 200 and summary.sampled_tokens_per_second() == 25.0
    store.conn.execute("DROP TABLE work_stats")  # as written before the table existed
    store.close()
    with RunStore.open(tmp_path / "run.db", readonly=True) as old:
        assert old.work_stats() == {}  # read-only: nothing to sum, no error
    with RunStore.open(tmp_path / "run.db") as reopened:
        assert reopened.work_stats() == {"inputs": 0}
