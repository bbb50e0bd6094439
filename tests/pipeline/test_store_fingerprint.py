"""A run store knows the corpus it was made from: a resume with another corpus is refused."""

from __future__ import annotations

import json
import sqlite3

import pytest

from paraspan.pipeline import open_store, run_augment
from paraspan.pipeline.store import InputFingerprint, RunStore, StoreError
from tests.pipeline.conftest import SENTENCES, write_corpus


def _fingerprint(rows: list[dict]) -> str:
    digest = InputFingerprint()
    for row in rows:
        digest.add(row["id"], row["text"])
    return digest.hexdigest()


def test_the_store_records_the_corpus_fingerprint(tmp_path, corpus, fake_config):
    with open_store(tmp_path / "run.db", fake_config, resume=False) as store:
        run_augment(corpus, store, fake_config)
        assert store.get_meta("input_fingerprint") == {"sha256": _fingerprint(SENTENCES), "inputs": len(SENTENCES)}
        assert store.input_fingerprint() == (_fingerprint(SENTENCES), len(SENTENCES))


@pytest.mark.parametrize("change", ["texts", "ids", "order", "fewer", "empty"])
def test_resume_with_another_corpus_is_refused_before_anything_is_added(tmp_path, corpus, fake_config, change):
    with open_store(tmp_path / "run.db", fake_config, resume=False) as store:
        run_augment(corpus, store, fake_config)
    rows = {"texts": [{**r, "text": r["text"] + " "} for r in SENTENCES],
            "ids": [{**r, "id": r["id"] + "x"} for r in SENTENCES],
            "order": SENTENCES[::-1], "fewer": SENTENCES[:2], "empty": []}[change]
    other = write_corpus(tmp_path / "other.jsonl", rows)
    with open_store(tmp_path / "run.db", fake_config, resume=True) as store:
        before = store.counts()
        with pytest.raises(StoreError) as info:
            run_augment(other, store, fake_config)
        assert info.value.code == "E048"
        assert _fingerprint(SENTENCES) in str(info.value)  # the fingerprint it expected
        assert store.counts() == before


def test_resume_with_the_same_corpus_and_more_of_it(tmp_path, corpus, fake_config):
    with open_store(tmp_path / "run.db", fake_config, resume=False) as store:
        run_augment(corpus, store, fake_config, limit=2)
    with open_store(tmp_path / "run.db", fake_config, resume=True) as store:
        summary = run_augment(corpus, store, fake_config)  # the first 2 match: the rest is added
        assert summary.inputs == len(SENTENCES)
        assert store.get_meta("input_fingerprint")["inputs"] == len(SENTENCES)
    with open_store(tmp_path / "run.db", fake_config, resume=True) as store:
        assert run_augment(corpus, store, fake_config).processed_now == 0


def test_a_store_without_a_recorded_fingerprint_is_checked_from_its_inputs(tmp_path, corpus, fake_config):
    with open_store(tmp_path / "run.db", fake_config, resume=False) as store:
        run_augment(corpus, store, fake_config)
    with sqlite3.connect(tmp_path / "run.db") as conn:  # as a store written before fingerprints
        conn.execute("DELETE FROM meta WHERE key = 'input_fingerprint'")
    other = write_corpus(tmp_path / "other.jsonl", [{**r, "text": r["text"] + "!"} for r in SENTENCES])
    with open_store(tmp_path / "run.db", fake_config, resume=True) as store:
        assert store.input_fingerprint() == (_fingerprint(SENTENCES), len(SENTENCES))
        with pytest.raises(StoreError, match="another corpus"):
            run_augment(other, store, fake_config)


def test_no_inputs_given_means_none_to_add(tmp_path, corpus, fake_config):
    # a caller that adds the inputs itself passes no corpus (the downstream generator adapter)
    with open_store(tmp_path / "run.db", fake_config, resume=False) as store:
        run_augment(corpus, store, fake_config, limit=1)
    with open_store(tmp_path / "run.db", fake_config, resume=True) as store:
        assert run_augment([], store, fake_config).processed_now == 0


def test_resume_of_a_missing_store_is_an_error(tmp_path, fake_config):
    with pytest.raises(StoreError) as info:
        open_store(tmp_path / "nope.db", fake_config, resume=True, missing_ok=False)
    assert info.value.code == "E049" and not (tmp_path / "nope.db").exists()
    open_store(tmp_path / "new.db", fake_config, resume=True).close()  # the library default: new, or resume


def test_interrupt_running_marks_the_latest_run(tmp_path, fake_config):
    with open_store(tmp_path / "run.db", fake_config, resume=False) as store:
        first = store.start_run(["a"])
        store.finish_run(first)
        store.start_run(["b"])
        assert store.interrupt_running()
        assert not store.interrupt_running()
        statuses = [r[0] for r in store.conn.execute("SELECT status FROM runs ORDER BY id")]
    assert statuses == ["finished", "interrupted"]


def test_cli_resume_with_another_corpus_writes_nothing(tmp_path, corpus, capsys):
    from paraspan.cli.main import main
    from tests.cli.test_augment import FAKE_ARGS

    store, out = tmp_path / "run.db", tmp_path / "out.jsonl"
    assert main(["augment", str(corpus), "-o", str(out), "--store", str(store), *FAKE_ARGS]) == 0
    other = write_corpus(tmp_path / "other.jsonl", [{**r, "text": r["text"] + " "} for r in SENTENCES])
    out2 = tmp_path / "out2.jsonl"
    capsys.readouterr()
    assert main(["augment", str(other), "-o", str(out2), "--store", str(store), "--resume", *FAKE_ARGS]) == 1
    assert "[E048]" in capsys.readouterr().err and not out2.exists()
    assert main(["augment", str(corpus), "-o", str(out2), "--store", str(tmp_path / "nope.db"), "--resume",
                 *FAKE_ARGS]) == 1
    assert "[E049]" in capsys.readouterr().err
    before = store.read_bytes()
    assert main(["export", str(store), "-o", str(store)]) == 1
    assert "[E040]" in capsys.readouterr().err and store.read_bytes() == before
    assert main(["augment", str(corpus), "-o", str(corpus), *FAKE_ARGS]) == 1
    assert "[E040]" in capsys.readouterr().err
    assert [json.loads(line)["id"] for line in corpus.read_text().splitlines()] == [r["id"] for r in SENTENCES]
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    assert main(["augment", str(corpus), "-o", str(tmp_path / "o3.jsonl"), "--store", str(notes), *FAKE_ARGS]) == 1
    assert "[E050]" in capsys.readouterr().err and notes.read_text() == "mine\n"
    with RunStore.open(store) as opened:
        assert opened.input_fingerprint()[1] == len(SENTENCES)


def test_export_to_bio_counts_or_refuses_the_frames(tmp_path, corpus, capsys):
    from paraspan.cli.main import main
    from tests.cli.test_augment import FAKE_ARGS

    store = tmp_path / "run.db"
    assert main(["augment", str(corpus), "-o", str(tmp_path / "out.jsonl"), "--store", str(store), *FAKE_ARGS]) == 0
    capsys.readouterr()
    assert main(["export", str(store), "-o", str(tmp_path / "x.bio"), "--to", "bio"]) == 0
    assert "frame structure(s) left out" in capsys.readouterr().err
    assert main(["export", str(store), "-o", str(tmp_path / "y.bio"), "--to", "bio", "--strict"]) == 1
    assert "[E043]" in capsys.readouterr().err and not (tmp_path / "y.bio").exists()
    assert main(["export", str(store), "-o", str(tmp_path / "z.jsonl"), "--strict"]) == 0  # jsonl holds every kind
