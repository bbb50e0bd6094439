"""Benchmark: span aligners side by side on the MultiMWA dev span tasks (issue #4).

Aligners: ``discriminative`` (the shipped head on MiniLM), ``ibm2`` (EM on the dev pairs plus
the train span tasks' sentence pairs as extra bitext), ``argmax`` (SimAlign-style, its default
middle layer) and ``argmax-last`` (the same on MiniLM's last layer: the issue's reference point,
about 73 exact F1 on MTRef). Sets: ``mtref-dev`` and ``wiki-dev`` span tasks from ../shared.

Each (aligner, set) runs in its own process so that peak memory (max RSS) is its own; tasks per
second count the alignment only (the model load is reported apart), on ``--threads`` threads.
None of the numbers were used to choose anything: the head's epoch and threshold, and the
argmax thresholds and layer, were chosen on the train span tasks.

    .venv/bin/python benchmarks/alignment.py            # writes benchmarks/results/alignment.json
    .venv/bin/python benchmarks/alignment.py --readme   # ... and the "## Alignment" table in README.md

``--calibrate`` instead recomputes the aligner-score thresholds of the ``align-p95`` /
``align-p99`` filter presets (:mod:`paraspan.filter.thresholds`): the lowest score at which the
exact-match precision of the shipped aligner's predictions on the dev span tasks reaches 95% /
99% (:mod:`paraspan.align.calibrate`), over all tasks and over the copy-free ones. About a minute
on 2 cores; ``--predictions FILE ...`` calibrates from ``paraspan align`` output instead.

    .venv/bin/python benchmarks/alignment.py --calibrate   # writes results/alignment-calibration.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from _common import cpu_name, cpu_seconds, load_average

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PARASPAN_SHARED", ROOT.parent / "shared"))
TASKS = SHARED / "data" / "alignment" / "span-tasks"
ALIGNERS = ("discriminative", "ibm2", "argmax", "argmax-last")
SETS = ("mtref-dev", "wiki-dev")
ARGMAX_LAST_THRESHOLD = 0.70  # tuned on the train span tasks for the last layer, like the default's


def build(name: str, threads: int, head: str | None) -> Any:
    from paraspan.align.base import get_aligner

    if name == "discriminative":
        return get_aligner("discriminative", head=head, threads=threads)
    if name == "ibm2":
        return get_aligner("ibm2", bitext=[TASKS / "mtref-train.jsonl", TASKS / "wiki-train.jsonl"])
    if name == "argmax":
        return get_aligner("argmax", threads=threads)
    if name == "argmax-last":
        return get_aligner("argmax", threads=threads, layer=-1, threshold=ARGMAX_LAST_THRESHOLD)
    raise SystemExit(f"unknown aligner {name}")


def worker(name: str, split: str, threads: int, head: str | None) -> dict[str, Any]:
    """Align one task file with one aligner; scores, speed and peak memory of this process."""
    import resource

    import torch

    from paraspan.align.tasks import prediction_record, read_task_lines
    from paraspan.evaluate.alignment import AlignmentEvaluator

    torch.set_num_threads(threads)
    lines = read_task_lines(TASKS / f"{split}.jsonl")
    load_before = load_average()[0]
    start = time.perf_counter()
    aligner = build(name, threads, head)
    loaded = time.perf_counter()
    cpu_start = cpu_seconds()
    results = aligner.align([t.task for t in lines])
    seconds = time.perf_counter() - loaded
    cpu = cpu_seconds() - cpu_start
    scores = AlignmentEvaluator()(prediction_record(t, r) for t, r in zip(lines, results, strict=True))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "aligner": name, "set": split, "tasks": len(lines), "scores": {k: round(v, 2) for k, v in scores.items()},
        "seconds": round(seconds, 2), "load_seconds": round(loaded - start, 2),
        "tasks_per_second": round(len(lines) / seconds, 1), "cpu_seconds": round(cpu, 2),
        # CPU time counts all threads: on a loaded machine it is the steadier measure of the work.
        "tasks_per_cpu_second": round(len(lines) / max(cpu, 1e-9), 1), "peak_rss_mb": round(peak_mb, 0),
        "load_average": [load_before, load_average()[0]],
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| aligner | set | exact F1 all | exact F1 non-identical | soft F1 all | soft F1 non-identical "
            "| exact P / R all | tasks/s | tasks/CPU-s | peak RSS MB |\n"
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
    body = ""
    for r in rows:
        s = r["scores"]
        body += (f"| {r['aligner']} | {r['set']} | {s['all_exact_f1']:.1f} | {s['non_identical_exact_f1']:.1f} | "
                 f"{s['all_soft_f1']:.1f} | {s['non_identical_soft_f1']:.1f} | "
                 f"{s['all_exact_precision']:.1f} / {s['all_exact_recall']:.1f} | {r['tasks_per_second']:.0f} | "
                 f"{r.get('tasks_per_cpu_second', float('nan')):.0f} | {r['peak_rss_mb']:.0f} |\n")
    return head + body


GENERATED_END = "<!-- end of the generated alignment table; notes below are kept -->"


def update_readme(path: Path, section: str) -> None:
    """Replace (or append) the generated part of the ``## Alignment`` section.

    Other sections are left as they are, and so are hand-written notes after ``GENERATED_END``.
    """
    text = path.read_text(encoding="utf-8") if path.exists() else (
        "# Benchmarks\n\nMeasured results of paraspan's components; each section says how to reproduce it.\n")
    section = section.rstrip("\n") + "\n\n" + GENERATED_END + "\n"
    start = text.find("\n## Alignment\n")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        end = text.find("\n## ", start + 1)
        end = len(text) if end == -1 else end + 1
        old = text[start + 1:end]
        kept = old.split(GENERATED_END, 1)[1].lstrip("\n") if GENERATED_END in old else ""
        text = text[:start + 1] + section + ("\n" + kept if kept else "\n") + text[end:]
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def calibrate_main(args: argparse.Namespace) -> None:
    """The ``align-p95`` / ``align-p99`` thresholds from the dev span tasks (see the module doc)."""
    import hashlib

    from paraspan.align.calibrate import SUBSETS, calibrate, precision_at
    from paraspan.align.tasks import prediction_record, read_task_lines

    targets = tuple(float(t) for t in args.targets.split(","))
    records: list[dict[str, Any]] = []
    sources: list[str] = []
    if args.predictions:
        for path in args.predictions:
            records += [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line]
            sources.append(os.path.relpath(path, ROOT))
        head_sha = None
    else:
        import torch

        torch.set_num_threads(args.threads)
        aligner = build("discriminative", args.threads, args.head)
        for split in args.sets.split(","):
            lines = read_task_lines(TASKS / f"{split}.jsonl")
            results = aligner.align([t.task for t in lines])
            records += [prediction_record(t, r) for t, r in zip(lines, results, strict=True)]
            sources.append(os.path.relpath(TASKS / f"{split}.jsonl", ROOT))
        if args.head:
            head_path = Path(args.head)
        else:
            from importlib.resources import files

            from paraspan.align.discriminative import DEFAULT_HEAD

            head_path = Path(str(files("paraspan.align") / "data" / DEFAULT_HEAD))
        head_sha = hashlib.sha256(head_path.read_bytes()).hexdigest()
    out: dict[str, Any] = {
        "date": dt.date.today().isoformat(), "command": "python benchmarks/alignment.py " + " ".join(sys.argv[1:]),
        "sources": sources, "aligner": "discriminative", "head_sha256": head_sha, "tasks": len(records),
        "rule": "threshold = the lowest aligner score s at which the predictions scoring >= s (non-null ones) "
                f"reach the target exact-match precision, with >= {args.min_support} predictions kept; "
                "floored to 4 decimals",
        "subsets": {},
    }
    for subset in SUBSETS:
        cals = calibrate(records, targets, subset=subset, min_support=args.min_support)
        out["subsets"][subset] = [c.to_dict() for c in cals]
        for c in cals:
            shown = (f"aligner >= {c.threshold:.4f}: {c.kept} of {c.predictions} kept, precision {c.precision:.4f}"
                     if c.threshold is not None else
                     f"not reached (best {c.best_precision:.4f} at aligner >= {c.best_threshold})")
            print(f"{subset:10s} precision {c.target:.2f}: {shown}")
    chosen = {c["target"]: c["threshold"] for c in out["subsets"]["all"]}
    out["chosen_thresholds_on_copy_free"] = {
        str(t): dict(zip(("kept", "precision"), precision_at(records, th, subset="copy_free"), strict=True))
        for t, th in chosen.items() if th is not None}
    args.calibration_out.parent.mkdir(parents=True, exist_ok=True)
    args.calibration_out.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.calibration_out}")
    for t, th in chosen.items():
        print(f"ALIGN_P{round(t * 100)} = {th}  # for src/paraspan/filter/thresholds.py")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--aligners", default=",".join(ALIGNERS))
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--head", default=None, help="discriminative: a head file (default: the shipped one)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "alignment.json")
    parser.add_argument("--readme", action="store_true", help="update the ## Alignment table in benchmarks/README.md")
    parser.add_argument("--worker", nargs=2, metavar=("ALIGNER", "SET"), help=argparse.SUPPRESS)
    parser.add_argument("--calibrate", action="store_true",
                        help="recompute the align-p95/align-p99 thresholds of the filter presets (discriminative)")
    parser.add_argument("--targets", default="0.95,0.99", help="--calibrate: precision targets")
    parser.add_argument("--min-support", type=int, default=20, help="--calibrate: fewest predictions kept")
    parser.add_argument("--predictions", nargs="+", help="--calibrate: `paraspan align` outputs (no aligner run)")
    parser.add_argument("--calibration-out", type=Path,
                        default=ROOT / "benchmarks" / "results" / "alignment-calibration.json")
    args = parser.parse_args()
    if args.calibrate:
        if not args.predictions and not TASKS.is_dir():
            raise SystemExit(f"{TASKS} is missing: set PARASPAN_SHARED to the shared data folder")
        calibrate_main(args)
        return
    if args.worker:
        print(json.dumps(worker(args.worker[0], args.worker[1], args.threads, args.head)))
        return
    if not TASKS.is_dir():
        raise SystemExit(f"{TASKS} is missing: set PARASPAN_SHARED to the shared data folder")
    rows: list[dict[str, Any]] = []
    for split in args.sets.split(","):
        for name in args.aligners.split(","):
            cmd = [sys.executable, __file__, "--worker", name, split, "--threads", str(args.threads)]
            if args.head:
                cmd += ["--head", args.head]
            proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"{name} on {split} failed:\n{proc.stderr[-3000:]}")
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            rows.append(row)
            s = row["scores"]
            print(f"{name:15s} {split:10s} exact F1 {s['all_exact_f1']:5.1f} (non-identical "
                  f"{s['non_identical_exact_f1']:5.1f})  soft F1 {s['all_soft_f1']:5.1f}  "
                  f"{row['tasks_per_second']:6.0f} tasks/s  {row['peak_rss_mb']:5.0f} MB  load {row['load_average']}",
                  flush=True)
    import torch

    from paraspan.align.discriminative import load_head

    _, head_config = load_head(args.head)
    meta = {
        "date": dt.date.today().isoformat(),
        "machine": f"{cpu_name()}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}",
        "python": platform.python_version(), "torch": torch.__version__, "threads": args.threads,
        "command": "python benchmarks/alignment.py " + " ".join(sys.argv[1:]),
        "head": {k: v for k, v in head_config.__dict__.items() if k != "info"} | {"info": head_config.info},
        "note": "dev sets were not used for any choice (epoch, thresholds, layer: train span tasks only)",
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"meta": meta, "results": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    md = table(rows)
    print(md)
    if args.readme:
        loads = sorted({x for r in rows for x in r["load_average"]})
        section = (
            "## Alignment\n\n"
            f"Span aligners on the MultiMWA dev span tasks (`../shared/data/alignment/span-tasks/`), "
            f"{meta['date']}, {meta['machine']}, torch {meta['torch']} on {args.threads} threads "
            f"(1-minute load average during the runs: {loads[0]:.1f}–{loads[-1]:.1f}).\n\n"
            f"    {meta['command'].strip()}\n\n" + md + "\n"
            "Exact F1 counts a wrong span as an fp and an fn, a predicted null on a gold span as an fn, a span on a "
            "gold null as an fp (see `paraspan.evaluate.alignment`). *non-identical*: tasks whose gold target text "
            "differs from the source span (gold nulls included). Tasks/s: alignment only, model load excluded "
            "(ibm2 includes its EM over the dev pairs + the train pairs). Nothing here was tuned on dev. "
            "Raw numbers: `benchmarks/results/alignment.json`.\n"
        )
        update_readme(ROOT / "benchmarks" / "README.md", section)


if __name__ == "__main__":
    main()
