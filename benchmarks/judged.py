"""Judged precision: the share of written outputs a person judged fully correct.

Each run is ``NAME=OUTPUTS,JUDGMENTS.jsonl``: the outputs as written (``-o`` of `paraspan
augment`) or the run store (``STORE.db``: every output the review app may draw), and the judgments
exported by `paraspan judgments` (score 0–100, ≥ 50 = correct: the sentence is English, it
means what its source means, and every span and label is right; the note says what was wrong
first — "meaning: …", "frame: …", "span: …", "grammar: …").

    python benchmarks/judged.py demo-before=benchmarks/results/judged/demo-before.outputs.jsonl,\
benchmarks/results/judged/demo-before.judgments.jsonl demo-after=...

writes ``benchmarks/results/judged.json``: per run, outputs, judged, correct, precision (with a
Wilson 95% interval), precision per iteration, the failure kinds, and how many source
structures have at least one correct output.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter, defaultdict
from pathlib import Path

from _common import machine

RESULTS = Path(__file__).resolve().parent / "results"

KINDS = ("frame", "meaning", "span", "label", "grammar", "fluency")


def wilson(k: int, n: int, z: float = 1.96) -> list[float]:
    if n == 0:
        return [0.0, 0.0]
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # clamped, and + 0.0 so that 0 of n reads "0%", not "-0%" (rounding leaves a negative zero)
    return [round(max(0.0, centre - half), 4) + 0.0, round(min(1.0, centre + half), 4) + 0.0]


def read_outputs(outputs: Path) -> dict[str, dict]:
    """The outputs by id, from a JSON-lines file or, for a ``.db`` path, a run store: every output it
    holds. The review app draws outputs, one per structure, while `paraspan export` writes one per
    sentence, so an entity run's judgments of a sentence's second mention are only in the store."""
    if outputs.suffix == ".db":
        from paraspan.pipeline.store import RunStore

        with RunStore.open(outputs, readonly=True) as store:
            return {r.id: {"id": r.id, "source_id": r.sentence.source_id, "provenance": r.sentence.provenance or {}}
                    for r in store.iter_outputs()}
    rows = {}
    for line in outputs.read_text(encoding="utf-8").splitlines():
        data = json.loads(line)
        rows[data["id"]] = data
    return rows


def score_run(outputs: Path, judgments: Path) -> dict:
    rows = read_outputs(outputs)
    scores: dict[str, list[float]] = defaultdict(list)
    notes: dict[str, list[str]] = defaultdict(list)
    for line in judgments.read_text(encoding="utf-8").splitlines():
        j = json.loads(line)
        scores[j["output_id"]].append(float(j["score"]))
        if j.get("note"):
            notes[j["output_id"]].append(j["note"])
    judged = [oid for oid in rows if oid in scores]
    # a judgment of an output the file lacks is not counted: say so, so a short count is seen
    unmatched = sorted(set(scores) - set(rows))
    correct = [oid for oid in judged if sum(scores[oid]) / len(scores[oid]) >= 50]
    per_iteration: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for oid in judged:
        it = int((rows[oid].get("provenance") or {}).get("iteration", 0))
        per_iteration[it][0] += oid in correct
        per_iteration[it][1] += 1
    kinds: Counter[str] = Counter()
    for oid in judged:
        if oid in correct:
            continue
        head = " ".join(notes[oid]).split(":", 1)[0].lower()
        for kind in KINDS:
            if re.search(rf"\b{kind}\b", head):
                kinds[kind] += 1
    structures = {(rows[o]["source_id"], rows[o]["provenance"].get("structure")) for o in rows}
    covered = {(rows[o]["source_id"], rows[o]["provenance"].get("structure")) for o in correct}
    return {
        "outputs": len(rows), "judged": len(judged), "correct": len(correct),
        "precision": round(len(correct) / len(judged), 4) if judged else None,
        "precision_ci95": wilson(len(correct), len(judged)),
        "per_iteration": {str(k): {"correct": v[0], "judged": v[1]} for k, v in sorted(per_iteration.items())},
        "wrong_by_kind": dict(kinds),
        "structures_with_an_output": len(structures), "structures_with_a_correct_output": len(covered),
        "unmatched_judgments": len(unmatched),
        "outputs_file": str(outputs), "judgments_file": str(judgments),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", nargs="+", help="NAME=OUTPUTS.jsonl,JUDGMENTS.jsonl")
    ap.add_argument("--out", type=Path, default=RESULTS / "judged.json")
    args = ap.parse_args()
    results = json.loads(args.out.read_text()) if args.out.is_file() else {}
    for spec in args.runs:
        name, _, files = spec.partition("=")
        outputs, _, judgments = files.partition(",")
        results[name] = score_run(Path(outputs), Path(judgments))
        r = results[name]
        print(f"{name}: {r['correct']} of {r['judged']} judged outputs correct ({r['precision']:.1%}, "
              f"95% CI {r['precision_ci95'][0]:.0%}–{r['precision_ci95'][1]:.0%}); wrong by kind "
              f"{r['wrong_by_kind']}; {r['structures_with_a_correct_output']} of "
              f"{r['structures_with_an_output']} structures with an output have a correct one")
        if r["unmatched_judgments"]:
            print(f"  {name}: {r['unmatched_judgments']} judgment(s) of outputs not in {outputs}, not counted — "
                  "give the run store (STORE.db) to count every output the review app drew")
    results["_meta"] = {"machine": machine(), "command": "python benchmarks/judged.py " + " ".join(args.runs)}
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
