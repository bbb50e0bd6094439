"""Benchmark of iterative paraphrastic augmentation (issue 5; Culkin et al. 2021 §6.1).

Three parts, each writing its section of ``benchmarks/results/augment.json``:

``fulltext``  FrameNet 1.5 train full-text sentences: outputs per input sentence per iteration,
              the share of outputs with every argument placed, new (frame, trigger lemma)
              pairs, sentences/minute with 1 and 2 workers (wall clock and CPU time), peak memory.
``throughput`` issue 18: decoder limits on this CPU, ``paraspan augment`` before/after on FrameNet dev
              sentences (written outputs per minute and per CPU-second, sampled tokens/s against the
              limits); see ``_throughput.py``.
``scratch``   "FrameNet (almost) from scratch": the 20 earliest-created frames × their 3 earliest
              LUs × 3 earliest annotation sets (FrameNet's ``cDate``) are the seed corpus; after K
              iterations, precision/recall of the generated (frame, LU) pairs against the held-back
              LUs of those frames (paper: 128 TP, 1,188 FP, 112 FN; P 9.7%, R 53.3%). A generated
              LU is ``lemma.pos`` with the part of speech of the new anchor's head word in a spaCy
              parse of the paraphrase (the seed LU's POS only when the parse has no usable tag).

The paper's configuration is ``--part scratch --annotations 3 --iterations 10 --samples 10
--constraint-sets 3 --candidates 20`` (hours with the default model on 2 cores). The defaults
here are scaled down to fit ~15 minutes of one core; the results JSON records exactly what ran.

    .venv/bin/python benchmarks/augment.py --part fulltext --sentences 6 --iterations 2
    .venv/bin/python benchmarks/augment.py --part scratch --annotations 1 --seed-lus 1 --iterations 3

The scratch part takes hours at 10 iterations, so it can keep its run store and be stopped and
continued (a kill -9 loses at most the seeds in flight), or scored while it runs:

    .venv/bin/python benchmarks/augment.py --part scratch --iterations 10 --retries 1 --workers 2 \
        --store scratch10.db --resume          # again after a stop: continues where it was
    .venv/bin/python benchmarks/augment.py --part scratch --iterations 10 --store scratch10.db --score-only
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import cpu_name, load_average, machine  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results" / "augment.json"


def _cdate(value: str) -> datetime:
    """FrameNet's "10/25/2001 07:44:04 PDT Thu" (the zone is dropped: all are US Pacific)."""
    try:
        return datetime.strptime(value[:19], "%m/%d/%Y %H:%M:%S")
    except ValueError:
        return datetime.max


def _peak_mb() -> dict[str, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"self_mb": round(own, 1), "largest_child_mb": round(children, 1)}


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _config(args: argparse.Namespace, **over: Any) -> Any:
    from paraspan.pipeline import AugmentConfig

    generator = {"name": "paraphrase", "model": args.model, "samples": args.samples,
                 "constraint_sets": args.constraint_sets, "rescore_top": args.rescore_top or None}
    return AugmentConfig(iterations=args.iterations, retries=args.retries, candidates=args.candidates, seed=args.seed,
                         threads=1, kinds=("frame",), generator=generator,
                         require_args=False, **over)  # partial outputs kept: the share with all args is measured


