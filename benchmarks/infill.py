"""Benchmark: structure-conditioned generation (issue 8; Cui & Swayamdipta 2024, Table 1 and Appendix D).

On a fixed random sample of FrameNet 1.5 **dev** verb frame structures (MANUAL annotation sets with
a contiguous verb target, a sister verb LU and at least one candidate FE), for each conditioning
level (none, fe, frame+fe): sister-LU replacement + FE infilling with the default local LLM
(Qwen2.5-Coder-1.5B, one CPU thread), ``--candidates`` answers per structure, few-shot examples
drawn from FrameNet 1.5 *train* full text. Measured per level:

* FE fidelity of every parsed candidate (before filtering) and of the outputs kept by the strict
  filter (1.0 by construction, as in the paper), perplexity before/after, the share of structures
  with an output kept, unparseable answers, and structures per minute (wall and CPU);
* the "Human" reference row: the original sentences' perplexity and the classifier's agreement
  with the gold labels of the same candidate FEs (the paper's 0.979 for FN 1.7).

FE classifier accuracy (``--classifier``): on every dev span and, once, on the test split (the
target: >= 85% of test FE spans). Nothing here tunes on test.

    .venv/bin/python benchmarks/infill.py --sample 25                 # writes benchmarks/results/infill.json
    .venv/bin/python benchmarks/infill.py --sample 25 --classifier    # also dev/test classifier accuracy

Generated sentences are not written to the results (they are rewrites of FrameNet text).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from _common import cpu_seconds, load_average, machine, peak_rss_mb

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PARASPAN_SHARED", ROOT.parent / "shared"))
RELEASE = SHARED / "data" / "framenet" / "fndata-1.5.tar.gz"
SPLITS = SHARED / "data" / "framenet" / "fulltext-splits.json"

PAPER_TABLE1 = {  # FE fidelity before filtering, perplexity under Llama-2-7B (FrameNet 1.7)
    "human": {"fe_fidelity": 0.979, "perplexity": 78.1},
    "T5 none": {"fe_fidelity": 0.784, "perplexity": 139.3},
    "T5 fe": {"fe_fidelity": 0.862, "perplexity": 127.6},
    "T5 frame+fe": {"fe_fidelity": 0.882, "perplexity": 136.8},
    "GPT-4 none": {"fe_fidelity": 0.704, "perplexity": 114.9},
    "GPT-4 fe": {"fe_fidelity": 0.841, "perplexity": 106.3},
    "GPT-4 frame+fe": {"fe_fidelity": 0.853, "perplexity": 117.2},
}


def log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} {message}", file=sys.stderr, flush=True)


def mean(values: list[float]) -> float | None:
    return round(statistics.fmean(values), 4) if values else None


def eligible_structures(index: Any, sentences: list[Any], infiller: Any) -> list[Any]:
    """One single-structure Sentence per dev verb structure that the infiller can work on."""
    from paraspan.corpus.schema import Sentence

    out = []
    for sentence in sentences:
        for k, structure in enumerate(sentence.structures):
            if structure.kind != "frame" or structure.extra.get("status") != "MANUAL":
                continue
            one = Sentence(f"{sentence.id}#{k}", sentence.text, [structure], dict(sentence.meta))
            jobs, reason = infiller._jobs(one, structure)
            if reason is None and jobs:
                out.append(one)
    return out


def human_row(infiller: Any, items: list[Any]) -> dict[str, Any]:
    """Perplexity of the original sentences and the classifier's agreement with gold on the candidate FEs."""
    from paraspan.filter.fe_classifier import FEInstance
    from paraspan.generate.infill import candidate_fes

    instances = []
    for item in items:
        structure = item.structures[0]
        lu = (structure.anchor.start, structure.anchor.end)
        for span in candidate_fes(structure, infiller.frames, item.text, infiller._nlp_model()):
            instances.append(FEInstance(item.text, lu, (span.start, span.end), structure.label, span.label))
    preds = infiller.classifier.predict(instances, infiller.frames)
    agree = [p == i.label for (p, _), i in zip(preds, instances, strict=True)]
    ppl = [p for p in infiller._perplexities([i.text for i in items]) if p is not None]
    return {"fe_fidelity": mean([float(a) for a in agree]), "spans": len(instances),
            "perplexity_mean": mean(ppl), "perplexity_median": round(statistics.median(ppl), 2) if ppl else None}


