"""``paraspan rewrite``, ``rules list``, ``refine-rules`` and ``learn-rules`` from the command line."""

from __future__ import annotations

import json
import subprocess
import sys

from paraspan.cli.main import main
from paraspan.corpus.jsonl import read_jsonl, write_jsonl
from tests.generate.rewrite.helpers import CORPUS


def _labels(s):
    return {(st.kind, st.label, a.label) for st in s.structures for a in st.args} | {
        (st.kind, st.label, None) for st in s.structures}


def test_rewrite_writes_projected_sentences(tmp_path):
    """`paraspan rewrite` is `augment --generator rewrite -k 1`: each structure's best-placed rewrite is an
    output, with the pipeline's provenance (the rules under ``generated``)."""
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(CORPUS, src)
    assert main(["rewrite", str(src), "-o", str(out), "--max-per-sentence", "2", "--no-progress", "--filter",
                 "all"]) == 0
    rewrites = list(read_jsonl(out))
    by_id = {s.id: s for s in CORPUS}
    assert len({rw.source_id for rw in rewrites}) >= len(CORPUS) - 2  # a rule applies to nearly every sentence
    per_source = {}
    for rw in rewrites:
        per_source[rw.source_id] = per_source.get(rw.source_id, 0) + 1
        assert rw.provenance["models"]["generator"] == "rewrite" and rw.provenance["generated"]["rules"]
        assert rw.provenance["iteration"] == 1
        assert {(k, lab, a) for k, lab, a in _labels(rw) if a is not None} <= _labels(by_id[rw.source_id])
    assert max(per_source.values()) <= max(len(s.structures) for s in CORPUS)
    # the default families leave out the passives (judged right 26 times in 71)
    assert not any("passive" in rule for rw in rewrites for rule in rw.provenance["generated"]["rules"])
    # a filter decides what -o gets; the rest goes to --rejected, every decision in provenance
    kept, dropped = tmp_path / "kept.jsonl", tmp_path / "dropped.jsonl"
    assert main(["rewrite", str(src), "-o", str(kept), "--max-per-sentence", "2", "--no-progress", "--filter",
                 "spans", "--rejected", str(dropped)]) == 0
    kept_rows, dropped_rows = list(read_jsonl(kept)), list(read_jsonl(dropped))
    assert len(kept_rows) + len(dropped_rows) == len(rewrites)
    assert all(r.provenance["checks"]["spans"]["keep"] for r in kept_rows)
    assert all(not r.provenance["checks"]["spans"]["keep"] and r.provenance["checks"]["spans"]["reason"]
               for r in dropped_rows)


def test_rules_list_json(capsys):
    assert main(["rules", "list", "--kind", "hand", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    names = {r["name"] for r in rows}
    assert {"passive-to-active", "pp-to-genitive", "synonym", "it-cleft"} <= names
    assert all(r["kind"] == "hand" and "→" in r["example"] for r in rows)
    assert main(["rules", "list", "--kind", "learned", "--json"]) == 0
    learned = json.loads(capsys.readouterr().out)
    assert all(r["count"] >= 3 for r in learned)


def test_bad_input_gives_file_line_and_no_traceback(tmp_path):
    src = tmp_path / "bad.jsonl"
    src.write_text('{"id": "a", "text": "A dog ran.", "structures": []}\n{"id": "b", "text": 3}\n')
    proc = subprocess.run([sys.executable, "-m", "paraspan.cli.main", "rewrite", str(src), "-o",
                           str(tmp_path / "o.jsonl")], capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"{src}:2:" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o.jsonl").exists()
    assert main(["rewrite", str(src), "-o", str(tmp_path / "o.jsonl"), "--rules", str(tmp_path / "none.json")]) == 1
    junk = tmp_path / "junk.json"
    junk.write_text("{}")
    assert main(["rules", "list", "--rules", str(junk)]) == 1


def test_refine_rules_then_rewrite_with_them(tmp_path, capsys):
    src, rules = tmp_path / "train.jsonl", tmp_path / "rules.json"
    write_jsonl(CORPUS, src)
    empty = tmp_path / "learned.json"
    empty.write_text(json.dumps({"format": "paraspan-learned-rules", "rules": []}))
    assert main(["refine-rules", str(src), "--dev", str(src), "-o", str(rules), "--learned", str(empty),
                 "--threshold", "-100", "--no-progress"]) == 0
    data = json.loads(rules.read_text())
    assert data["format"] == "paraspan-refined-rules"
    kept = {r["name"] for r in data["rules"] if r["kept"]}
    capsys.readouterr()
    assert main(["rules", "list", "--rules", str(rules), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == len(data["rules"])
    out = tmp_path / "out.jsonl"
    assert main(["rewrite", str(src), "-o", str(out), "--rules", str(rules), "--no-progress", "--filter", "all"]) == 0
    assert {r.provenance["generated"]["rules"][0] for r in read_jsonl(out)} <= kept


def test_refine_needs_predicates(tmp_path):
    src = tmp_path / "ents.jsonl"
    src.write_text(json.dumps({"id": "e", "text": "Anna met Bob.", "structures": [
        {"kind": "entity", "label": "PER", "anchor": {"start": 0, "end": 4}, "args": []}]}) + "\n")
    assert main(["refine-rules", str(src), "--dev", str(src), "-o", str(tmp_path / "r.json")]) == 1


def test_learn_rules_rejects_unknown_files(tmp_path):
    bad = tmp_path / "x.tsv"
    bad.write_text("a\tb\n")
    assert main(["learn-rules", str(bad), "-o", str(tmp_path / "l.json")]) == 1
