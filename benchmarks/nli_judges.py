"""Benchmark: NLI judges for the ``relation`` filter, side by side in one run (issue 21, meaning).

The ``relation`` filter keeps an output when its judge calls (source, output) an ``equivalence``
(entailment both ways). This compares judges, e.g. the shipped ``minilm-nli`` against a folder
from ``paraspan train-nli``, on what none of them was trained on:

* **SICK trial** (3-way accuracy) and **RTE 1-3 dev** (2-way: entailment or not);
* **MRPC val** and **STS-B dev** as the filter uses a judge: a pair is kept when it is an
  ``equivalence``. Reported: precision (gold paraphrases among kept; STS-B: score ≥ 4), recall
  (kept among gold paraphrases) and the mean STS-B score of kept pairs;
* **judged outputs** (``--work``: the generator runs' stores, as ``generators.py`` leaves them): every
  output judged by reading through the review app, and the refused candidates judged by hand
  (``judged/relation-refused.judgments.jsonl``, ``judged/*.rejected.judgments.jsonl``). Per
  judge: how many of those judged right it keeps, and how many judged wrong, by the kind of
  error. The written ones passed the shipped judge, so the shipped judge keeps all of them by
  construction; only a fresh run judged by reading compares judges without that bias
  (``generators.py``). The judged rows are read from the stores; the results JSON holds counts only.

    .venv/bin/python benchmarks/nli_judges.py --judges minilm-nli,minilm-nli:out/nli --work W
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import cpu_name
from relations import MRPC_VAL, ROOT, RTE, SICK_TRIAL, STSB_DEV  # the held-out sets of the judges' benchmark

JUDGED = ROOT / "benchmarks" / "results" / "judged"
#: hand judgments of refused candidates (not outputs, so not in the review app): file stem → origin
REFUSED_FILES = {"relation-refused": "refused for the relation", "fn-cascade-train-m.rejected": "refused"}


def judged_rows(work: Path) -> list[dict[str, Any]]:
    """(source, output, right, kind, origin) of every judged output and judged refused candidate."""
    rows: list[dict[str, Any]] = []
    for db in sorted(work.glob("*.db")):
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        if not con.execute("select 1 from sqlite_master where name = 'judgments'").fetchone():
            continue
        for score, note, text, source in con.execute(
                "select j.score, j.note, o.text, json_extract(i.json, '$.text') from judgments j "
                "join outputs o on o.id = j.output_id join inputs i on i.id = o.input_id"):
            note = json.loads(note).get("note", "") if (note or "").startswith("{") else (note or "")
            rows.append({"source": source, "output": text, "right": score >= 50, "kind": note.split(":")[0],
                         "origin": "written"})
    for stem, origin in REFUSED_FILES.items():
        path = JUDGED / f"{stem}.judgments.jsonl"
        for line in path.read_text(encoding="utf-8").splitlines():
            j = json.loads(line)
            db = work / f"{j['run']}.db"
            if not db.is_file():
                continue
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            found = [(text, source) for text, source, meta in con.execute(
                "select c.text, json_extract(i.json, '$.text'), c.meta from candidates c join inputs i "
                "on i.id = c.input_id where c.input_id = ? and c.candidate = ? and c.iteration = 1 "
                "order by c.structure", (j["input_id"], j["candidate"]))
                if json.loads(meta or "{}").get("refused")]
            if found:
                rows.append({"source": found[0][1], "output": found[0][0], "right": j["score"] >= 50,
                             "kind": j["note"].split(":")[0], "origin": origin})
    return rows


def keeps(judge: Any, pairs: list[tuple[str, str]]) -> tuple[list[bool], list[str], float, list[float]]:
    """Whether the relation filter would keep each (source, output), an ``equivalence``, and the
    smaller of the two directions' entailment probabilities (identical pairs: 1)."""
    from paraspan.filter.relations import relate

    start = time.perf_counter()
    found = relate(pairs, [judge])
    relations = [r.relation for r in found]
    both = [min((r.p_forward or {"entailment": 1.0})["entailment"], (r.p_backward or {"entailment": 1.0})["entailment"])
            for r in found]
    return [r == "equivalence" for r in relations], relations, time.perf_counter() - start, both


def auc(scores: list[float], right: list[bool]) -> float | None:
    """ROC AUC of ``scores`` for telling right (positive) from wrong; None without both."""
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(right, scores)), 3) if 0 < sum(right) < len(right) else None


def pr(kept: list[bool], gold: list[bool]) -> dict[str, Any]:
    hits = sum(k and g for k, g in zip(kept, gold, strict=True))
    return {"n": len(gold), "kept": sum(kept), "gold_positive": sum(gold),
            "precision": round(hits / max(1, sum(kept)), 4), "recall": round(hits / max(1, sum(gold)), 4)}


