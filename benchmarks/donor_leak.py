"""Donors from outside the subset: how many of the names (or name tokens) that token or mention
replacement put into a training subset's outputs are not in that subset. For SRL and frame
identification the labelled spans are a predicate's or frame's arguments (frame elements).

The downstream harness gives a learner a subset of the gold sentences and the outputs made from
them. The baselines' papers draw replacements from that same subset, so an inserted mention
should be one the subset already holds. This check reads a run store and compares each output's
labelled spans with its source's and with the subset's, independently of the generator's pool: an
inserted ``(text, label)`` absent from the subset came from elsewhere (another subset sharing
the store, or a pool that outlived its subset).

    python benchmarks/donor_leak.py STORE.db --task ner_wnut17 --percent 10 --seeds 0-9 --mode mention \\
        --name wnut17-mention-10-shared --output benchmarks/results/donor-leak.json
    python benchmarks/donor_leak.py STORE_DIR --task srl --percent 10 --seeds 0-9 --mode token --name ...

A folder (a run's ``--store-dir``) is searched for each subset's store by the sentences it holds.

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


def _spans(structure) -> list[tuple[str, object]]:
    """The labelled spans replacement may change, read off the structure here rather than through
    the generator's code: an entity's mention, or a predicate's labelled arguments that do not
    overlap its anchor (the predicate or the frame's target stays)."""
    if structure is None:
        return []
    if structure.kind == "entity":
        return [(structure.label, structure.anchor)] if structure.anchor is not None else []
    anchor = structure.anchor
    return [(arg.label, arg) for arg in structure.args
            if arg.label and (anchor is None or not arg.overlaps(anchor))]


def units(sentence, mode: str) -> set[tuple[str, str, str]]:
    """The sentence's labelled spans (``mention``) or the words of them (``token``), with their
    structure kind and label. An argument's final punctuation is dropped (it may end a clause);
    a mention is kept whole ("Yahoo!")."""
    out: set[tuple[str, str, str]] = set()
    for structure in sentence.structures:
        for label, span in _spans(structure):
            text = span.text_in(sentence.text).strip()
            if structure.kind != "entity":
                text = text.rstrip(".,;:!?").strip()
            if not text:
                continue
            if mode == "mention":
                out.add((structure.kind, label, text))
            else:
                out.update((structure.kind, label, token) for token in text.split())
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


def store_inputs(path: Path) -> set[str]:
    from paraspan.pipeline.store import RunStore

    store = RunStore.open(path, readonly=True)
    try:
        return {sentence.id for sentence in store.iter_inputs()}
    finally:
        store.close()


def find_store(folder: Path, subset_ids: set[str], index: dict[Path, set[str]]) -> Path:
    """The store of ``folder`` whose inputs are exactly the subset (a store per subset), found by
    what it holds rather than by the harness's naming; else the one holding the subset."""
    for path in sorted(folder.glob("*.db")):
        if path not in index:
            index[path] = store_inputs(path)
    exact = [p for p, ids in index.items() if ids == subset_ids]
    holding = [p for p, ids in index.items() if subset_ids <= ids]
    if not (exact or holding):
        raise SystemExit(f"{folder}: no run store holds the subset ({len(subset_ids)} sentences)")
    return (exact or holding)[0]


def measure(store: str, train: list, percent: int, seeds: list[int], mode: str, match: str = "label") -> list[dict]:
    """Per seed; ``store`` may hold ``{seed}``, or be a folder of stores (one per subset). ``match``:
    an inserted unit is in the subset when the subset holds it with the same label (``label``), or
    holds its text under any label, whatever the case (``text``: an SRL word is in several
    predicates' arguments under different labels, and a replacement at a sentence's start is
    capitalised)."""

    def key(unit: tuple[str, str, str]) -> tuple[str, ...]:
        return unit if match == "label" else (unit[2].casefold(),)

    from paraspan.evaluate.downstream.data import sample_subset
    from paraspan.pipeline.run import distinct_outputs

    cache: dict[str, dict[str, list]] = {}
    index: dict[Path, set[str]] = {}
    rows = []
    for seed in seeds:
        subset = sample_subset(train, percent, seed)
        path = store.format(seed=seed)
        if Path(path).is_dir():
            path = str(find_store(Path(path), {s.id for s in subset}, index))
        if path not in cache:
            cache[path] = outputs_by_input(Path(path))
        by_input = cache[path]
        own = {s.id: units(s, mode) for s in subset}
        held = {key(u) for found in own.values() for u in found}
        outputs = inserted = outside = carrying = 0
        for source in subset:
            # what the learner got: each labelled sentence once per source, as the harness reads it
            for output in distinct_outputs(by_input.get(source.id, [])):
                outputs += 1
                added = units(output, mode) - own[source.id]
                foreign = [u for u in added if key(u) not in held]
                inserted += len(added)
                outside += len(foreign)
                carrying += bool(foreign)
        rows.append({"seed": seed, "store": Path(path).name, "subset": len(subset), "outputs": outputs,
                     "inserted": inserted,
                     "outside_subset": outside, "outside_share": round(outside / inserted, 4) if inserted else None,
                     "outputs_carrying_one": carrying})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("store", help="a run store (.db) of token_replace or mention_replace"
                        " ({seed} in it: one store per subset), or the --store-dir folder of a run")
    parser.add_argument("--task", choices=("ner", "ner_wnut17", "srl", "frame_id"), required=True,
                        help="ner: WikiANN; ner_wnut17: WNUT17; srl: UP EWT (the harness's training part); "
                             "frame_id: FrameNet 1.5 full-text train")
    parser.add_argument("--percent", type=int, required=True)
    parser.add_argument("--seeds", default="0-2", help="0-9 or 0,1,2 (default 0-2)")
    parser.add_argument("--mode", choices=("mention", "token"), required=True)
    parser.add_argument("--match", choices=("label", "text"), default="label",
                        help="in the subset: with the same label (default), or its text under any label, any case")
    parser.add_argument("--name", required=True, help="the entry's name in the results file")
    parser.add_argument("--shared", type=Path, default=Path("../shared"))
    parser.add_argument("--output", type=Path, default=RESULTS / "donor-leak.json")
    args = parser.parse_args(argv)
    for seed in seeds_of(args.seeds):
        if not Path(args.store.format(seed=seed)).exists():
            print(f"{args.store.format(seed=seed)}: no such run store — give the .db a downstream run wrote"
                  " (--store-dir)", file=sys.stderr)
            return 2

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from downstream import load_task

    task = "ner" if args.task.startswith("ner") else args.task
    train, _, _ = load_task(task, args.shared, "wnut17" if args.task == "ner_wnut17" else "wikiann", False)
    rows = measure(args.store, train, args.percent, seeds_of(args.seeds), args.mode, args.match)
    inserted = sum(r["inserted"] for r in rows)
    outside = sum(r["outside_subset"] for r in rows)
    entry = {"task": args.task, "percent": args.percent, "mode": args.mode, "match": args.match,
             "store": Path(args.store).name,
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