def run_level(infiller: Any, items: list[Any]) -> dict[str, Any]:
    totals: Counter[str] = Counter()
    before_fid: list[float] = []
    before_ppl: list[float] = []
    after_fid: list[float] = []
    after_ppl: list[float] = []
    with_output = 0
    wall0, cpu0 = time.perf_counter(), cpu_seconds()
    for i, item in enumerate(items, 1):
        result = infiller.infill(item)
        totals.update(result.stats)
        for cand in result.candidates:
            before_fid.append(float(cand.provenance["fe_fidelity"]))
            if cand.provenance["perplexity"] is not None:
                before_ppl.append(float(cand.provenance["perplexity"]))
        for new in result.outputs:
            after_fid.append(float(new.provenance["fe_fidelity"]))
            if new.provenance["perplexity"] is not None:
                after_ppl.append(float(new.provenance["perplexity"]))
        with_output += bool(result.outputs)
        if i % 5 == 0:
            log(f"  {i}/{len(items)} structures, {with_output} with an output")
    wall, cpu = time.perf_counter() - wall0, cpu_seconds() - cpu0
    sampled = totals["sampled"]
    return {
        "structures": len(items),
        "sampled": sampled,
        "unparseable": totals["unparseable"],
        "unparseable_share": round(totals["unparseable"] / sampled, 4) if sampled else None,
        "unparseable_why": {k.split(": ", 1)[1]: v for k, v in sorted(totals.items())
                            if k.startswith("unparseable: ")},
        "parsed_candidates": totals["parsed"],
        "duplicates": totals["duplicate"],
        "copied_original_spans": totals["unchanged"],
        "fe_fidelity_before": mean(before_fid),
        "perplexity_before_mean": mean(before_ppl),
        "perplexity_before_median": round(statistics.median(before_ppl), 2) if before_ppl else None,
        "candidates_passing_filter": totals["passed_filter"],
        "candidate_pass_share": round(totals["passed_filter"] / totals["parsed"], 4) if totals["parsed"] else None,
        "fe_fidelity_after": mean(after_fid),
        "perplexity_after_mean": mean(after_ppl),
        "perplexity_after_median": round(statistics.median(after_ppl), 2) if after_ppl else None,
        "outputs_kept": len(after_fid),
        "share_kept": round(with_output / len(items), 4) if items else None,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "structures_per_minute_wall": round(len(items) / wall * 60, 2) if wall else None,
        "structures_per_minute_cpu": round(len(items) / cpu * 60, 2) if cpu else None,
    }


def classifier_accuracy(threads: int) -> dict[str, Any]:
    import tempfile

    from paraspan.filter.fe_classifier import FEClassifier
    from paraspan.filter.fe_train import evaluate_on_split

    cache = Path(tempfile.gettempdir()) / "paraspan-fe-features"
    head = FEClassifier.load()
    out: dict[str, Any] = {"head": head.info.get("recipe"), "train_spans": head.info.get("train_spans"),
                           "exemplar_spans": head.info.get("exemplar_spans"), "best_epoch": head.info.get("best_epoch")}
    for split in ("dev", "test"):
        log(f"classifier accuracy on {split}")
        out[split] = evaluate_on_split(None, RELEASE, SPLITS, split, cache_dir=cache, threads=threads, log=log)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sample", type=int, default=25, help="dev verb structures per conditioning level")
    parser.add_argument("--candidates", type=int, default=4)
    parser.add_argument("--levels", default="none,fe,frame+fe")
    parser.add_argument("--model", default="default")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classifier", action="store_true", help="also measure classifier accuracy on dev/test")
    parser.add_argument("--no-generation", action="store_true", help="only the classifier accuracy")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "infill.json")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.framenet import attach_phrase_types, read_framenet, read_phrase_types
    from paraspan.filter.fe_classifier import FEClassifier
    from paraspan.generate.infill import InfillConfig, Infiller
    from paraspan.llm.llama_backend import LlamaBackend

    started = time.perf_counter()
    results: dict[str, Any] = {
        "benchmark": "infill", "date": dt.date.today().isoformat(), "machine": machine(),
        "load_average_start": load_average(), "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "paper_table1": PAPER_TABLE1,
    }
    if not args.no_generation:
        index = FrameIndex.load(RELEASE)
        dev = list(read_framenet(RELEASE, split="dev", splits=SPLITS))
        with_pt = attach_phrase_types(dev, read_phrase_types(RELEASE))  # FrameNet's PT layer for criterion 3
        log(f"dev: {with_pt} FE spans carry a FrameNet phrase type")
        train = list(read_framenet(RELEASE, split="train", splits=SPLITS))
        backend = LlamaBackend.load(args.model, n_threads=args.threads, n_ctx=4096, max_parallel=8)
        classifier = FEClassifier.load()
        probe = Infiller(index, backend, classifier, InfillConfig(seed=args.seed), examples=train)
        pool = eligible_structures(index, dev, probe)
        items = random.Random(args.seed).sample(pool, min(args.sample, len(pool)))
        log(f"{len(pool)} eligible dev verb structures; sample {len(items)}")
        results.update({"model": backend.model_name, "threads": args.threads, "candidates": args.candidates,
                        "eligible_dev_structures": len(pool), "sample": len(items), "levels": {}})
        results["human"] = human_row(probe, items)
        log(f"human: {results['human']}")
        for level in args.levels.split(","):
            log(f"conditioning {level}")
            infiller = Infiller(index, backend, classifier, InfillConfig(conditioning=level, candidates=args.candidates,
                                                                         seed=args.seed), examples=train)
            infiller._nlp = probe._nlp
            results["levels"][level] = run_level(infiller, items)
            log(f"{level}: {results['levels'][level]}")
    if args.classifier:
        results["classifier"] = classifier_accuracy(args.threads)
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["peak_rss_mb"] = round(peak_rss_mb(), 1)
    results["load_average_end"] = load_average()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