def measure(spec: str, threads: int, rows: list[dict[str, Any]]) -> dict[str, Any]:
    from paraspan.corpus.pairs import read_pair_file
    from paraspan.filter.judges import load_judge

    judge = load_judge(spec, threads=threads)
    out: dict[str, Any] = {}
    sick = list(read_pair_file(SICK_TRIAL))
    labels = judge.judge([p.s1 for p in sick], [p.s2 for p in sick]).labels()
    out["sick_trial_accuracy"] = round(sum(a == p.gold["nli"] for a, p in zip(labels, sick, strict=True))
                                       / len(sick), 4)
    rte = [p for path in RTE for p in read_pair_file(path)]
    labels = judge.judge([p.s1 for p in rte], [p.s2 for p in rte]).labels()
    out["rte_dev_accuracy"] = round(sum((a == "entailment") == (p.gold["nli2"] == "entailment")
                                        for a, p in zip(labels, rte, strict=True)) / len(rte), 4)
    mrpc = list(read_pair_file(MRPC_VAL))
    kept, _, secs, _ = keeps(judge, [(p.s1, p.s2) for p in mrpc])
    out["mrpc_val"] = pr(kept, [bool(p.gold["paraphrase"]) for p in mrpc])
    out["pairs_per_second"] = round(len(mrpc) / secs, 1)
    stsb = list(read_pair_file(STSB_DEV))
    kept, _, _, _ = keeps(judge, [(p.s1, p.s2) for p in stsb])
    out["stsb_dev"] = pr(kept, [p.gold["similarity"] >= 4.0 for p in stsb])
    scores = [p.gold["similarity"] for p, k in zip(stsb, kept, strict=True) if k]
    out["stsb_dev"]["mean_score_kept"] = round(sum(scores) / max(1, len(scores)), 3)
    if rows:
        kept, relations, _, both = keeps(judge, [(r["source"], r["output"]) for r in rows])
        cells: Counter = Counter()
        for r, k in zip(rows, kept, strict=True):
            verdict = "right" if r["right"] else f"wrong: {r['kind']}"
            cells[f"{r['origin']} | {verdict} | {'kept' if k else 'refused'}"] += 1
        right = [k for r, k in zip(rows, kept, strict=True) if r["right"]]
        wrong_meaning = [k for r, k in zip(rows, kept, strict=True) if not r["right"] and r["kind"] == "meaning"]
        wrong = [k for r, k in zip(rows, kept, strict=True) if not r["right"]]
        out["judged"] = {"n": len(rows), "right_kept": [sum(right), len(right)],
                         "wrong_kept": [sum(wrong), len(wrong)],
                         "meaning_wrong_kept": [sum(wrong_meaning), len(wrong_meaning)],
                         "relations": dict(Counter(relations)), "cells": dict(sorted(cells.items())),
                         # how well min(p_e(s→o), p_e(o→s)) ranks right above wrong, whatever the threshold
                         "auc_right_vs_wrong": auc(both, [r["right"] for r in rows]),
                         "auc_right_vs_meaning_wrong": auc(
                             [b for b, r in zip(both, rows, strict=True) if r["right"] or r["kind"] == "meaning"],
                             [r["right"] for r in rows if r["right"] or r["kind"] == "meaning"])}
    return out


def markdown(result: dict[str, Any]) -> str:
    lines = ["| judge | SICK trial acc. | RTE dev acc. | MRPC val kept: precision / recall | STS-B dev kept: "
             "precision / recall / mean score | judged right kept | judged wrong kept (meaning) | "
             "judged: ROC AUC right vs wrong (vs meaning wrong) | pairs/s |",
             "|---|---:|---:|---|---|---|---|---|---:|"]
    for spec, r in result["judges"].items():
        j = r.get("judged")
        right = f"{j['right_kept'][0]}/{j['right_kept'][1]}" if j else "–"
        wrong = (f"{j['wrong_kept'][0]}/{j['wrong_kept'][1]} "
                 f"({j['meaning_wrong_kept'][0]}/{j['meaning_wrong_kept'][1]})") if j else "–"
        m, s = r["mrpc_val"], r["stsb_dev"]
        roc = f"{j['auc_right_vs_wrong']} ({j['auc_right_vs_meaning_wrong']})" if j else "–"
        name = result["names"].get(spec, spec)
        lines.append(f"| {name} | {r['sick_trial_accuracy']:.3f} | {r['rte_dev_accuracy']:.3f} | "
                     f"{m['precision']:.3f} / {m['recall']:.3f} | {s['precision']:.3f} / {s['recall']:.3f} / "
                     f"{s['mean_score_kept']:.2f} | {right} | {wrong} | {roc} | {r['pairs_per_second']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--judges", default="minilm-nli", help="comma-separated judge specs (minilm-nli:FOLDER, …)")
    parser.add_argument("--names", default="", help="comma-separated names for the table, in --judges order")
    parser.add_argument("--work", type=Path, default=None, help="folder of judged run stores (generators.py --work)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "nli-judges.json")
    args = parser.parse_args()
    for path in [SICK_TRIAL, *RTE, MRPC_VAL, STSB_DEV]:
        if not path.is_file():
            sys.exit(f"missing {path} (set PARASPAN_SHARED to the shared data folder)")
    specs = [s for s in args.judges.split(",") if s]
    names = dict(zip(specs, [n for n in args.names.split(",") if n], strict=False))
    start = time.perf_counter()
    rows = judged_rows(args.work) if args.work else []
    result: dict[str, Any] = {"names": names, "judged_rows": len(rows), "judges": {}}
    for spec in specs:
        result["judges"][spec] = measure(spec, args.threads, rows)
        print(f"{spec}: {json.dumps({k: v for k, v in result['judges'][spec].items() if k != 'judged'})}",
              file=sys.stderr, flush=True)
    result["meta"] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python " + " ".join(["benchmarks/nli_judges.py", *sys.argv[1:]]),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
        "threads": args.threads, "load_average": [round(x, 2) for x in os.getloadavg()],
        "seconds": round(time.perf_counter() - start, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(markdown(result))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
