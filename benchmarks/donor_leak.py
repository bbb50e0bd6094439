"""Donors from outside the subset: how many of the names (or name tokens) that token or mention
replacement put into a training subset's outputs are not in that subset.

The downstream harness gives a learner a subset of the gold sentences and the outputs made from
them. The baselines' papers draw replacements from that same subset, so an inserted mention
should be one the subset already holds. This check reads a run store and compares each output's
entity spans with its source's and with the subset's, independently of the generator's pool: an
inserted ``(text, label)`` absent from the subset came from elsewhere (another subset sharing
the store, or a pool that outlived its subset).

    python benchmarks/donor_leak.py STORE.db --task ner_wnut17 --percent 10 --seeds 0-9 --mode mention \\
        --name wnut17-mention-10-shared --output benchmarks/results/donor-leak.json

Each ``--name`` is one entry of the results file (merged with what it holds). ``--shared``: the
folder of ``../shared`` (the corpora; the subsets are drawn as ``benchmarks/downstream.py`` draws them).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from _common import machine

RESULTS = Path(__file__).resolve().parent / "results"


def seeds_of(text: str) -> list[int]:
    """``0-9`` or ``0,1,2``."""
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def units(sentence, mode: str) -> set[tuple[str, str]]:
    """The sentence's entity mentions (``mention``) or the tokens of them (``token``), with labels."""
    out: set[tuple[str, str]] = set()
    for structure in sentence.structures:
        if structure is None or structure.kind != "entity" or structure.anchor is None:
            continue
        text = structure.anchor.text_in(sentence.text)
        if mode == "mention":
            out.add((text, structure.label))
        else:
            out.update((token, structure.label) for token in text.split())
    return out


def outputs_by_input(store_path: Path) -> dict[str, list]:
    from paraspan.pipeline.store import RunStore

    store = RunStore.open(store_path, readonly=True)
    try:
        by_input: dict[str, list] = {}
        for record in store.iter_outputs(None):
            by_input.setdefault(record.input_id, []).append(record.sentence)
        return by_input
    finally:
        store.close()


def measure(store: str, train: list, percent: int, seeds: list[int], mode: str) -> list[dict]:
    """Per seed; ``store`` may hold ``{seed}`` (a store per subset)."""
    from paraspan.evaluate.downstream.data import sample_subset
    from paraspan.pipeline.run import distinct_outputs

    cache: dict[str, dict[str, list]] = {}
    rows = []
    for seed in seeds:
        path = store.format(seed=seed)
        if path not in cache:
            cache[path] = outputs_by_input(Path(path))
        by_input = cache[path]
        subset = sample_subset(train, percent, seed)
        held = set().union(*(units(s, mode) for s in subset))
        outputs = inserted = outside = carrying = 0
        for source in subset:
            # what the learner got: each labelled sentence once per source, as the harness reads it
            for output in distinct_outputs(by_input.get(source.id, [])):
                outputs += 1
                added = units(output, mode) - units(source, mode)
                foreign = [u for u in added if u not in held]
                inserted += len(added)
                outside += len(foreign)
                carrying += bool(foreign)
        rows.append({"seed": seed, "subset": len(subset), "outputs": outputs, "inserted": inserted,
                     "outside_subset": outside, "outside_share": round(outside / inserted, 4) if inserted else None,
                     "outputs_carrying_one": carrying})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", help="a run store (.db) of token_replace or mention_replace"
                        " ({seed} in it: one store per subset)")
    parser.add_argument("--task", choices=("ner", "ner_wnut17"), required=True, help="ner: WikiANN; ner_wnut17: WNUT17")
    parser.add_argument("--percent", type=int, required=True)
    parser.add_argument("--seeds", default="0-2", help="0-9 or 0,1,2 (default 0-2)")
    parser.add_argument("--mode", choices=("mention", "token"), required=True)
    parser.add_argument("--name", required=True, help="the entry's name in the results file")
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--output", type=Path, default=RESULTS / "donor-leak.json")
    args = parser.parse_args(argv)
    for seed in seeds_of(args.seeds):
        if not Path(args.store.format(seed=seed)).is_file():
            print(f"{args.store.format(seed=seed)}: no such run store — give the .db a downstream run wrote"
                  " (--store-dir)", file=sys.stderr)
            return 2

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from downstream import load_task

    train, _, _ = load_task("ner", args.shared, "wnut17" if args.task == "ner_wnut17" else "wikiann", False)
    rows = measure(args.store, train, args.percent, seeds_of(args.seeds), args.mode)
    inserted = sum(r["inserted"] for r in rows)
    outside = sum(r["outside_subset"] for r in rows)
    entry = {"task": args.task, "percent": args.percent, "mode": args.mode, "store": Path(args.store).name,
             "seeds": rows, "inserted": inserted, "outside_subset": outside,
             "outside_share": round(outside / inserted, 4) if inserted else None,
             "command": " ".join(["python benchmarks/donor_leak.py", *(argv if argv is not None else sys.argv[1:])]),
             "machine": machine()}
    data = json.loads(args.output.read_text()) if args.output.is_file() else {}
    data[args.name] = entry
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(data, indent=1) + "\n")
    for r in rows:
        print(f"{args.name} seed {r['seed']}: {r['outputs']} outputs, {r['inserted']} inserted {args.mode}s, "
              f"{r['outside_subset']} not in the subset ({100 * (r['outside_share'] or 0):.1f}%)")
    print(f"{args.name}: {outside} of {inserted} inserted {args.mode}s not in the subset "
          f"({100 * outside / max(inserted, 1):.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
