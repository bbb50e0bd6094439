"""`paraspan augment`, `export` and `train-filter` end to end, with the fake models (no LLM),
including a real SIGKILL in the middle of a run and its resumption."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paraspan.cli.main import main
from tests.pipeline.conftest import SENTENCES, write_corpus

REPO = Path(__file__).resolve().parents[2]
# every output is written (the default `--filter verified` loads the verification models); one worker
# (the default, auto, spawns one per core: seconds of start-up per run that these tests do not need)
FAKE_ARGS = ["--filter", "all", "--generator", "tests.pipeline.fakes:make_generator", "--aligner",
             "tests.pipeline.fakes:make_aligner", "--no-progress", "--workers", "1"]


@pytest.fixture
def corpus(tmp_path) -> Path:
    return write_corpus(tmp_path / "corpus.jsonl", SENTENCES)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_augment_writes_outputs_summary_and_store(tmp_path, corpus, capsys):
    out = tmp_path / "out.jsonl"
    rc = main(["augment", str(corpus), "-o", str(out), "--iterations", "2", "--retries", "1",
               "--store", str(tmp_path / "run.db"), *FAKE_ARGS])
    assert rc == 0
    with sqlite3.connect(tmp_path / "run.db") as conn:  # the run's settings, kept for --resume
        config = json.loads(conn.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0])
    assert config["iterations"] == 2 and config["retries"] == 1
    rows = _lines(out)
    assert len(rows) == 6 and all(r["source_id"] in {"a", "c", "d"} for r in rows)
    assert {r["provenance"]["iteration"] for r in rows} == {1, 2}
    summary = json.loads((tmp_path / "out.summary.json").read_text())
    assert summary["inputs"] == 4 and summary["skipped"] == 1 and summary["outputs_per_iteration"] == {"1": 3, "2": 3}
    assert summary["kept_per_filter"]["iter1"] == 3
    err = capsys.readouterr().err
    assert "augmentation run" in err and "new (frame, trigger lemma) pairs" in err
    assert "kept by lax" not in err and "kept by iter1" not in err  # presets the run did not ask for
    # the store exports again, filtered, in other formats
    assert main(["export", str(tmp_path / "run.db"), "-o", str(tmp_path / "i1.jsonl"), "--filter", "iter1"]) == 0
    assert len(_lines(tmp_path / "i1.jsonl")) == 3
    assert main(["export", str(tmp_path / "run.db"), "-o", str(tmp_path / "o.spacy"), "--to", "docbin"]) == 0
    assert (tmp_path / "o.spacy").stat().st_size > 0


def test_filter_chooses_what_is_written(tmp_path, corpus):
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(corpus), "-o", str(out), "-k", "3", *FAKE_ARGS, "--filter",
                 "iteration<=2&aligner>=0.9"]) == 0
    rows = _lines(out)
    assert len(rows) == 6 and all(r["provenance"]["filters"]["iteration<=2&aligner>=0.9"] for r in rows)


def test_bad_input_is_one_line_not_a_traceback(tmp_path, corpus, capsys):
    assert main(["augment", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o.jsonl"), *FAKE_ARGS]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o.jsonl"), *FAKE_ARGS, "--filter", "speed>3"]) == 1
    assert "cannot read the filter" in capsys.readouterr().err
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o.jsonl"), "--resume", *FAKE_ARGS]) == 1
    assert "--resume needs the --store" in capsys.readouterr().err
    store = tmp_path / "run.db"
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o.jsonl"), "--store", str(store), *FAKE_ARGS]) == 0
    capsys.readouterr()
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o.jsonl"), "--store", str(store), *FAKE_ARGS]) == 1
    assert "already exists" in capsys.readouterr().err
    conn = sqlite3.connect(store)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    assert main(["export", str(store), "-o", str(tmp_path / "e.jsonl")]) == 1
    err = capsys.readouterr().err
    assert "schema version 99" in err and "Traceback" not in err
    bad = write_corpus(tmp_path / "bad.jsonl", SENTENCES[:1])
    with bad.open("a") as handle:
        handle.write("{not json\n")
    assert main(["augment", str(bad), "-o", str(tmp_path / "o2.jsonl"), *FAKE_ARGS]) == 1
    assert f"{bad}:2:" in capsys.readouterr().err
    assert not (tmp_path / "o2.jsonl").exists()


def test_train_filter_from_judgments(tmp_path, corpus, capsys):
    store = tmp_path / "run.db"
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o.jsonl"), "-k", "4", "--store", str(store),
                 *FAKE_ARGS]) == 0
    rows = _lines(tmp_path / "o.jsonl")
    judgments = tmp_path / "j.jsonl"
    # judges like early iterations
    with judgments.open("w") as handle:
        for r in rows:
            for ann in range(2):
                handle.write(json.dumps({"output_id": r["id"], "score": max(0, 95 - 30 * r["provenance"]["iteration"] + ann)}) + "\n")
    model = tmp_path / "f.json"
    assert main(["train-filter", str(judgments), "--store", str(store), "-o", str(model), "--epochs", "300",
                 "--folds", "3"]) == 0
    assert json.loads(model.read_text())["mode"] == "precision"
    err = capsys.readouterr().err
    assert "3-fold cross-validation on 12 judged outputs (3 accepted)" in err
    assert "no recorded verified check" in err  # `--filter all`: nothing to compare with
    assert main(["export", str(store), "-o", str(tmp_path / "p.jsonl"), "--filter-model", str(model)]) == 0
    kept = _lines(tmp_path / "p.jsonl")
    assert 0 < len(kept) < len(rows)
    assert all(r["provenance"]["iteration"] <= 2 for r in kept)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"output_id": "x", "score": 150}\n')
    capsys.readouterr()
    assert main(["train-filter", str(bad), "--store", str(store)]) == 1
    assert f"{bad}:1:" in capsys.readouterr().err


def _judged_files(tmp_path: Path, old_outputs: bool = True) -> tuple[Path, Path]:
    """Rewrite-like outputs (no paraphrase NLL) with their checks recorded, judged by their fluency
    score (see tests/filter/test_learned.py), as an outputs JSONL and a judgments JSONL."""
    from paraspan.corpus.jsonl import write_jsonl
    from paraspan.corpus.schema import Sentence
    from tests.filter.test_learned import judged_outputs

    provenance, scores = judged_outputs()
    if not old_outputs:
        provenance = {k: v for k, v in provenance.items() if not k.startswith("old")}
        scores = {k: v for k, v in scores.items() if not k.startswith("old")}
    outputs, judgments = tmp_path / "outputs.jsonl", tmp_path / "judgments.jsonl"
    write_jsonl([Sentence(oid, f"sentence {oid}", provenance=prov) for oid, prov in provenance.items()], outputs)
    judgments.write_text("".join(json.dumps({"output_id": oid, "score": score}) + "\n"
                                 for oid, score in scores.items()))
    return outputs, judgments


def test_train_filter_on_checks_cross_validated_against_the_rule(tmp_path, capsys):
    outputs, judgments = _judged_files(tmp_path)
    model = tmp_path / "checks.json"
    assert main(["train-filter", str(judgments), "--outputs", str(outputs), "--features", "checks",
                 "--folds", "5", "-o", str(model), "--json"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)  # stdout is the JSON, messages go to stderr
    assert result["features"] == "checks" and result["rows"] == 60 and result["judged"] == 66
    assert result["dropped"] == {"missing checks": 5, "not among the outputs": 1}
    cv = result["cv"]
    assert len(cv["learned"]["per_fold"]) == 5 and cv["rule"]["name"] == "verified"
    assert cv["learned"]["mean"]["precision"] > cv["rule"]["mean"]["precision"]
    assert "dropped 6: 5 missing checks, 1 not among the outputs" in captured.err
    assert "rule (verified check)" in captured.err and "learned (precision)" in captured.err
    saved = json.loads(model.read_text())
    assert saved["features"] == "checks" and saved["columns"] == result["columns"]
    assert saved["info"]["dropped"] == {"missing checks": 5} and saved["info"]["unmatched_judgments"] == 1


def test_train_filter_errors(tmp_path, capsys):
    outputs, judgments = _judged_files(tmp_path, old_outputs=False)
    # the paper's features need a paraphrase NLL, which rewrite outputs lack
    assert main(["train-filter", str(judgments), "--outputs", str(outputs), "-o", str(tmp_path / "m.json")]) == 1
    err = capsys.readouterr().err
    assert "E738" in err and "60 missing nll" in err and "--features checks" in err
    assert main(["train-filter", str(judgments), "--outputs", str(outputs), "--features", "checks",
                 "--folds", "30"]) == 1  # 18 accepted: too few for 30 folds
    err = capsys.readouterr().err
    assert "E728" in err and "at least 30 accepted and 30 rejected" in err
    assert main(["train-filter", str(judgments), "--outputs", str(outputs), "--features", "vibes"]) == 1
    assert "unknown feature set 'vibes'" in capsys.readouterr().err
    assert main(["train-filter", str(judgments), "--outputs", str(outputs), "--features", "checks",
                 "--folds", "1"]) == 1
    assert "E737" in capsys.readouterr().err
    assert not (tmp_path / "m.json").exists()


def test_kill_9_then_resume_loses_and_duplicates_nothing(tmp_path):
    rows = []
    for i in range(12):
        for base in SENTENCES:
            row = json.loads(json.dumps(base))
            row["id"] = f"{base['id']}{i}"
            rows.append(row)
    corpus = write_corpus(tmp_path / "many.jsonl", rows)
    store, out = tmp_path / "run.db", tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "paraspan", "augment", str(corpus), "-o", str(out), "--store", str(store),
           "-k", "2", "--set", "generator.delay=0.15", *FAKE_ARGS]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = 0
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if store.exists():
            try:
                with sqlite3.connect(store, timeout=5) as conn:
                    done = conn.execute("SELECT COUNT(*) FROM inputs WHERE status != 'pending'").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if done >= 6:
                break
    assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not out.exists()  # -o is written atomically at the end: nothing half-written
    with sqlite3.connect(store) as conn:
        before = conn.execute("SELECT COUNT(*) FROM inputs WHERE status != 'pending'").fetchone()[0]
    assert 6 <= before < len(rows)
    resumed = subprocess.run([*cmd, "--resume"], cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    summary = json.loads((tmp_path / "out.summary.json").read_text())
    assert summary["processed_now"] == len(rows) - before
    ids = [r["id"] for r in _lines(out)]
    assert len(ids) == len(set(ids)) == 12 * 6  # a, c, d: 2 iterations each, no loss, no duplicate
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM inputs WHERE status = 'pending'").fetchone()[0] == 0
        assert conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 2
        cand = conn.execute("SELECT COUNT(*), COUNT(DISTINCT input_id || structure || iteration || candidate) "
                            "FROM candidates").fetchone()
        assert cand[0] == cand[1]


def _children(pid: int) -> set[int]:
    found = set()
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":\t", 1) for line in status.read_text().splitlines() if ":\t" in line)
        except OSError:
            continue
        if fields.get("PPid", "").strip() == str(pid) and not fields.get("State", "").startswith("Z"):
            found.add(int(status.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return not (Path(f"/proc/{pid}/status").read_text().split("State:\t", 1)[1].startswith("Z"))
    except (OSError, IndexError):
        return False


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads processes from /proc (Linux)")
def test_kill_9_of_the_run_ends_its_workers(tmp_path, corpus):
    cmd = [sys.executable, "-m", "paraspan", "augment", str(corpus), "-o", str(tmp_path / "out.jsonl"),
           "--store", str(tmp_path / "run.db"), "--set", "generator.delay=5", *FAKE_ARGS, "--workers", "2"]
    # each paraphrase takes 5 s: the workers are busy when the run is killed
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.time() + 120
        while time.time() < deadline and len(workers) < 2 and proc.poll() is None:
            time.sleep(0.5)
            # the pool's workers (the spawn context adds a resource tracker, also a child)
            workers = {c for c in _children(proc.pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()
                       and b"resource_tracker" not in Path(f"/proc/{c}/cmdline").read_bytes()}
        assert len(workers) == 2, "the workers did not start"
        time.sleep(3)  # inside their first sentence
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    deadline = time.time() + 20
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.5)
    left = [w for w in workers if _alive(w)]
    for w in left:
        os.kill(w, signal.SIGKILL)
    assert not left, "workers outlived the killed run"


def test_demo_runs_on_the_bundled_corpus(tmp_path, capsys):
    out = tmp_path / "demo" / "demo.augmented.jsonl"
    assert main(["augment", "--demo", "-o", str(out), *FAKE_ARGS]) == 0
    summary = json.loads((tmp_path / "demo" / "demo.augmented.summary.json").read_text())
    assert summary["inputs"] == 12 and summary["outputs"] == len(_lines(out)) > 0
    assert (tmp_path / "demo" / "demo.run.db").exists()
    assert main(["augment", "--demo", "-o", str(out), *FAKE_ARGS]) == 0  # runs again, afresh
    assert main(["augment", str(out), "--demo", *FAKE_ARGS]) == 1


def test_registered_filters_are_reachable_from_augment_and_export(tmp_path, corpus):
    """The NLI relation filter, by name with options in the run config, and by name in export."""
    store = tmp_path / "run.db"
    relation = '[{"name": "relation", "accept": ["equivalence", "forward_entailment"], "record_as": "rel"}]'
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o.jsonl"), "-k", "1", "--store", str(store),
                 "--set", f"filters={relation}", *FAKE_ARGS]) == 0
    rows = _lines(tmp_path / "o.jsonl")
    assert rows and all("rel" in r["provenance"]["filters"] for r in rows)
    # a synonym swap ("sold" → "traded") is judged an equivalence or entailment by the packaged judge
    assert any(r["provenance"]["filters"]["rel"] for r in rows)
    with sqlite3.connect(store) as conn:
        reasons = [r for (r,) in conn.execute("SELECT reason FROM decisions WHERE filter = 'rel'")]
    assert len(reasons) == len(rows) and all(reasons)
    # export decides with a filter the run did not record (its decisions are stored first)
    assert main(["export", str(store), "-o", str(tmp_path / "r.jsonl"), "--filter", "relation"]) == 0
    with sqlite3.connect(store) as conn:
        assert conn.execute("SELECT COUNT(*) FROM decisions WHERE filter = 'relation'").fetchone()[0] == len(rows)
    assert len(_lines(tmp_path / "r.jsonl")) <= len(rows)


def test_workers_auto_is_recorded_and_the_output_does_not_depend_on_the_worker_count(tmp_path, corpus, capsys):
    from paraspan.pipeline.resources import usable_cores

    outputs = {}
    for workers in ("1", "2", "auto"):
        out = tmp_path / f"out{workers}.jsonl"
        assert main(["augment", str(corpus), "-o", str(out), "-k", "2", *FAKE_ARGS, "--workers", workers]) == 0
        outputs[workers] = [(r["id"], r["source_id"], r["text"], r["structures"]) for r in _lines(out)]
        plan = json.loads((tmp_path / f"out{workers}.summary.json").read_text())["workers"]
        assert plan["requested_workers"] == (workers if workers == "auto" else int(workers))
        assert 1 <= plan["workers"] <= min(usable_cores(), 4) and plan["threads"] >= 1
        assert plan["cores"] == usable_cores() and plan["per_worker_memory_gb"] == 3.5
        assert plan["reason"] in capsys.readouterr().err.replace("\n", "")
        if workers == "auto":
            assert plan["workers"] * plan["threads"] <= plan["cores"]
    assert outputs["1"] == outputs["2"] == outputs["auto"] and len(outputs["1"]) == 6


def test_workers_beyond_the_cores_are_lowered_with_a_note(tmp_path, corpus, capsys, monkeypatch):
    monkeypatch.setattr("paraspan.pipeline.resources.usable_cores", lambda: 2)
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(corpus), "-o", str(out), "--limit", "1", *FAKE_ARGS, "--workers", "8"]) == 0
    err = capsys.readouterr().err
    assert "note: --workers 8: this process may use 2 cores" in err
    plan = json.loads((tmp_path / "out.summary.json").read_text())["workers"]
    assert plan["workers"] == 1 and plan["limited_by"] == ["inputs"] and len(plan["warnings"]) == 1
    assert main(["augment", str(corpus), "-o", str(out), *FAKE_ARGS, "--workers", "many"]) == 1
    assert "--workers 'many' is neither auto nor a whole number" in capsys.readouterr().err
    assert main(["augment", str(corpus), "-o", str(out), *FAKE_ARGS, "--threads", "0"]) == 1
    assert "--threads '0'" in capsys.readouterr().err
