"""Benchmark of the rewrite generator (issue 7) on Universal PropBank EWT.

Only the EWT dev file is in ../shared (the test half is held out), so it is split by *document*
(SHA-1 of the document id): 60% "train" (base tagger + SVM samples), 20% "dev" (keep threshold),
20% "test" (measured here, never tuned on). Steps:

1. refinement (Algorithm 1) on train with dev: SVM cross-validated F1/AUC per rule family
   (the paper's Table 7), the dev threshold sweep, the kept rules → a refined rules file;
2. on test, with every rule and with the kept rules: rewrites per sentence per family, distinct
   rules used, share of structures / arguments that survive projection, outputs with a label the
   source lacked (must be 0), sentences/second (parse + rewrite + project, CPU time).

    .venv/bin/python benchmarks/rewrite.py            # ~10-15 min on 2 shared cores
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cpu_seconds, load_average, machine, peak_rss_mb  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"


def split_by_document(sentences: list[Any]) -> dict[str, list[Any]]:
    parts: dict[str, list[Any]] = {"train": [], "dev": [], "test": []}
    for s in sentences:
        bucket = int(hashlib.sha1(s.id.rsplit("-", 1)[0].encode()).hexdigest(), 16) % 10
        parts["train" if bucket < 6 else "dev" if bucket < 8 else "test"].append(s)
    return parts


def labels(sentence: Any) -> set[tuple[str, str, str | None]]:
    found: set[tuple[str, str, str | None]] = set()
    for st in sentence.structures:
        found.add((st.kind, st.label, st.anchor.label if st.anchor else None))
        found.update((st.kind, st.label, a.label) for a in st.args)
    return found


def measure(rules: Any, test: list[Any], nlp: Any) -> dict[str, Any]:
    from paraspan.generate.rewrite import Rewriter

    rewriter = Rewriter(rules, nlp=nlp)
    family = {r.name: r.family for r in rules.rules}
    by_id = {s.id: s for s in test}
    wall, cpu = time.perf_counter(), cpu_seconds()
    outputs = list(rewriter.rewrite_corpus(test))
    wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
    per_family: Counter = Counter()
    per_rule: Counter = Counter()
    bad_labels = kept = source_structures = args_kept = args_source = 0
    for out in outputs:
        source = by_id[out.source_id]
        rule = out.provenance["rules"][0]
        per_rule[rule] += 1
        per_family[family[rule]] += 1
        bad_labels += not labels(out) <= labels(source)
        kept += len(set(out.provenance["structures_from"]))  # a labelled copy of a mention is no second structure kept
        source_structures += len(source.structures)
        args_kept += sum(len(st.args) for st in out.structures)
        args_source += sum(len(source.structures[k].args) for k in out.provenance["structures_from"])
    n = len(test)
    counts = rewriter.counts
    raw_kept = counts["structure_kept"]
    raw_all = raw_kept + counts["structure_dropped_anchor_lost"] + counts["structure_dropped_anchor_split"]
    return {
        "rules": len(rules), "sentences": n, "rewrites": len(outputs), "rewrites_per_sentence": len(outputs) / n,
        "sentences_with_a_rewrite": len({o.source_id for o in outputs}) / n,
        "distinct_rules_used": len(per_rule), "rules_with_3_or_more": sum(1 for c in per_rule.values() if c >= 3),
        "per_family": {f: {"rewrites": c, "per_sentence": round(c / n, 4)} for f, c in sorted(per_family.items())},
        "top_rules": dict(per_rule.most_common(15)),
        "structure_survival_emitted": kept / source_structures if source_structures else None,
        "structure_survival_all_candidates": raw_kept / raw_all if raw_all else None,
        "arg_survival_in_kept_structures": args_kept / args_source if args_source else None,
        "outputs_with_a_new_label": bad_labels,
        "sentences_per_second_wall": n / wall, "sentences_per_second_cpu": n / cpu if cpu else None,
        "counts": {k: v for k, v in sorted(counts.items())},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ewt", type=Path, default=SHARED / "data/srl/up-english-ewt/en_ewt-up-dev.conllu")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/rewrite.json")
    parser.add_argument("--rules-out", type=Path, default=ROOT / "src/paraspan/generate/rewrite/data/refined-ewt.json")
    parser.add_argument("--train-limit", type=int, default=None, help="Use only the first N train sentences.")
    parser.add_argument("--refine-max-per-sentence", type=int, default=3,
                        help="Rewrites per train sentence for the SVM samples (spread over rules; keeps tuning fast).")
    parser.add_argument("--quantiles", type=int, default=2, help="Weight quantiles tried as thresholds.")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)
    from paraspan.corpus.formats import read_corpus
    from paraspan.generate.rewrite.refine import refine, result_to_json
    from paraspan.generate.rewrite.rules import RuleSet
    from paraspan.models import load_spacy

    started = datetime.now(timezone.utc)
    parts = split_by_document(list(read_corpus(args.ewt, "conllu-srl")))
    train = parts["train"][: args.train_limit] if args.train_limit else parts["train"]
    nlp = load_spacy()
    rules = RuleSet.default()
    t0 = time.perf_counter()
    result = refine(train, parts["dev"], rules, nlp=nlp, max_per_sentence=args.refine_max_per_sentence,
                    n_quantiles=args.quantiles)
    refine_seconds = time.perf_counter() - t0
    data = result_to_json(result, rules, sources={"train": "EWT dev, document split 60% (benchmarks/rewrite.py)",
                                                   "dev": "EWT dev, document split 20%", "sentences": len(train)})
    args.rules_out.parent.mkdir(parents=True, exist_ok=True)
    args.rules_out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    refined = RuleSet.from_file(args.rules_out)
    print(f"refined in {refine_seconds:.0f}s: kept {len(refined)}/{len(rules)}", file=sys.stderr)

    test = parts["test"]
    all_rules = measure(rules, test, nlp)
    kept_rules = measure(refined, test, nlp) if len(refined) else None
    per_kind = Counter(r.kind for r in rules.rules)
    report = {
        "date": started.strftime("%Y-%m-%d %H:%M UTC"), "machine": machine(), "load_average_end": load_average(),
        "command": " ".join(["python", "benchmarks/rewrite.py", *sys.argv[1:]]),
        "refine_max_per_sentence": args.refine_max_per_sentence, "split": {k: len(v) for k, v in parts.items()},
        "train_used": len(train),
        "rules": {"hand": per_kind["hand"], "learned": per_kind["learned"]},
        "refinement": {"seconds": round(refine_seconds, 1), "samples": len(result.samples),
                       "positive": sum(s.positive for s in result.samples), "svm_c": result.c,
                       "cv_per_family": result.cv, "base_tagger_dev": result.base_dev,
                       "tuning": data["tuning"], "threshold": data["threshold"], "kept": len(refined)},
        "test_all_rules": all_rules, "test_kept_rules": kept_rules, "peak_rss_mb": round(peak_rss_mb()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: report[k] for k in ("split", "refinement")}, indent=1)[:4000])
    for name in ("test_all_rules", "test_kept_rules"):
        r = report[name]
        if r:
            print(name, {k: r[k] for k in ("rules", "rewrites_per_sentence", "distinct_rules_used",
                                           "structure_survival_emitted", "outputs_with_a_new_label",
                                           "sentences_per_second_cpu")})


if __name__ == "__main__":
    main()
