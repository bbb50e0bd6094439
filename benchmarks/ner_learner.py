"""The NER learner chosen on dev before any augmented run (issue 19): gold only, per setting.

For each setting of ``SpacyNerLearner`` (passes, update budget, weight averaging) and each subset
seed, gold only is trained twice: with the subset's seed and with another initialisation (seed +
1000) on the same sentences. The mean F1 says how well the setting learns; the gap between the two
initialisations is its own noise, the floor under any difference an augmenter can show. Results are
merged into ``--output`` (one entry per setting), so settings can run in separate processes.

    python benchmarks/ner_learner.py --settings e10,e20-gold,e20-gold-avg --percent 10 --seeds 0,1,2
    python benchmarks/ner_learner.py --table            # print the table of --output

Setting names: ``e<passes>`` (all: the passes over everything given), ``-gold`` (the updates of the
passes over the gold subset; the same as ``all`` for gold only, recorded for the choice), ``-avg``
(the running average of the weights is scored).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # 2 shared cores: spaCy/numpy must not take both

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import machine  # noqa: E402

OUTPUT = HERE / "results" / "downstream-ner-learner.json"
INIT_OFFSET = 1000


def parse_setting(name: str) -> dict[str, Any]:
    match = re.fullmatch(r"e(\d+)((?:-gold|-avg)*)", name)
    if not match:
        raise SystemExit(f"{name!r}: a setting is e<passes>[-gold][-avg], e.g. e20-avg")
    return {"epochs": int(match.group(1)), "budget": "gold" if "-gold" in match.group(2) else "all",
            "averages": "-avg" in match.group(2)}


def load(ner_set: str, shared: Path) -> tuple[list, list]:
    from paraspan.corpus.formats import read_corpus

    if ner_set == "wikiann":
        folder = shared / "data/ner/wikiann-en"
        return list(read_corpus(folder / "train", "bio")), list(read_corpus(folder / "dev", "bio"))
    folder = shared / "data/ner/wnut17"
    return (list(read_corpus(folder / "wnut17train.conll", "bio")),
            list(read_corpus(folder / "emerging.dev.conll", "bio")))


def summarise(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean F1 over every run, and the gap between the two initialisations of each subset."""
    f1 = [r["f1"] for r in runs]
    by_subset: dict[int, list[float]] = {}
    for r in runs:
        by_subset.setdefault(r["subset_seed"], []).append(r["f1"])
    gaps = [max(v) - min(v) for v in by_subset.values() if len(v) > 1]
    return {"mean_f1": round(statistics.fmean(f1), 2), "sd_f1": round(statistics.stdev(f1), 2) if len(f1) > 1 else None,
            "init_gap_mean": round(statistics.fmean(gaps), 2) if gaps else None,
            "init_gap_max": round(max(gaps), 2) if gaps else None, "runs": len(runs)}


def table(data: dict[str, Any]) -> str:
    lines = ["| data | % | setting | passes | budget | averaged | runs | mean F1 (sd) "
             "| gap between two inits: mean / max | s a run |", "|---|---:|---|---:|---|---|---:|---:|---:|---:|"]
    for _, entry in sorted(data.get("settings", {}).items()):
        s, summ = entry["setting"], entry["summary"]
        secs = statistics.fmean(r["seconds"] for r in entry["runs"])
        lines.append(f"| {entry['ner_set']} | {entry['percent']} | {entry['name']} | {s['epochs']} | {s['budget']} | "
                     f"{'yes' if s['averages'] else 'no'} | {summ['runs']} | {summ['mean_f1']:.1f} ({summ['sd_f1']}) | "
                     f"{summ['init_gap_mean']} / {summ['init_gap_max']} | {secs:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--settings", default="e10,e20-gold,e20-gold-avg")
    parser.add_argument("--percent", type=int, default=10)
    parser.add_argument("--seeds", default="0,1,2", help="subset seeds")
    parser.add_argument("--ner-set", choices=("wikiann", "wnut17"), default="wikiann")
    parser.add_argument("--shared", type=Path,
                        default=Path(os.environ.get("PARASPAN_SHARED", HERE.parent.parent / "shared")))
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--table", action="store_true")
    args = parser.parse_args()
    if args.table:
        print(table(json.loads(args.output.read_text())))
        return
    from paraspan.corpus.jsonl import atomic_write
    from paraspan.evaluate.downstream.data import sample_subset
    from paraspan.evaluate.downstream.ner import SpacyNerLearner

    settings = [(name, parse_setting(name)) for name in args.settings.split(",") if name]
    seeds = [int(s) for s in args.seeds.split(",")]
    train, dev = load(args.ner_set, args.shared)
    for name, setting in settings:
        learner = SpacyNerLearner(**setting)
        runs = []
        for seed in seeds:
            subset = sample_subset(train, args.percent, seed)
            for init in (seed, seed + INIT_OFFSET):
                result = learner.run(subset, {"dev": dev}, init)
                runs.append({"subset_seed": seed, "init_seed": init, "f1": result.f1("dev"),
                             "seconds": round(result.seconds, 1), "steps": result.info.get("steps")})
                print(f"{name} {args.percent}% subset {seed} init {init}: F1 {result.f1('dev')} "
                      f"({result.seconds:.0f}s)", file=sys.stderr, flush=True)
        # re-read before writing: another process may have added its settings meanwhile
        data = json.loads(args.output.read_text()) if args.output.is_file() else {}
        data.setdefault("settings", {})[f"{args.ner_set}-{args.percent}-{name}"] = {
            "name": name, "setting": setting, "ner_set": args.ner_set, "percent": args.percent,
            "summary": summarise(runs), "runs": runs, "machine": machine(),
            "date": datetime.date.today().isoformat(),
            "command": "python benchmarks/ner_learner.py " + " ".join(sys.argv[1:])}
        data["what"] = ("the spaCy NER learner, gold only, per setting: mean dev F1 and the gap between two "
                        "initialisations of each subset (the learner's own noise); chosen before any augmented run")
        with atomic_write(args.output, "w") as handle:
            handle.write(json.dumps(data, indent=1) + "\n")
    print(table(json.loads(args.output.read_text())))


if __name__ == "__main__":
    main()