def _run(sentences: list[Any], config: Any, workers: int, augmenter: Any = None) -> dict[str, Any]:
    from paraspan.pipeline import open_store, run_augment

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "run.db", config, resume=False)
        load = cpu0 = 0.0
        start = time.perf_counter()
        cpu0 = _cpu()
        def tick(result: Any) -> None:  # one line per committed input: the log shows progress
            print(f"[{workers} worker(s)] {result.input_id}: {len(result.outputs)} outputs, "
                  f"{time.perf_counter() - start:.0f}s wall, {_cpu() - cpu0:.0f}s cpu", file=sys.stderr, flush=True)

        summary = run_augment(sentences, store, config, workers=workers, augmenter=augmenter,
                              on_commit=tick)
        wall = time.perf_counter() - start
        cpu = _cpu() - cpu0
        outputs = list(store.iter_outputs())
        cands = store.conn.execute("SELECT COUNT(*), SUM(placed) FROM candidates").fetchone()
        store.close()
    structures = sum(1 for s in sentences for st in s.structures if st.kind == "frame" and st.anchor is not None)
    per_iter = Counter(o.iteration for o in outputs)
    full = [o for o in outputs if o.sentence.provenance["args_placed"] == o.sentence.provenance["args"]]
    return {
        "workers": workers, "sentences": len(sentences), "structures": structures,
        "wall_seconds": round(wall, 1), "model_load_seconds": round(load, 1), "cpu_seconds": round(cpu, 1),
        "sentences_per_minute_wall": round(len(sentences) / wall * 60, 3),
        "structures_per_minute_wall": round(structures / wall * 60, 3),
        "sentences_per_minute_cpu": round(len(sentences) / cpu * 60, 3) if cpu else None,
        "outputs": len(outputs),
        "outputs_per_sentence_per_iteration": {it: round(n / len(sentences), 3) for it, n in sorted(per_iter.items())},
        "outputs_per_structure_per_iteration": {it: round(n / structures, 3) for it, n in sorted(per_iter.items())},
        "share_all_args_placed": round(len(full) / len(outputs), 3) if outputs else None,
        "candidates": int(cands[0] or 0), "candidates_placed": int(cands[1] or 0),
        "new_frame_lemma_pairs": summary.new_pairs, "anchor_pos_from": _pos_sources(outputs),
        "kept_per_filter": summary.kept_per_filter,
        "stopped": summary.notes, "peak_memory": _peak_mb(), "load_average_end": load_average(),
        "examples": [{"source": o.sentence.provenance["source_anchor"]["text"], "frame": o.frame,
                      "iteration": o.iteration, "text": o.sentence.text, "anchor": o.anchor_text,
                      "aligner": o.scores["aligner"], "nll": -o.scores["forward"]} for o in outputs[:12]],
    }


def _pos_sources(outputs: list[Any]) -> dict[str, int]:
    """Where each output's LU part of speech came from: parse, generator, seed (fallback) or none."""
    return dict(Counter((o.sentence.provenance.get("anchor_lu") or {}).get("pos_from", "unrecorded")
                        for o in outputs))


def _pick_fulltext(args: argparse.Namespace) -> list[Any]:
    """The first ``--sentences`` train full-text sentences with 1 to ``--max-structures`` frame
    structures and < 160 characters: a bounded set (full-text sentences average ~6 structures)."""
    from paraspan.corpus.formats import read_corpus

    picked = []
    for sentence in read_corpus(Path(args.framenet), "framenet", split="train", splits=args.splits):
        frames = [s for s in sentence.structures if s.kind == "frame" and s.anchor is not None]
        if 1 <= len(frames) <= args.max_structures and len(sentence.text) < 160:
            picked.append(sentence)
        if len(picked) >= args.sentences:
            break
    return picked


def part_fulltext(args: argparse.Namespace) -> dict[str, Any]:
    from paraspan.pipeline import Augmenter

    picked = _pick_fulltext(args)
    config = _config(args)
    t0 = time.perf_counter()
    augmenter = Augmenter.build(config, worker="main")
    load = time.perf_counter() - t0
    one = _run(picked, config, 1, augmenter)
    one["model_load_seconds"] = round(load, 1)
    del augmenter
    result = {"selection": f"the first {len(picked)} FrameNet 1.5 train full-text sentences with 1-"
                           f"{args.max_structures} frame structures and < 160 characters",
              "one_worker": one, "two_workers": None}
    _save(args, result)  # the 1-worker numbers survive a 2-worker run cut short
    if args.workers2:
        result["two_workers"] = _run(picked, config, 2)
    return result


