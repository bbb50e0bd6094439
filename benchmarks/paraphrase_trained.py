"""Benchmark: a trained relation-conditioned paraphraser against the prompted LLM (issue 67).

Held-back dev sentences (the first sentence of pairs of MRPC validation and SICK trial, ``--per-set``
of each, drawn with a fixed seed) go through ``paraspan paraphrase --relation R`` for R in
equivalence, forward and reverse, once per system, with the same sampling and the same checks (the
direction's word check, then the NLI judge both ways):

* ``prompted``: the default chat LLM asked by instruction (``--rewrites off``: its free rewrites);
* ``trained``: ``--adapter ADAPTER`` (``paraspan train-generator --task paraphrase``);
* ``trained-wide``: the same adapter with three times the samples and no randomized bans (it is
  about ten times cheaper than the prompted 1.5B model per sample);
* ``rules``: the rule rewriter alone (``--rewrites only``: the simple baseline);
* ``trained+rules``: the rules first, the adapter for the sentences they leave short of ``--n``
  (``--adapter ADAPTER --rewrites first``).

Per system and relation it reports the share of input sentences with at least one delivered output
(coverage), the share of delivered outputs in the class by reading (from the judgments file), the
diversity of the delivered outputs against their source (corpus 1-BLEU, sentence-mean 1-BLEU, ∩/∪),
and the wall time; and the adapter's training cost from its card (tokens/s, seconds, examples).

Reading: ``--work`` gets ``read-SYSTEM-RELATION.jsonl`` with the first ``--read`` delivered outputs per
sentence; set ``"in_class"`` (true/false) and a ``"note"`` on each line. Those judgments are copied,
without sentences (ids, system, relation, rank and verdict only), to ``--judgments`` (committed); the
results JSON holds counts only, no corpus text.

    .venv/bin/python benchmarks/paraphrase_trained.py --work /tmp/para/bench --adapter /tmp/adapters/para-g1 \
        --mrpc ../shared/data/paraphrase/mrpc/msr-para-val.tsv --sick ../shared/data/nli/sick/SICK_trial.txt
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import load_average, machine  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
RELATIONS = ("equivalence", "forward", "reverse")
SYSTEMS = ("prompted", "trained", "trained-wide", "rules", "trained+rules")


def draw_inputs(mrpc: Path, sick: Path, per_set: int, seed: int) -> list[dict[str, str]]:
    """``per_set`` distinct first sentences from each corpus (ids ``mrpc:PAIR`` / ``sick:PAIR``)."""
    from paraspan.corpus.pairs import read_pair_file

    out: list[dict[str, str]] = []
    for name, path in (("mrpc", mrpc), ("sick", sick)):
        seen: dict[str, str] = {}
        for pair in read_pair_file(path):
            seen.setdefault(" ".join(pair.s1.split()), pair.id)
        texts = sorted(seen)
        for text in random.Random(seed).sample(texts, min(per_set, len(texts))):
            out.append({"id": f"{name}:{seen[text]}", "text": text})
    return out


def run(system: str, relation: str, inputs: Path, out: Path, args: argparse.Namespace) -> float:
    """One ``paraspan paraphrase`` run (skipped when its output exists); its wall time in seconds."""
    if out.exists():
        return float(json.loads(out.with_suffix(".time.json").read_text())["seconds"])
    command = [sys.executable, "-m", "paraspan", "paraphrase", str(inputs), "-o", str(out), "--relation", relation,
               "--n", str(args.n), "--samples", str(args.samples), "--constraint-sets", str(args.sets),
               "--candidates", str(args.samples * args.sets), "--threads", str(args.threads), "--workers", "1",
               "--parallel", str(args.samples * args.sets * 2), "--no-progress", "--seed", str(args.seed)]
    command += {"prompted": ["--model", args.model, "--rewrites", "off"],
                "rules": ["--model", args.model, "--rewrites", "only"],
                "trained+rules": ["--adapter", str(args.adapter), "--rewrites", "first"]}.get(
        system, ["--adapter", str(args.adapter)])
    if relation in ("forward", "reverse"):
        command += ["--direction-by", args.direction_by]
    if system == "trained-wide":  # the adapter is cheap: three times the samples, no random bans
        command += ["--samples", str(args.samples * 3), "--candidates", str(args.samples * args.sets * 3),
                    "--random-fraction", "0", "--parallel", str(args.samples * args.sets * 3)]
    started = time.perf_counter()
    subprocess.run(command, check=True, cwd=ROOT)
    seconds = time.perf_counter() - started
    out.with_suffix(".time.json").write_text(json.dumps({"seconds": round(seconds, 1), "command": command[2:]}))
    return seconds


def subset(inputs: Path, out: Path, per_set: int) -> Path:
    """The first ``per_set`` inputs of each set (the same sentences for every relation)."""
    if not out.exists():
        rows = [json.loads(line) for line in inputs.open(encoding="utf-8")]
        kept = [r for name in ("mrpc", "sick") for r in [r for r in rows if r["id"].startswith(name)][:per_set]]
        out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in kept), encoding="utf-8")
    return out


def read_sheet(work: Path, system: str, relation: str, records: list[dict[str, Any]], per: int) -> Path:
    """The reading sheet of a run (written once; judgments are set by hand)."""
    sheet = work / f"read-{system}-{relation}.jsonl"
    if not sheet.exists():
        with sheet.open("w", encoding="utf-8") as handle:
            for record in records:
                for rank, para in enumerate(record["paraphrases"][:per]):
                    handle.write(json.dumps({"id": record["id"], "rank": rank, "source": record["text"],
                                             "output": para["text"], "in_class": None, "note": ""},
                                            ensure_ascii=False) + "\n")
    return sheet


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--adapter", type=Path, required=True)
    parser.add_argument("--mrpc", type=Path, required=True)
    parser.add_argument("--sick", type=Path, required=True)
    parser.add_argument("--per-set", type=int, default=15)
    parser.add_argument("--systems", default=",".join(SYSTEMS))
    parser.add_argument("--relations", default=",".join(RELATIONS))
    parser.add_argument("--model", default="default")
    parser.add_argument("--n", type=int, default=3)
    parser.add_argument("--samples", type=int, default=4)
    parser.add_argument("--sets", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--direction-by", default="judges", choices=("judges", "words"),
                        help="forward, reverse: who tells the direction from equivalence (paraphrase --direction-by)")
    parser.add_argument("--read", type=int, default=1, help="delivered outputs per sentence to read")
    parser.add_argument("--prompted-per-set", type=int, default=None,
                        help="the prompted system on the first K inputs of each set only (it is ~10× slower)")
    parser.add_argument("--prompted-full", default="", help="relations the prompted system runs on every input")
    parser.add_argument("--judgments", type=Path,
                        default=ROOT / "benchmarks" / "results" / "judged" / "paraphrase_trained.judgments.jsonl")
    parser.add_argument("--output", type=Path, default=ROOT / "benchmarks" / "results" / "paraphrase_trained.json")
    parser.add_argument("--only-run", action="store_true", help="run the systems, write the sheets, stop")
    parser.add_argument("--report-only", action="store_true", help="report the runs that exist, run nothing")
    args = parser.parse_args()
    from paraspan.evaluate.diversity import diversity_report
    from paraspan.models.adapters import read_card

    args.work.mkdir(parents=True, exist_ok=True)
    inputs = args.work / "inputs.jsonl"
    if not inputs.exists():
        rows = draw_inputs(args.mrpc, args.sick, args.per_set, args.seed)
        inputs.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    n_inputs = sum(1 for _ in inputs.open(encoding="utf-8"))
    results: dict[str, Any] = {}
    verdicts: list[dict[str, Any]] = []
    for system in args.systems.split(","):
        for relation in args.relations.split(","):
            out = args.work / f"{system}-{relation}.jsonl"
            if args.report_only and not out.exists():
                continue
            given = inputs
            if system == "prompted" and args.prompted_per_set and relation not in args.prompted_full.split(","):
                given = subset(inputs, args.work / "inputs-prompted.jsonl", args.prompted_per_set)
            seconds = run(system, relation, given, out, args)
            records = [json.loads(line) for line in out.open(encoding="utf-8")]
            sheet = read_sheet(args.work, system, relation, records, args.read)
            if args.only_run:
                continue
            judged = [json.loads(line) for line in sheet.open(encoding="utf-8")]
            read = [j for j in judged if isinstance(j.get("in_class"), bool)]
            verdicts += [{"system": system, "relation": relation, "id": j["id"], "rank": j["rank"],
                          "in_class": j["in_class"], "note": j.get("note", "")} for j in read]
            div = diversity_report([(r["text"], [p["text"] for p in r["paraphrases"]]) for r in records],
                                   trees=False).to_dict()
            by_set = {name: sum(1 for r in records if str(r["id"]).startswith(name) and r["paraphrases"])
                      for name in ("mrpc", "sick")}
            results[f"{system}/{relation}"] = {
                "inputs": len(records), "with_output": sum(1 for r in records if r["paraphrases"]),
                "coverage": round(sum(1 for r in records if r["paraphrases"]) / max(1, len(records)), 3),
                "with_output_by_set": by_set,
                "delivered": sum(len(r["paraphrases"]) for r in records),
                "judged_candidates": sum(r.get("judged", {}).get("candidates", 0) for r in records),
                "word_check_rejected": sum(r.get("judged", {}).get("word_check", {}).get("rejected", 0)
                                           for r in records),
                "read": len(read), "read_in_class": sum(j["in_class"] for j in read),
                "read_share": round(sum(j["in_class"] for j in read) / len(read), 3) if read else None,
                "one_minus_bleu": div.get("one_minus_bleu"), "one_minus_bleu_sentence":
                    div.get("one_minus_bleu_sentence"), "intersection_over_union": div.get("intersection_over_union"),
                "seconds": round(seconds, 1), "seconds_per_input": round(seconds / max(1, len(records)), 2),
            }
    if args.only_run:
        return
    card = read_card(args.adapter)
    args.judgments.parent.mkdir(parents=True, exist_ok=True)
    args.judgments.write_text("".join(json.dumps(v) + "\n" for v in verdicts), encoding="utf-8")
    report = {
        "date": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "machine": machine(), "load_average": load_average(), "inputs": n_inputs,
        "settings": {k: getattr(args, k) for k in ("per_set", "n", "samples", "sets", "threads", "seed", "read",
                                                    "model", "direction_by")},
        "adapter": {k: card.get(k) for k in ("name", "base", "relation_counts", "examples", "steps", "epochs",
                                              "dev_loss", "trained_seconds", "tokens_per_second", "train_tokens",
                                              "device", "corpus")},
        "results": results,
    }
    args.output.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for key, row in results.items():
        print(f"{key:22s} coverage {row['with_output']}/{row['inputs']}  read {row['read_in_class']}/{row['read']}  "
              f"1-BLEU {row['one_minus_bleu']}  ∩/∪ {row['intersection_over_union']}  {row['seconds']} s")


if __name__ == "__main__":
    main()
