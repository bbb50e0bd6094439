"""Benchmark: NLI judges and the fine-grained relations built on them (issue #6).

Judges: ``minilm-nli`` (the shipped cross-encoder, trained on SICK train only) on every pair;
``llm`` (the default 1.5B GGUF, label words read from next-token logits) on a fixed random
subsample, because it runs ~1 judgement/s on one CPU thread; and their agreement on that
subsample (a pair counts when both judges give the same label, as the paper keeps only those).

Measured:

* **SICK trial** (500 pairs, 3-way accuracy): the proxy for held-out SICK test, which is not used;
* **RTE 1-3 dev** (1,767 pairs, 2-way: a judge says "entailment" when that is its top label,
  "not entailment" otherwise; RTE's gold does not tell neutral from contradiction);
* **MRPC val** (500 pairs): the paper's Table 10 check, the share of gold-positive paraphrases
  among pairs labelled ``equivalence`` (paper: 99.1% on MRPC), and the other relations' shares;
* **STS-B dev** (1,500 pairs, cross-encoder only): the STS-B row of Table 10, the mean gold
  similarity (0-5) of each relation (paper: ≡ 4.62, ⊏ 3.69, ⊐ 3.71, | 3.06, ∧ 1.19);
* **speed**: pairs per second for relabelling (each pair judged both ways), one CPU thread.

    .venv/bin/python benchmarks/relations.py                  # writes benchmarks/results/relations.json
    .venv/bin/python benchmarks/relations.py --llm-sample 0   # cross-encoder only (~1 min)
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import cpu_name

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PARASPAN_SHARED", ROOT.parent / "shared"))
SICK_TRIAL = SHARED / "data" / "nli" / "sick" / "SICK_trial.txt"
RTE = [SHARED / "data" / "nli" / "rte" / f"rte{i}_dev.xml" for i in (1, 2, 3)]
MRPC_VAL = SHARED / "data" / "paraphrase" / "mrpc" / "msr-para-val.tsv"
STSB_DEV = SHARED / "data" / "paraphrase" / "stsb" / "stsb-en-dev.csv"


def sample(items: list[Any], n: int, seed: int) -> list[Any]:
    if n >= len(items):
        return list(items)
    return random.Random(seed).sample(items, n)


def timed_judge(judge: Any, premises: list[str], hypotheses: list[str]) -> tuple[Any, float]:
    start = time.perf_counter()
    out = judge.judge(premises, hypotheses)
    return out, time.perf_counter() - start


def nli_scores(labels: list[str], gold: list[str]) -> dict[str, Any]:
    """3-way accuracy, per-gold-class recall and the confusion counts."""
    hits = sum(p == g for p, g in zip(labels, gold, strict=True))
    confusion = Counter(f"{g}->{p}" for p, g in zip(labels, gold, strict=True))
    recall = {c: round(sum(p == g == c for p, g in zip(labels, gold, strict=True)) / max(1, gold.count(c)), 4)
              for c in ("entailment", "neutral", "contradiction")}
    return {"n": len(gold), "accuracy": round(hits / max(1, len(gold)), 4), "recall": recall,
            "confusion": dict(sorted(confusion.items()))}


def rte_scores(labels: list[str], gold: list[str]) -> dict[str, Any]:
    pred = ["entailment" if p == "entailment" else "not_entailment" for p in labels]
    hits = sum(p == g for p, g in zip(pred, gold, strict=True))
    return {"n": len(gold), "accuracy": round(hits / max(1, len(gold)), 4),
            "predicted_entailment_share": round(pred.count("entailment") / max(1, len(pred)), 4)}


def agreement(a: list[str], b: list[str], gold: list[str], two_way: bool = False) -> dict[str, Any]:
    """Accuracy of the label on which both judges agree, and how many pairs that keeps."""
    if two_way:
        a = ["entailment" if x == "entailment" else "not_entailment" for x in a]
        b = ["entailment" if x == "entailment" else "not_entailment" for x in b]
    kept = [(x, g) for x, y, g in zip(a, b, gold, strict=True) if x == y]
    hits = sum(x == g for x, g in kept)
    return {"n": len(gold), "agreed": len(kept), "coverage": round(len(kept) / max(1, len(gold)), 4),
            "accuracy_on_agreed": round(hits / max(1, len(kept)), 4)}


def table10(pairs: list[Any], relations: list[Any], agreed_only: bool = False) -> dict[str, Any]:
    """Per relation: pairs and the share of MRPC gold-positive paraphrases (paper's Table 10)."""
    rows: dict[str, dict[str, Any]] = {}
    for pair, rel in zip(pairs, relations, strict=True):
        if agreed_only and rel.agree is not True:
            continue
        row = rows.setdefault(rel.relation, {"pairs": 0, "positive": 0})
        row["pairs"] += 1
        row["positive"] += int(pair.gold["paraphrase"])
    total = sum(r["pairs"] for r in rows.values())
    return {rel: {"pairs": r["pairs"], "share": round(r["pairs"] / max(1, total), 4),
                  "gold_positive": round(r["positive"] / r["pairs"], 4)} for rel, r in sorted(rows.items())}


def stsb_table(pairs: list[Any], relations: list[Any]) -> dict[str, Any]:
    """Per relation: pairs and mean gold similarity (the STS-B row of Table 10)."""
    rows: dict[str, list[float]] = {}
    for pair, rel in zip(pairs, relations, strict=True):
        rows.setdefault(rel.relation, []).append(float(pair.gold["similarity"]))
    return {rel: {"pairs": len(v), "share": round(len(v) / max(1, len(pairs)), 4),
                  "mean_similarity": round(sum(v) / len(v), 3)} for rel, v in sorted(rows.items())}


def run(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    torch.set_num_threads(args.threads)
    from paraspan.corpus.pairs import read_pair_file
    from paraspan.filter.judges import load_judge, packaged_weights, recipe_of
    from paraspan.filter.relations import relate

    sick = list(read_pair_file(SICK_TRIAL))
    rte = [p for path in RTE for p in read_pair_file(path)]
    mrpc = list(read_pair_file(MRPC_VAL))
    stsb = list(read_pair_file(STSB_DEV))
    say = (lambda msg: print(msg, file=sys.stderr, flush=True))  # noqa: E731

    result: dict[str, Any] = {"judges": {}, "agreement": {}}
    t0 = time.perf_counter()
    ce = load_judge("minilm-nli", threads=args.threads)
    load_ce = time.perf_counter() - t0
    ce_out: dict[str, Any] = {"load_seconds": round(load_ce, 2), "recipe": recipe_of(packaged_weights())}
    out, secs = timed_judge(ce, [p.s1 for p in sick], [p.s2 for p in sick])
    ce_sick = out.labels()
    ce_out["sick_trial"] = nli_scores(ce_sick, [p.gold["nli"] for p in sick])
    ce_out["sick_trial"]["judgements_per_second"] = round(len(sick) / secs, 1)
    out, secs = timed_judge(ce, [p.s1 for p in rte], [p.s2 for p in rte])
    ce_rte = out.labels()
    ce_out["rte_dev"] = rte_scores(ce_rte, [p.gold["nli2"] for p in rte])
    ce_out["rte_dev"]["truncated"] = int(out.truncated.sum())
    ce_out["rte_dev"]["judgements_per_second"] = round(len(rte) / secs, 1)
    start = time.perf_counter()
    ce_rel = relate([(p.s1, p.s2) for p in mrpc], [ce])
    secs = time.perf_counter() - start
    ce_out["mrpc_val"] = {"table10": table10(mrpc, ce_rel), "pairs_per_second": round(len(mrpc) / secs, 1)}
    ce_out["pairs_per_second"] = ce_out["mrpc_val"]["pairs_per_second"]
    ce_out["stsb_dev"] = {"table10": stsb_table(stsb, relate([(p.s1, p.s2) for p in stsb], [ce]))}
    result["judges"]["minilm-nli"] = ce_out
    say(f"minilm-nli: SICK trial {ce_out['sick_trial']['accuracy']:.3f}, RTE {ce_out['rte_dev']['accuracy']:.3f}, "
        f"MRPC equivalence positive {ce_out['mrpc_val']['table10'].get('equivalence', {}).get('gold_positive')}, "
        f"{ce_out['pairs_per_second']} pairs/s")

    n = args.llm_sample
    if n > 0:
        s_sick = sample(list(range(len(sick))), n, args.seed)
        s_rte = sample(list(range(len(rte))), n, args.seed + 1)
        s_mrpc = sample(list(range(len(mrpc))), n, args.seed + 2)
        t0 = time.perf_counter()
        llm = load_judge("llm", threads=args.threads)
        llm_out: dict[str, Any] = {"load_seconds": round(time.perf_counter() - t0, 2),
                                   "subsample": {"size": n, "seed": args.seed}}
        out, secs = timed_judge(llm, [sick[i].s1 for i in s_sick], [sick[i].s2 for i in s_sick])
        llm_sick = out.labels()
        gold = [sick[i].gold["nli"] for i in s_sick]
        llm_out["sick_trial"] = nli_scores(llm_sick, gold)
        llm_out["sick_trial"]["judgements_per_second"] = round(len(s_sick) / secs, 2)
        say(f"llm: SICK trial {llm_out['sick_trial']['accuracy']:.3f} ({secs:.0f}s)")
        ce_sub = [ce_sick[i] for i in s_sick]
        result["agreement"]["sick_trial"] = agreement(ce_sub, llm_sick, gold)
        result["agreement"]["sick_trial"]["minilm_accuracy_same_subsample"] = nli_scores(ce_sub, gold)["accuracy"]

        out, secs = timed_judge(llm, [rte[i].s1 for i in s_rte], [rte[i].s2 for i in s_rte])
        llm_rte = out.labels()
        gold = [rte[i].gold["nli2"] for i in s_rte]
        llm_out["rte_dev"] = rte_scores(llm_rte, gold)
        llm_out["rte_dev"]["truncated"] = int(out.truncated.sum())
        llm_out["rte_dev"]["judgements_per_second"] = round(len(s_rte) / secs, 2)
        say(f"llm: RTE {llm_out['rte_dev']['accuracy']:.3f} ({secs:.0f}s)")
        ce_sub = [ce_rte[i] for i in s_rte]
        result["agreement"]["rte_dev"] = agreement(ce_sub, llm_rte, gold, two_way=True)
        result["agreement"]["rte_dev"]["minilm_accuracy_same_subsample"] = rte_scores(ce_sub, gold)["accuracy"]

        sub = [mrpc[i] for i in s_mrpc]
        start = time.perf_counter()
        both = relate([(p.s1, p.s2) for p in sub], [ce, llm])  # ce first: its labels are reported
        secs = time.perf_counter() - start
        llm_rel = [_view(r, "llm") for r in both]
        llm_out["mrpc_val"] = {"table10": table10(sub, llm_rel)}
        llm_out["pairs_per_second"] = round(len(sub) / secs, 2)  # includes the (fast) cross-encoder
        result["agreement"]["mrpc_val"] = {
            "agreed": sum(r.agree is True for r in both), "n": len(both),
            "table10_agreed": table10(sub, both, agreed_only=True),
            "table10_minilm_same_subsample": table10(sub, [ce_rel[i] for i in s_mrpc]),
        }
        result["judges"]["llm"] = llm_out
        say(f"llm: MRPC done ({secs:.0f}s)")
    return result


def _view(rel: Any, name: str) -> Any:
    """The relation as one judge saw it (for per-judge Table 10)."""
    from paraspan.filter.relations import PairRelation

    view = rel.judges.get(name)
    if view is None:  # identical or empty: no judge was asked
        return rel
    return PairRelation(view.forward, view.backward, view.p_forward, view.p_backward, view.relation, None, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--llm-sample", type=int, default=100, help="pairs per data set for the LLM judge (0: skip)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads (torch and llama.cpp)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "relations.json")
    args = parser.parse_args()
    for path in [SICK_TRIAL, *RTE, MRPC_VAL, STSB_DEV]:
        if not path.is_file():
            sys.exit(f"missing {path} (set PARASPAN_SHARED to the shared data folder)")
    start = time.perf_counter()
    result = run(args)
    result["meta"] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": "python " + " ".join([Path(sys.argv[0]).as_posix().split("/main/")[-1], *sys.argv[1:]]),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
        "threads": args.threads,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - start, 1),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in result.items() if k != "judges"}, indent=2))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