def part_throughput(args: argparse.Namespace) -> dict[str, Any]:
    """Issue 18's measurements (``_throughput.py``): decoder limits, before/after runs, the table."""
    import _throughput

    out = Path(args.out)
    key = args.section or "throughput"  # another key: runs on other sentences, beside the same limits
    existing = json.loads(out.read_text()) if out.exists() else {}
    section: dict[str, Any] = existing.get(key, {})
    if isinstance(section.get("runs"), list):  # the 1-vs-2-workers part of 2026-11-22: kept under its own key
        data = json.loads(out.read_text())
        data["throughput_workers_2026_11_22"] = section
        out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    section = section if "runs" in section and isinstance(section["runs"], dict) else {"runs": {}}
    # the limits of the main section, where this one has none measured here (runs on other sentences,
    # same machine); a section with limits of its own was measured on another machine: nothing copied
    if "limits" not in section:
        for name in ("limits", "limits_together"):
            if name not in section and name in existing.get("throughput", {}):
                section[name] = existing["throughput"][name]
    if args.step == "limits":
        section["limits"] = _throughput.limits(args.model, threads=1)
    elif args.step == "prompts":  # the substituter's prompts evaluated together and alone
        work = Path(args.work)
        inputs = work / f"throughput-dev-{args.sentences}x{args.max_structures}.jsonl"
        _throughput.select_dev(Path(args.framenet), Path(args.splits), args.sentences, args.max_structures, inputs)
        section["prompt_batching"] = _throughput.prompt_batching(inputs, args.model)
    elif args.step == "sampling":  # one generate_batch on the selected sentences' structures, in this process
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        inputs = work / f"throughput-dev-{args.sentences}x{args.max_structures}.jsonl"
        _throughput.select_dev(Path(args.framenet), Path(args.splits), args.sentences, args.max_structures, inputs)
        section.setdefault("sampling", {})[args.label] = _throughput.sampling(inputs, args.label, args.model)
        print(json.dumps(section["sampling"][args.label], indent=1))
    elif args.step == "limits-together":
        section["limits_together"] = _throughput.limits_together(args.model, processes=2)
    elif args.step == "merge":  # runs made in parallel lanes, each into its own results file
        for path in args.merge:
            other = json.loads(Path(path).read_text()).get("throughput", {})
            section["runs"].update(other.get("runs", {}))
            for key in ("limits", "selection"):
                if key in other and key not in section:
                    section[key] = other[key]
    elif args.step == "run":
        work = Path(args.work)
        work.mkdir(parents=True, exist_ok=True)
        if args.sample_seed is not None:  # a random sample of a split, as a downstream subset draws it
            inputs = work / f"throughput-{args.split}-{args.sentences}-seed{args.sample_seed}.jsonl"
            structures = _throughput.select_sample(Path(args.framenet), Path(args.splits), args.split,
                                                   args.sentences, args.sample_seed, inputs)
            section["selection"] = (f"{args.sentences} FrameNet 1.5 full-text {args.split} sentences with a frame, "
                                    f"drawn with seed {args.sample_seed} ({structures} frame structures)")
        else:
            inputs = work / f"throughput-dev-{args.sentences}x{args.max_structures}.jsonl"
            structures = _throughput.select_dev(Path(args.framenet), Path(args.splits), args.sentences,
                                                args.max_structures, inputs)
            section["selection"] = (f"the first {args.sentences} FrameNet 1.5 dev sentences with "
                                    f"1-{args.max_structures} frame structures, >= 8 words and < 160 characters "
                                    f"({structures} structures)")
        section["runs"][args.label] = _throughput.run(args.label, inputs, work, args.augment_args)
    print(_throughput.table(section))
    if section.get("sampling"):
        print(_throughput.sampling_table(section))
    return section

