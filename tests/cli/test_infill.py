"""`paraspan infill` and `paraspan train-fe-classifier` on the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from paraspan.cli.main import main
from paraspan.corpus.jsonl import read_jsonl

FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "fixtures" / "framenet"
RELEASE = FIXTURE / "fndata-0.1"

SENTENCE = {"id": "t1", "text": "Mira sold three baskets to a stranger .", "structures": [
    {"kind": "frame", "label": "Trading", "anchor": {"start": 5, "end": 9, "label": "sell.v"},
     "args": [{"start": 0, "end": 4, "label": "Seller"}, {"start": 10, "end": 23, "label": "Goods"},
              {"start": 24, "end": 37, "label": "Buyer"}]}], "meta": {}}
NOUN = {"id": "t2", "text": "The sale was quick .", "structures": [
    {"kind": "frame", "label": "Trading", "anchor": {"start": 4, "end": 8, "label": "sale.n"}, "args": []}],
    "meta": {}}


def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "in.jsonl"
    path.write_text(json.dumps(SENTENCE) + "\n" + json.dumps(NOUN) + "\n", encoding="utf-8")
    return path


def test_bad_options_give_one_line_and_exit_1(tmp_path, capsys):
    src = corpus(tmp_path)
    assert main(["infill", str(src), "-o", str(tmp_path / "o.jsonl"), "--frames", str(RELEASE),
                 "--conditioning", "everything"]) == 1
    assert "unknown --conditioning 'everything'" in capsys.readouterr().err
    assert main(["infill", str(tmp_path / "nope.jsonl"), "-o", str(tmp_path / "o.jsonl"), "--frames",
                 str(RELEASE)]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["infill", str(src), "-o", str(tmp_path / "o.jsonl"), "--frames", str(tmp_path / "nofn")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
    assert not (tmp_path / "o.jsonl").exists()


def test_bad_corpus_line_names_file_and_line(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps(SENTENCE) + "\n{oops\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "paraspan.cli.main", "infill", str(src), "-o",
                           str(tmp_path / "o.jsonl"), "--frames", str(RELEASE), "--model", "small"],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{src}:2:" in proc.stderr and "Traceback" not in proc.stderr


def test_infill_runs_with_the_small_model(tmp_path):
    """`paraspan infill` is `augment --generator infill -k 1`: the infiller's counters come from the run's
    work statistics, the outputs from its store."""
    src = corpus(tmp_path)
    out, every, summary = tmp_path / "out.jsonl", tmp_path / "all.jsonl", tmp_path / "summary.json"
    assert main(["infill", str(src), "-o", str(out), "--frames", str(RELEASE), "--model", "small",
                 "--candidates", "3", "--all-candidates", str(every), "--summary", str(summary),
                 "--threads", "1", "--no-progress", "--filter", "all"]) == 0
    data = json.loads(summary.read_text())
    counters = data["counters"]
    assert data["sentences"] == 2
    assert counters["structures"] == 2 and counters["skipped: not a verb LU"] == 1
    assert counters["sampled"] == 3
    assert counters["unparseable"] + counters["parsed"] + counters.get("duplicate", 0) == 3
    written = list(read_jsonl(out))
    assert len(written) == data["outputs"] == counters.get("kept", 0)
    # --all-candidates: what the generator returned (the FE filter's survivors; every parsed one with --no-filter)
    candidates = list(read_jsonl(every))
    assert len(candidates) == counters.get("kept", 0)
    for new in candidates:
        assert new.source_id == "t1" and new.provenance["structure"] == 0
        assert new.provenance["lu_from"] == "sell.v" and new.provenance["lu_to"] in ("trade.v", "vend.v")


def test_infill_output_does_not_depend_on_the_worker_count(tmp_path, capsys):
    src = corpus(tmp_path)
    other = json.loads(json.dumps(SENTENCE))
    other.update(id="t3", text="Jonas sold two goats to a farmer .")
    other["structures"][0]["args"] = [{"start": 0, "end": 5, "label": "Seller"},
                                      {"start": 11, "end": 20, "label": "Goods"},
                                      {"start": 21, "end": 32, "label": "Buyer"}]
    other["structures"][0]["anchor"] = {"start": 6, "end": 10, "label": "sell.v"}
    with src.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(other) + "\n")
    made = {}
    for workers in ("1", "2"):
        out, every, summary = (tmp_path / f"{name}{workers}.jsonl" for name in ("out", "all", "summary"))
        assert main(["infill", str(src), "-o", str(out), "--frames", str(RELEASE), "--model", "small",
                     "--candidates", "3", "--all-candidates", str(every), "--summary", str(summary),
                     "--threads", "1", "--no-progress", "--filter", "all", "--workers", workers]) == 0
        data = json.loads(summary.read_text())
        made[workers] = (out.read_text(encoding="utf-8"), every.read_text(encoding="utf-8"), data["counters"])
        assert data["workers"]["requested_workers"] == int(workers) and data["workers"]["threads"] == 1
        assert data["workers"]["reason"] in capsys.readouterr().err.replace("\n", "")
    # the same outputs, and the same fate for every sample (the small model's answers seldom keep their
    # phrase types, so the outputs may be none)
    assert made["1"] == made["2"] and made["1"][2]["sampled"] == 6


def test_train_fe_classifier_command(tmp_path):
    out = tmp_path / "head"
    assert main(["train-fe-classifier", "--frames", str(RELEASE), "--splits", str(FIXTURE / "splits.json"),
                 "-o", str(out), "--exemplar-every", "1", "--epochs", "2", "--hidden", "8",
                 "--cache", str(tmp_path / "cache"), "--test"]) == 0
    assert (out / "fe-head.npz").is_file()


def test_train_fe_classifier_missing_release(tmp_path, capsys):
    assert main(["train-fe-classifier", "--frames", str(tmp_path / "none"), "--splits",
                 str(FIXTURE / "splits.json"), "-o", str(tmp_path / "h")]) == 1
    assert "no such file or folder" in capsys.readouterr().err