def _seed_corpus(args: argparse.Namespace) -> tuple[list[Any], set[tuple[str, str]], set[tuple[str, str]], dict]:
    """Seeds (sentences), seed (frame, lemma.pos) pairs, held-back gold pairs, selection facts."""
    from paraspan.corpus.frame_index import FrameIndex
    from paraspan.corpus.framenet import Release, _Counter, _lu_file, namespace_of, parse_xml

    index = FrameIndex.load(args.framenet)
    frames = sorted(index, key=lambda f: (_cdate(f.cdate), f.id))[: args.frames]
    seed_lus, gold = [], set()
    for frame in frames:
        lus = sorted(frame.lus.values(), key=lambda lu: (_cdate(lu.cdate), lu.id))
        seed_lus += lus[: args.seed_lus]
        gold |= {(frame.name, lu.name.lower()) for lu in lus[args.seed_lus:]}
    seeds_pairs = {(lu.frame, lu.name.lower()) for lu in seed_lus}
    release = Release.open(args.framenet)
    wanted = {f"lu/lu{lu.id}.xml": lu for lu in seed_lus}
    sentences = []
    counter = _Counter()
    for rel, data in release.members(files=tuple(wanted)):
        if rel not in wanted:
            continue
        root = parse_xml(data, release.display(rel))
        ns = namespace_of(root)
        dates = {}
        for aset in root.iter(f"{ns}annotationSet"):
            if any(layer.get("name") == "Target" for layer in aset.iterchildren(f"{ns}layer")):
                dates[aset.get("ID")] = _cdate(aset.get("cDate") or "")
        per_sentence = []
        for sentence in _lu_file(data, release.display(rel), release, counter):
            for st in sentence.structures:
                aid = str(st.extra.get("annoset_id"))
                if st.anchor is not None and aid in dates and st.label == wanted[rel].frame:
                    per_sentence.append((dates[aid], aid, sentence, st))
        per_sentence.sort(key=lambda x: (x[0], int(x[1])))
        for _, _, sentence, st in per_sentence[: args.annotations]:
            # one structure per seed: the annotation set of this LU (others in the sentence stay out)
            sentence.structures = [st]
            sentence.id = f"{sentence.id}:{st.extra.get('annoset_id')}"
            sentences.append(sentence)
    facts = {"frames": [f.name for f in frames], "seed_lus": [lu.name for lu in seed_lus],
             "gold_lus": len(gold), "seed_sentences": len(sentences)}
    return sentences, seeds_pairs, gold, facts


def _learned_filter_cv(rows: list[list[float]], labels: list[int], folds: int = 5) -> dict[str, Any]:
    """The learned filter (2×10 MLP over iteration, NLL, aligner score) scored by ``folds``-fold
    cross-validation on these outputs, each judged "accept" when its (frame, LU) is a held-back
    FrameNet LU of the frame: a proxy for the paper's human judgments (a correct LU that FrameNet
    lacks counts as a reject)."""
    import numpy as np

    from paraspan.filter.learned import train_filter

    x, y = np.asarray(rows, dtype=np.float64), np.asarray(labels, dtype=int)
    out: dict[str, Any] = {"outputs": len(y), "accepted": int(y.sum()),
                           "precision_keeping_all": round(float(y.mean()), 4) if len(y) else None}
    if len(y) < 2 * folds or y.sum() < folds or (1 - y).sum() < folds:
        return out | {"note": "too few judged outputs for cross-validation"}
    order = np.random.default_rng(0).permutation(len(y))
    for mode in ("precision", "recall"):
        kept = np.zeros(len(y), dtype=bool)
        for k in range(folds):
            test = order[k::folds]
            train = np.setdiff1d(order, test)
            model = train_filter(x[train], y[train], mode=mode, test_share=0.0, seed=k)
            kept[test] = model.predict(x[test]) >= model.threshold
        tp = int((kept & (y == 1)).sum())
        out[mode] = {"kept": int(kept.sum()), "tp": tp,
                     "precision": round(tp / kept.sum(), 4) if kept.sum() else 0.0,
                     "recall_of_accepted": round(tp / y.sum(), 4)}
    return out


def _stop_reason(note: str | None) -> str:
    """A seed's note, less the iteration and details: "no candidate with every required span placed"."""
    if not note:
        return "completed all iterations"
    reason = note.split(": ", 2)[-1]
    return reason.split(" (")[0]


class _OutOfTime(Exception):
    """The --time-budget ran out (raised between two committed inputs)."""


def _spread(sentences: list[Any], limit: int) -> list[Any]:
    """Round-robin by frame: the first ``limit`` seeds cover every frame before any gets a second
    (all seeds when ``limit`` is 0, in that order, so a run cut short has covered frames evenly)."""
    by_frame: dict[str, list[Any]] = {}
    for s in sentences:
        by_frame.setdefault(s.structures[0].label, []).append(s)
    spread: list[Any] = []
    limit = limit or len(sentences)
    while len(spread) < limit and any(by_frame.values()):
        for items in by_frame.values():
            if items and len(spread) < limit:
                spread.append(items.pop(0))
    return spread


def part_scratch(args: argparse.Namespace) -> dict[str, Any]:
    from paraspan.filter.learned import feature_row
    from paraspan.pipeline import Augmenter, open_store, run_augment
    from paraspan.pipeline.store import RunStore

    if args.workers > 1 and args.time_budget:
        raise SystemExit("--time-budget works with one worker; with --workers N stop the run (even kill -9) "
                         "and continue it with --store PATH --resume, or score it with --score-only")
    sentences, seed_pairs, gold, facts = _seed_corpus(args)
    sentences = _spread(sentences, args.seed_limit)
    config = _config(args)
    load = wall = cpu = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.store) if args.store else Path(tmp) / "run.db"
        if not args.score_only:
            augmenter = None
            if args.workers <= 1:
                t0 = time.perf_counter()
                augmenter = Augmenter.build(config, worker="main")
                load = time.perf_counter() - t0
            store = open_store(path, config, resume=args.resume)
            start = time.perf_counter()
            cpu0 = _cpu()

            def tick(result: Any) -> None:
                print(f"{result.input_id}: {len(result.outputs)} outputs, {time.perf_counter() - start:.0f}s wall, "
                      f"{_cpu() - cpu0:.0f}s cpu", file=sys.stderr, flush=True)
                if args.time_budget and time.perf_counter() - start > args.time_budget:
                    raise _OutOfTime  # what is committed stays in the store: score that

            try:
                run_augment(sentences, store, config, augmenter=augmenter, on_commit=tick,
                            workers=args.workers)
            except _OutOfTime:
                pass
            wall, cpu = time.perf_counter() - start, _cpu() - cpu0
            store.close()
        store = RunStore.open(path, readonly=True)
        outputs = list(store.iter_outputs())
        completed = store.count_inputs("done") + store.count_inputs("skipped")
        completed_ids = [r[0] for r in store.conn.execute("SELECT id FROM inputs WHERE status != 'pending'")]
        finished = [r[0] for r in store.conn.execute(
            "SELECT finished FROM inputs WHERE status != 'pending' AND finished IS NOT NULL ORDER BY finished")]
        stopped = Counter(_stop_reason(r[0]) for r in store.conn.execute(
            "SELECT note FROM inputs WHERE status != 'pending'"))
        stored_config = store.config  # what the run used (a --score-only call's flags may differ)
        store.close()
    generated: set[tuple[str, str]] = set()
    generated_all_args: set[tuple[str, str]] = set()
    by_filter: dict[str, set[tuple[str, str]]] = {}
    by_iteration: dict[int, set[tuple[str, str]]] = {}
    judged_rows: list[list[float]] = []
    judged: list[int] = []
    judgments: list[dict[str, Any]] = []
    for o in outputs:
        # the new anchor's LU: its lemma and part of speech read from a parse of the paraphrase
        label = o.sentence.structures[0].anchor.label or ""
        pair = (o.frame, label.lower())
        if pair in seed_pairs:
            continue  # a seed LU is neither right nor wrong: it was given
        generated.add(pair)
        by_iteration.setdefault(o.iteration, set()).add(pair)
        row = feature_row(o.sentence.provenance)
        if row is not None:
            judged_rows.append(row)
            judged.append(int(pair in gold))
            judgments.append({"output_id": o.id, "score": 100 * judged[-1], "annotator": "framenet-lu"})
        for name, keep in o.decisions.items():
            if keep:
                by_filter.setdefault(name, set()).add(pair)
        prov = o.sentence.provenance
        if prov["args_placed"] == prov["args"]:
            generated_all_args.add(pair)
    if args.judgments_out:  # for `paraspan train-filter JUDGMENTS --store RUN.db`
        Path(args.judgments_out).write_text("".join(json.dumps(j) + "\n" for j in judgments), encoding="utf-8")
    cumulative: dict[int, set[tuple[str, str]]] = {}
    for k in sorted(by_iteration):
        cumulative[k] = cumulative.get(k - 1, set()) | by_iteration[k]

    def score(pairs: set[tuple[str, str]]) -> dict[str, Any]:
        tp = len(pairs & gold)
        fp = len(pairs - gold)
        fn = len(gold - pairs)
        return {"tp": tp, "fp": fp, "fn": fn, "precision": round(tp / (tp + fp), 4) if tp + fp else 0.0,
                "recall": round(tp / (tp + fn), 4) if tp + fn else 0.0}

    # the frames whose seeds were all processed (a --time-budget or --seed-limit run covers only some)
    done_ids = {o.input_id for o in outputs} | set(completed_ids)
    covered = {s.structures[0].label for s in sentences if s.id in done_ids}
    gold_covered = {(f, lu) for f, lu in gold if f in covered}
    lemma_gold = {(f, lu.rsplit(".", 1)[0]) for f, lu in gold}
    lemma_gen = {(f, lu.rsplit(".", 1)[0]) for f, lu in generated}
    tp_l = len(lemma_gen & lemma_gold)
    return {
        "selection": facts, "seeds_used": len(sentences), "seeds_completed": completed,
        "workers": args.workers, "model_load_seconds": round(load, 1) if load else None,
        "wall_seconds": round(wall, 1) if wall else None, "cpu_seconds": round(cpu, 1) if cpu else None,
        "commit_span_seconds": round(finished[-1] - finished[0], 1) if len(finished) > 1 else None,
        "seeds_per_hour_between_commits": round((len(finished) - 1) / (finished[-1] - finished[0]) * 3600, 2)
        if len(finished) > 1 and finished[-1] > finished[0] else None,
        "outputs": len(outputs),
        "outputs_per_iteration": dict(sorted(Counter(o.iteration for o in outputs).items())),
        "anchor_pos_from": _pos_sources(outputs),
        "frame_lu_pairs": score(generated),
        "frame_lu_pairs_all_args_placed": score(generated_all_args),
        # the pairs of iterations 1..k: what fewer iterations would have found
        "frame_lu_pairs_by_iterations": {k: score(pairs) for k, pairs in cumulative.items()},
        # the pairs of the outputs each filter keeps (Table 4 rows and the calibrated presets)
        "frame_lu_pairs_per_filter": {name: score(pairs) for name, pairs in sorted(by_filter.items())},
        "learned_filter_cv_framenet_judgments": _learned_filter_cv(judged_rows, judged),
        "outputs_per_seed": dict(sorted(Counter(Counter(o.input_id for o in outputs)[i]
                                                for i in completed_ids).items())),
        "chains_stopped_by": dict(stopped.most_common()),
        "run_settings": stored_config,
        "frames_covered": sorted(covered),
        "frame_lu_pairs_covered_frames": {**score(generated), "fn": len(gold_covered - generated),
                                          "recall": round(len(generated & gold_covered) / len(gold_covered), 4)
                                          if gold_covered else 0.0, "gold": len(gold_covered)},
        "frame_lemma_pairs_ignoring_pos": {"tp": tp_l, "generated": len(lemma_gen),
                                           "precision": round(tp_l / len(lemma_gen), 4) if lemma_gen else 0.0,
                                           "recall": round(tp_l / len(lemma_gold), 4) if lemma_gold else 0.0},
        "true_positives": sorted(f"{f}:{lu}" for f, lu in generated & gold),
        "sample_false_positives": sorted(f"{f}:{lu}" for f, lu in generated - gold)[:40],
        "paper": {"tp": 128, "fp": 1188, "fn": 112, "precision": 0.097, "recall": 0.5333, "seeds": 171,
                  "iterations": 10},
        "peak_memory": _peak_mb(), "load_average_end": load_average(),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    shared = REPO.parent / "shared" / "data" / "framenet"
    ap.add_argument("--part", choices=("fulltext", "throughput", "scratch"), required=True)
    ap.add_argument("--framenet", default=str(shared / "fndata-1.5.tar.gz"))
    ap.add_argument("--splits", default=str(shared / "fulltext-splits.json"))
    ap.add_argument("--model", default="default")
    ap.add_argument("--iterations", type=int, default=2)
    ap.add_argument("--retries", type=int, default=1, help="retries of an iteration with no placed candidate")
    ap.add_argument("--samples", type=int, default=4)
    ap.add_argument("--constraint-sets", type=int, default=2)
    ap.add_argument("--candidates", type=int, default=4)
    ap.add_argument("--rescore-top", type=int, default=1, help="0: backward-score every candidate")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--sentences", type=int, default=6, help="fulltext: input sentences")
    ap.add_argument("--max-structures", type=int, default=3)
    ap.add_argument("--no-workers2", dest="workers2", action="store_false", help="fulltext: skip the 2-worker run")
    ap.add_argument("--frames", type=int, default=20, help="scratch: earliest frames")
    ap.add_argument("--seed-lus", type=int, default=3, help="scratch: earliest LUs per frame (held out of gold)")
    ap.add_argument("--annotations", type=int, default=3, help="scratch: earliest annotations per LU")
    ap.add_argument("--seed-limit", type=int, default=0, help="scratch: use only this many seeds, spread over frames")
    ap.add_argument("--time-budget", type=float, default=0,
                    help="scratch: stop after the input that passes this many seconds (0: no limit)")
    ap.add_argument("--workers", type=int, default=1, help="scratch: local worker processes")
    ap.add_argument("--store", default="", help="scratch: keep the run store here (default: a temporary one)")
    ap.add_argument("--resume", action="store_true", help="scratch: continue the run in --store")
    ap.add_argument("--score-only", action="store_true", help="scratch: score what --store holds, run nothing")
    ap.add_argument("--judgments-out", default="",
                    help="scratch: write FrameNet-LU proxy judgments of the outputs here (JSONL)")
    ap.add_argument("--section", default="", help="the key of this part's results in --out (default: --part)")
    ap.add_argument("--step", choices=("limits", "limits-together", "prompts", "sampling", "run", "merge", "table"),
                    default="table",
                    help="throughput: what to do")
    ap.add_argument("--merge", action="append", default=[], help="throughput merge: a results file of another lane")
    ap.add_argument("--label", default="after", help="throughput run: its name (`before` is the reference)")
    ap.add_argument("--work", default="", help="throughput run: where inputs, stores and outputs go")
    ap.add_argument("--sample-seed", type=int, default=None,
                    help="throughput run: --sentences sentences of --split drawn at random with this seed "
                         "(default: the first dev sentences with 1..--max-structures frames)")
    ap.add_argument("--split", default="train", help="throughput run with --sample-seed: the full-text split")
    ap.add_argument("--out", default=str(RESULTS))
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.augment_args = argv[cut + 1:]  # throughput run: passed to `paraspan augment`
    if args.part == "throughput" and args.step in ("run", "prompts", "sampling") and not args.work:
        ap.error(f"--step {args.step} needs --work DIR (inputs, stores and outputs; not the repository)")
    if not Path(args.framenet).exists():
        print(f"{args.framenet}: missing (the FrameNet 1.5 release from ../shared)", file=sys.stderr)
        return 1
    if args.score_only and not Path(args.store or "-").exists():
        print(f"--score-only needs --store PATH of an existing run (got {args.store!r})", file=sys.stderr)
        return 1
    import torch

    torch.set_num_threads(1)
    result = {"fulltext": part_fulltext, "throughput": part_throughput, "scratch": part_scratch}[args.part](args)
    _save(args, result)
    print(json.dumps({k: v for k, v in result.items() if k not in ("examples",)}, indent=1)[:4000])
    return 0


def _save(args: argparse.Namespace, result: dict[str, Any]) -> None:
    """Merge this part's results into the results JSON."""
    # data paths relative to the repository, so the results name no path of this machine
    paths = {k: os.path.relpath(v, REPO) for k, v in vars(args).items() if k in ("framenet", "splits")}
    # files this run wrote or kept: their names only (where they were is this machine's business)
    paths |= {k: Path(v).name for k, v in vars(args).items() if k in ("store", "judgments_out", "work") and v}
    paths["merge"] = [Path(v).name for v in getattr(args, "merge", [])]
    result["settings"] = {k: v for k, v in vars(args).items() if k not in ("out",)} | paths
    result["machine"] = {**machine(), "cpu": cpu_name(), "date": time.strftime("%Y-%m-%d %H:%M")}
    out = Path(args.out)
    data = json.loads(out.read_text()) if out.exists() else {}
    data[args.section or args.part] = result
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
