"""Downstream learning curves (issue 9): does augmented data improve a tagger?

Runs ``paraspan.evaluate.downstream`` on the corpora of ``../shared`` and merges the results into one
file per task and augmenter (``--output``; default ``benchmarks/results/downstream-runs/TASK-AUGMENTER.json``;
one task and a set of percents per call, so a curve can be run in pieces), then redraws its plot.
Pieces are merged seed by seed: a seed run again replaces its own record and no other. An
``--output`` that holds the curve of another learner, data or augmenter is refused before any
training (E931), so one point never mixes them.
``--grid`` combines the runs listed in ``GRID_SOURCES`` into ``benchmarks/results/downstream.json``:
every augmenter against gold only, its copies and the best simple baseline, paired by seed, a plot per
task and evaluation set, and the verdict per task against the goals of issue 19.

    python benchmarks/downstream.py --task frame_id --percents 10,100 --seeds 3 --augment rewrite
    python benchmarks/downstream.py --task ner --percents 10 --augment rewrite --seed-list 0   # then 1, then 2
    python benchmarks/downstream.py --task srl --percents 10,25,50,100 --augment jsonl-corpus:ewt-rewrites.jsonl
    python benchmarks/downstream.py --task frame_id --percents 10 --augment generator:rewrite --filter verified \
        --store-dir /tmp/ds-stores      # any registered generator through the pipeline; the run is kept
    python benchmarks/downstream.py --task frame_id --percents 10 --augment generator:cascade --store-dir STORES \
        --augment-workers 2 --augment-only   # the slow part once, in the background; the curve reuses the store
    python benchmarks/downstream.py --task srl --srl-set framenet --percents 25 --augment generator:trained \
        --store-dir STORES --augment-budget 6.25 --augment-only    # Cui's Fig. 2: 6.25% of the train generated
    python benchmarks/downstream.py --task srl --srl-set framenet --percents 25 --augment generator:trained \
        --store-dir STORES --augment-budget 6.25 --copy-control --gold-control --no-lexsub   # … against copies and gold
    python benchmarks/downstream.py --task frame_id --choose-positive-weight 1,2,4,8 --percents 10 --seeds 3
    python benchmarks/downstream.py --table --output FILE   # print the README table of one results file
    python benchmarks/downstream.py --grid           # the grid of every augmenter: downstream.json, plots, verdicts

Augmented data (``--augment``): ``rewrite`` (the rule-based rewriter, no output filter),
``generator:NAME`` (a registered generator through read → generate → project → filter, the code
of ``paraspan augment``, on each gold subset; ``--filter`` is what the learner gets, ``--store-dir``
keeps one run store per corpus and settings so each gold sentence is augmented once and reused,
``--store`` reuses one given store, which must hold the subset), ``jsonl:PATH`` (a file made from
the subset; one made mostly from other sentences is refused) or ``jsonl-corpus:PATH`` (a file made
from the whole training corpus). Per seed the results record the subset sentences that got no
output, the augmenter's report (the generator's notes) and the evaluation labels absent from
the subset.

Cui & Swayamdipta's Fig. 2: ``--augment-budget PCT`` augments a subset, a chunk at a time in a seeded
order, until its outputs reach PCT% of the full training set (cut to that; per seed ``budget`` says what
it took); ``--gold-control`` adds as many gold sentences from outside the subset (condition ``gold``).
``--task srl --srl-set framenet``: frame-SRL (frame elements given frame and target), dev reported.

``--choose-positive-weight`` runs the base learner alone (gold only) at each loss weight of the
positive classes and writes the dev F1 per weight and the choice (highest mean F1 at
``--choose-at``) into ``benchmarks/results/downstream-choices.json``; FrameNet is scored on dev
(never test), SRL on held-out documents of its training part (its test split is not used).

Data, under ``--shared`` (``$PARASPAN_SHARED``, else ``../shared``): FrameNet 1.5 full text (Das & Smith
split; train / dev, ``--fn-test`` adds the test documents), WikiANN-en or WNUT17 train / dev (test held
out), UP EWT dev split by document 70/30 into train / test. Hyperparameters are fixed (none tuned on test).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # 2 shared cores: spaCy/numpy must not take both

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _common import cpu_seconds, load_average, machine, peak_rss_mb  # noqa: E402

RESULTS = HERE / "results"
GRID_OUTPUT = RESULTS / "downstream.json"

# The grid of issue 19 (`--grid`): per task the runs that make it, each with the points it gives,
# under one learner per task (checked). A later entry replaces an earlier one point by point. An
# entry is a path, or (path, options of grid.Source), e.g. {"task": …} for runs of another learner.
GRID_SOURCES: tuple[str | tuple[str, dict[str, Any]], ...] = (
    # Frame identification: positives weighted ×8, copies that carry what the outputs carry, the
    # FrameNet test documents scored once; 10% with five seeds, 25/50/100% with three.
    *(f"downstream-copies/frame_id-{name}.json" for name in
      ("rewrite", "token_replace", "synonym_replace", "sister_lu", "cascade")),
    *(f"downstream-25/frame_id-{name}.json" for name in
      ("rewrite", "token_replace", "synonym_replace", "sister_lu", "cascade")),
    *(f"downstream-50/frame_id-{name}.json" for name in ("token_replace", "synonym_replace", "sister_lu")),
    *(f"downstream-grid/frame_id-{name}.json" for name in
      ("rewrite", "token_replace", "synonym_replace", "sister_lu", "cascade")),
    # SRL: positives weighted ×4; scored on held-out documents of UP EWT dev.
    *(f"downstream-copies/srl-{name}.json" for name in
      ("rewrite", "token_replace", "mention_replace", "synonym_replace")),
    *(f"downstream-grid/srl-{name}.json" for name in
      ("rewrite", "token_replace", "mention_replace", "synonym_replace", "cascade")),
    # 10% and 25% again with ten seeds, after a split's spans were made to end with its sentence
    # (2026-11-28, late): these points replace the ones above
    *(f"downstream-srl-split/srl-{name}.json" for name in
      ("rewrite", "token_replace", "mention_replace", "synonym_replace", "cascade")),
    # NER on WikiANN dev with the learner of the earlier runs (spaCy, 10 passes over whatever it is
    # given, the last step's weights), as a task of its own; WNUT17 dev likewise.
    *((f"downstream-final/ner-{name}-epochs10.json", {"task": "ner_10passes"}) for name in
      ("cascade", "token_replace", "mention_replace", "synonym_replace")),
    *((f"downstream-grid/ner-{name}.json", {"task": "ner_10passes"}) for name in
      ("rewrite", "synonym_replace", "cascade")),
    *((f"downstream-grid/ner_wnut17-{name}.json", {"task": "ner_wnut17_10passes"}) for name in
      ("rewrite", "token_replace", "mention_replace", "synonym_replace")),
    # NER on WikiANN dev and WNUT17 dev with the learner chosen on dev (20 passes' updates over the gold
    # subset, averaged weights; benchmarks/ner_learner.py), 2026-11-28 evening and night; WNUT17's
    # cascade and rewrite with the tweet-markup rules.
    *(f"downstream-ner-learner/ner-{name}.json" for name in
      ("cascade", "synonym_replace", "mention_replace", "token_replace", "rewrite")),
    *(f"downstream-ner-learner/ner_wnut17-{name}.json" for name in
      ("cascade", "synonym_replace", "mention_replace", "token_replace", "rewrite")),
    # WikiANN's cascade again with the rules of d1762da, from a fresh store (the old one was written by
    # older rules, which E709 refuses): 10% with ten seeds, 25% and 50% with three (2026-11-29)
    ("downstream-ner-learner/ner-cascade-rules-d1762da.json",
     {"note": "the rules of d1762da, augmented afresh; replaces the points of ner-cascade.json (older rules)"}),
)
CHOICES = HERE / "results" / "downstream-choices.json"


def load_task(task: str, shared: Path, ner_set: str, exemplars: bool,
              fn_test: bool = False, srl_set: str = "ewt") -> tuple[list, dict[str, list], str]:
    """The training sentences, the evaluation sets by name and the reported one. FrameNet (frame_id,
    and srl with ``srl_set="framenet"``): the full-text documents of the release in ``shared``, split
    as ``fulltext-splits.json`` says, dev reported."""
    from paraspan.corpus.formats import read_corpus
    from paraspan.evaluate.downstream.data import split_by_document

    if task == "frame_id" or (task == "srl" and srl_set == "framenet"):
        release = shared / "data/framenet/fndata-1.5.tar.gz"
        splits = shared / "data/framenet/fulltext-splits.json"
        train = list(read_corpus(release, "framenet", split="train", splits=splits))
        if exemplars:
            train += list(read_corpus(release, "framenet", exemplars=True))
        names = ("dev", "test") if fn_test else ("dev",)
        evals = {name: list(read_corpus(release, "framenet", split=name, splits=splits)) for name in names}
        return train, evals, "dev"
    if task == "ner":
        if ner_set == "wikiann":
            folder = shared / "data/ner/wikiann-en"
            train, dev = folder / "train", folder / "dev"
        else:
            folder = shared / "data/ner/wnut17"
            train, dev = folder / "wnut17train.conll", folder / "emerging.dev.conll"
        return list(read_corpus(train, "bio")), {"dev": list(read_corpus(dev, "bio"))}, "dev"
    if task == "srl":
        gold = list(read_corpus(shared / "data/srl/up-english-ewt/en_ewt-up-dev.conllu", "conllu-srl"))
        train, test = split_by_document(gold, 0.3)
        return train, {"test": test}, "test"
    raise SystemExit(f"unknown task {task!r}")


def portable_text(text: str, args: argparse.Namespace) -> str:
    """``text`` without this machine's paths: the data folder becomes ``../shared``, a store folder
    ``STORE_DIR``."""
    for where, name in ((args.shared, "../shared"), (args.store_dir, "STORE_DIR")):
        if where is not None:
            text = text.replace(str(Path(where).resolve()), name).replace(str(where), name)
    return text


def portable_meta(meta: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``meta`` as a results file holds it once ``portable`` rewrote the file."""
    return json.loads(portable_text(json.dumps(meta, ensure_ascii=False), args))


def portable(path: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Rewrite the results file at ``path`` without this machine's paths; returns its data."""
    text = portable_text(path.read_text(encoding="utf-8"), args)
    path.write_text(text, encoding="utf-8")
    return json.loads(text)


def write_grid(target: Path) -> str:
    """The grid of ``GRID_SOURCES`` into ``target`` and its plots beside it; returns the tables."""
    from paraspan.corpus.jsonl import atomic_write
    from paraspan.evaluate.downstream.grid import Source, build_grid, markdown
    from paraspan.evaluate.downstream.plot import plot_grid

    sources = []
    for entry in GRID_SOURCES:
        relative, options = (entry, {}) if isinstance(entry, str) else entry
        path = RESULTS / relative
        if not path.is_file():
            print(f"not in the grid (no file): {relative}", file=sys.stderr)
            continue
        sources.append(Source(relative, json.loads(path.read_text()), **options))
    grid = build_grid(sources)
    for task, task_grid in grid.items():
        for eval_set in task_grid["points"]:
            suffix = "" if eval_set == task_grid["report"] else f"_{eval_set}"
            task_grid.setdefault("plots", []).append(
                str(plot_grid(task_grid, eval_set, target.parent / f"downstream_{task}{suffix}.png")
                    .relative_to(target.parent)))
    data = {"meta": {"what": "issue 19: every augmenter against gold only, its copies and the best simple "
                             "baseline, paired by seed", "date": datetime.date.today().isoformat(),
                     "command": "python benchmarks/downstream.py --grid", "sources": [s.path for s in sources]},
            **grid}
    with atomic_write(target, "w") as handle:
        handle.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return markdown(grid)


def task_key(args: argparse.Namespace) -> str:
    """The curve's name in the results file: the task, or the task and its data where it has several."""
    data = args.ner_set if args.task == "ner" else args.srl_set if args.task == "srl" else None
    return {("ner", "wnut17"): "ner_wnut17", ("srl", "framenet"): "srl_framenet"}.get((args.task, data), args.task)


def dataset_name(args: argparse.Namespace) -> str:
    framenet = "FrameNet 1.5 full text" + (" + exemplars" if args.exemplars else "")
    if args.task == "srl":
        return (f"{framenet} (frame-SRL: frame elements given frame and target)" if args.srl_set == "framenet"
                else "UP EWT dev, 70/30 by document")
    return framenet if args.task == "frame_id" else args.ner_set


def build_parser() -> argparse.ArgumentParser:
    from paraspan.evaluate.downstream.ner import BUDGETS

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--task", choices=("frame_id", "ner", "srl"))
    parser.add_argument("--percents", default="10,25,50,100")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--seed-list", default=None,
                        help="run only these seeds, e.g. 1,2 (a job per seed stays under the job time limit; "
                             "results over disjoint seeds are combined in --output)")
    parser.add_argument("--augment", default="rewrite",
                        help="none, rewrite, generator:NAME (a registered generator through the pipeline), "
                             "jsonl:PATH (made from the subset) or jsonl-corpus:PATH (made from the whole "
                             "training corpus); outputs carry source_id")
    parser.add_argument("--filter", default="verified",
                        help="generator:NAME: what the learner gets (all, verified, a preset or rule of "
                             "`paraspan augment --filter`)")
    parser.add_argument("--store", type=Path, default=None,
                        help="generator:NAME: reuse this run store (it must hold the subset's sentences)")
    parser.add_argument("--store-dir", type=Path, default=None,
                        help="generator:NAME: keep one run store per corpus and settings here, grown with each "
                             "subset and reused by later runs")
    parser.add_argument("--augment-set", action="append", default=[], metavar="KEY=VALUE",
                        help="generator:NAME: a run-config setting as `paraspan augment --set` (e.g. "
                             "generator.model=small, iterations=1); repeatable")
    parser.add_argument("--augment-workers", type=int, default=1,
                        help="generator:NAME: worker processes for the pipeline (as `paraspan augment --workers`; "
                             "the learners stay on one thread)")
    parser.add_argument("--augment-only", action="store_true",
                        help="generator:NAME with --store-dir or --store: augment each seed's subset into the "
                             "store and exit (no learner): the slow part run once, e.g. in the background, and "
                             "judged before the curves reuse it")
    parser.add_argument("--positive-weight", type=float, default=None,
                        help="loss weight of the positive classes of the frame_id/srl head (default: the learner's)")
    parser.add_argument("--choose-positive-weight", default=None, metavar="W1,W2,...",
                        help="run the base learner alone at each weight and write the dev F1 per weight and the "
                             "choice to --choices-output, then exit")
    parser.add_argument("--choose-at", type=int, default=10, help="the percent the weight is chosen at")
    parser.add_argument("--choices-output", type=Path, default=CHOICES)
    parser.add_argument("--augment-note", default="", help="how the augmented data was made (recorded)")
    parser.add_argument("--no-lexsub", action="store_true")
    parser.add_argument("--copy-control", action="store_true",
                        help="also train on positives-only copies of the augmented sentences' sources (same "
                             "count, each with the structures its output carries)")
    parser.add_argument("--ner-set", choices=("wikiann", "wnut17"), default="wikiann")
    parser.add_argument("--exemplars", action="store_true",
                        help="FrameNet (frame_id, srl --srl-set framenet): add the LU exemplars")
    parser.add_argument("--fn-test", action="store_true",
                        help="FrameNet (frame_id, srl --srl-set framenet): also score the test documents")
    parser.add_argument("--shared", type=Path,
                        default=Path(os.environ.get("PARASPAN_SHARED", HERE.parent.parent / "shared")))
    parser.add_argument("--cache-dir", type=Path, default=Path("/tmp/paraspan-downstream-cache"))
    parser.add_argument("--epochs", type=int, default=None)
    parser.add_argument("--ner-budget", choices=BUDGETS, default=None,
                        help="ner: the learner's updates — --epochs passes over everything it gets (all) or as "
                             "many as --epochs passes over the gold subset alone (gold, the default)")
    parser.add_argument("--ner-averages", action=argparse.BooleanOptionalAction, default=None,
                        help="ner: score the running average of the weights (spaCy's use_averages; the default)")
    parser.add_argument("--base-from", type=Path, action="append", default=[],
                        help="take the gold-only runs from this results file of the same learner and data "
                             "where it has the percent and seed (they do not depend on the augmenter, and the "
                             "learners are deterministic given the seed), instead of training them again; "
                             "repeatable")
    add_file_options(parser)
    add_budget_options(parser)
    return parser


def add_file_options(parser: argparse.ArgumentParser) -> None:
    """Where a run's results go, and what to do with results files instead of running."""
    parser.add_argument("--output", type=Path, default=None,
                        help="the results file of a run (default: results/downstream-runs/TASK-AUGMENTER.json); "
                             "with --grid the grid (default: results/downstream.json)")
    parser.add_argument("--grid", action="store_true",
                        help="combine the runs of GRID_SOURCES into one grid (every augmenter against gold only, "
                             "its copies and the best simple baseline, paired by seed), draw a plot per task and "
                             "evaluation set, print the tables and the verdict per task, and exit")
    parser.add_argument("--compare", type=Path, action="append", default=[],
                        help="print one table over several augmenters' results files (or a folder of them)")
    parser.add_argument("--eval-set", default=None,
                        help="with --compare: the F1 on this evaluation set (e.g. test, of --fn-test runs)")
    parser.add_argument("--table", action="store_true", help="print the markdown table of --output and exit")
    parser.add_argument("--merge", type=Path, action="append", default=[],
                        help="fold the points of another results JSON (a job run with its own --output, e.g. on "
                             "another machine or core) into --output, then exit; repeatable. Seed by seed: a seed "
                             "in both files takes the merged file's run. A file of another learner, data or "
                             "augmenter is refused")


def add_budget_options(parser: argparse.ArgumentParser) -> None:
    """Cui & Swayamdipta's Fig. 2: a fixed share of generated data, against copies and held-aside gold."""
    parser.add_argument("--srl-set", choices=("ewt", "framenet"), default="ewt",
                        help="srl: Universal PropBank EWT (PropBank roles given the predicate; the default) or "
                             "FrameNet 1.5 full text (frame-SRL: frame elements given the frame and its target; "
                             "reported on the dev documents; curve srl_framenet)")
    parser.add_argument("--augment-budget", type=float, default=None, metavar="PCT",
                        help="augment each subset only until its outputs reach PCT%% of the FULL training set "
                             "(e.g. 6.25): the subset's sentences in a seeded order, --augment-chunk at a time; "
                             "the outputs cut to exactly that count by a seeded sample (fewer, recorded, when the "
                             "subset runs out). With --augment-only the store gets exactly what the curve asks")
    parser.add_argument("--augment-chunk", type=int, default=8, metavar="N",
                        help="with --augment-budget: sentences given to the augmenter a call (default 8)")
    parser.add_argument("--gold-control", action="store_true",
                        help="also train on as many extra gold sentences as the augmented outputs, drawn with the "
                             "seed from the training set outside the subset (condition 'gold')")


def main() -> None:
    parser = build_parser()
    args = parser.parse_args()
    if args.grid:
        print(write_grid(args.output or GRID_OUTPUT))
        return
    if args.merge or args.compare or args.table:
        file_action(args, parser)
        return
    check_run_args(args, parser)
    if args.choose_positive_weight is not None:
        try:
            values = [float(v) for v in args.choose_positive_weight.split(",") if v.strip()]
        except ValueError:
            parser.error("--choose-positive-weight takes numbers, e.g. 1,2,4,8")
        if not values or any(not v > 0 for v in values):
            parser.error("--choose-positive-weight: each weight must be > 0")
        if args.task == "ner" or args.srl_set != "ewt":
            parser.error("--choose-positive-weight is for the frame_id and the (EWT) srl heads")
        choose(args, values)
        return
    run(args, parser)


def file_action(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """``--merge``, ``--compare`` or ``--table``: work on results files, no training."""
    from paraspan.evaluate.downstream.runner import merge_files
    from paraspan.evaluate.downstream.tables import compare, plot_title, table

    if (args.merge or args.table) and args.output is None:
        parser.error("--merge and --table need --output (the results file)")
    if args.table and not args.output.is_file():
        parser.error(f"{args.output}: no such results file — give the --output of a run")
    if args.merge:
        from paraspan.errors import ParaspanError

        try:
            print(table(merge_files(args.output, args.merge)))
        except ParaspanError as exc:
            parser.exit(2, f"{exc}\n")
        return
    if args.compare:
        print(compare(sorted(p for d in args.compare for p in (sorted(d.glob("*.json")) if d.is_dir() else [d])),
                      args.eval_set))
        return
    from paraspan.evaluate.downstream.plot import plot_curve

    data = json.loads(args.output.read_text())
    for task, meta in data.get("meta", {}).items():  # also redraw the plots from the JSON
        plot_curve(task, data[task], args.output.parent / f"downstream_{task}.png",
                   title=plot_title(task, meta, data[task]))
    print(table(data))


def check_run_args(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """Refuse what cannot run before any data is read; the default ``--output``."""
    if args.task is None:
        parser.error("--task is required")
    if args.positive_weight is not None and not args.positive_weight > 0:
        parser.error("--positive-weight must be > 0")
    if args.augment_budget is not None and not 0 < args.augment_budget <= 100:
        parser.error("--augment-budget is a percent of the full training set, in (0, 100], e.g. 6.25")
    if args.augment_chunk < 1:
        parser.error("--augment-chunk must be ≥ 1")
    if args.augment == "none" and (args.augment_budget is not None or args.gold_control):
        parser.error("--augment-budget and --gold-control need an --augment (the gold control matches its outputs)")
    if args.srl_set != "ewt" and args.task != "srl":
        parser.error("--srl-set is for --task srl")
    if args.output is None:  # one file per task and augmenter, so runs of different augmenters never mix
        name = Path(args.augment.split(":", 1)[-1]).stem
        args.output = RESULTS / "downstream-runs" / f"{task_key(args)}-{name}.json"


def make_augmenter(args: argparse.Namespace) -> Any:
    """The ``--augment`` augmenter (None for ``none``), on the structure kinds of the task."""
    from paraspan.evaluate.downstream.augment import get_augmenter
    from paraspan.evaluate.downstream.runner import TASK_KINDS

    if args.augment == "none":
        return None
    return get_augmenter(args.augment, filter=args.filter, store=args.store, store_dir=args.store_dir,
                         settings={"kinds": list(TASK_KINDS[args.task])}, overrides=args.augment_set,
                         prefix=task_key(args), workers=args.augment_workers)


def augmenter_detail(args: argparse.Namespace, augmenter: Any) -> str:
    """How the augmented data was made, in words (recorded in the results' meta)."""
    if args.augment_note:
        return args.augment_note
    if args.augment.startswith("generator:"):
        config = augmenter.config
        return (f"paraspan pipeline (read → generate → project → filter), generator "
                f"{config.generator.to_dict()}, aligner {config.aligner.name}, {config.iterations} "
                f"iteration(s) at most (1 when the generator ignores bans), choose_by {config.choose_by}; "
                f"the learner gets the outputs {args.filter} keeps")
    return {"rewrite": "paraspan.generate.rewrite.Rewriter (default RuleSet: hand-written + shipped learned "
                       "rules), at most 2 rewrites per sentence, label projection only (no output filter)"
            }.get(args.augment, "")


def run(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """The curve of ``--task`` (or ``--augment-only``), merged into ``--output``; prints its table."""
    import torch

    torch.set_num_threads(1)
    from paraspan.errors import ParaspanError
    from paraspan.evaluate.downstream.augment import spacy_pos
    from paraspan.evaluate.downstream.budget import Budget
    from paraspan.evaluate.downstream.curves import CurveConfig, curve_meta, run_curve
    from paraspan.evaluate.downstream.runner import (
        check_task_data,
        learner_setting,
        make_learner,
        recorded_base_runs,
        refuse_other_setting,
    )
    from paraspan.evaluate.downstream.tables import table

    started = time.perf_counter()
    try:  # missing data, an unknown generator or option: one line, before any training
        train, evals, report = load_task(args.task, args.shared, args.ner_set, args.exemplars, args.fn_test,
                                         args.srl_set)
        checks = check_task_data(args.task, train, evals, {})
        augmenter = make_augmenter(args)
    except ParaspanError as exc:
        parser.exit(2, f"{exc}\n")
    key = task_key(args)
    budget = Budget(args.augment_budget, args.augment_chunk) if args.augment_budget is not None else None
    if args.augment_only:
        augment_only(args, train, augmenter, budget)
        return
    pos = None
    if augmenter is not None and not args.no_lexsub:
        from paraspan.models import load_spacy

        pos = spacy_pos(load_spacy(exclude=("ner", "parser", "lemmatizer")))
    learner = make_learner(args.task, args.cache_dir, epochs=args.epochs,
                           positive_weight=args.positive_weight, budget=args.ner_budget,
                           averages=args.ner_averages)
    config = CurveConfig(percents=parse_percents(args.percents), seeds=seed_list(args), report=report,
                         lexsub=not args.no_lexsub, augment=augmenter is not None, copy_control=args.copy_control,
                         gold_control=args.gold_control, augment_budget=budget)
    meta: dict[str, Any] = {
        "augmenter": args.augment, "augmenter_detail": augmenter_detail(args, augmenter),
        **({"filter": args.filter} if args.augment.startswith("generator:") else {}),
        "dataset": dataset_name(args), "machine": machine(), "date": datetime.date.today().isoformat(),
        "command": "python benchmarks/downstream.py " + " ".join(sys.argv[1:]), **checks}
    meta.update(learner_setting(learner))
    if args.base_from:  # what a results file's meta records of its learner and data, as this run's would
        mine = {"dataset": meta["dataset"], "train_sentences": len(train), "report": report,
                "eval_sentences": {k: len(v) for k, v in evals.items()}, **learner_setting(learner)}
        try:
            config.base_runs = recorded_base_runs(args.base_from, key, mine, report)
        except ValueError as exc:
            parser.error(str(exc))
        meta["base_from"] = [str(path) for path in args.base_from]
    try:  # refused now rather than after the runs (the file holds portable paths; so must the comparison)
        refuse_other_setting(args.output, key, portable_meta({**meta, **curve_meta(train, evals, config)}, args))
    except ParaspanError as exc:
        parser.exit(2, f"{exc}\n")
    run_curve(learner, train, evals, config, augmenter, pos, on_point=saver(args, key, meta, augmenter, started),
              progress=lambda m: print(m, file=sys.stderr, flush=True))
    print(table(json.loads(args.output.read_text())))


def parse_percents(text: str) -> list[float]:
    """``--percents``: whole numbers stay whole (``10``, the key ``"10"`` of earlier results), others are
    fractions (``0.5``: 100 of WikiANN's 20,000 sentences); each in (0, 100]."""
    from paraspan.evaluate.downstream.data import percent_number

    out: list[float] = []
    for item in text.split(","):
        try:
            value: float | None = percent_number(item)
        except ValueError:
            value = None
        if value is None or not 0 < value <= 100:
            raise SystemExit(f"--percents: {item!r} is not a percent in (0, 100]")
        out.append(value)
    return out


def seed_list(args: argparse.Namespace) -> list[int]:
    return [int(s) for s in args.seed_list.split(",")] if args.seed_list else list(range(args.seeds))


def saver(args: argparse.Namespace, key: str, meta: dict[str, Any], augmenter: Any, started: float) -> Any:
    """What ``run_curve`` calls after each percent: the curve merged into ``--output``, its plot redrawn."""
    from paraspan.evaluate.downstream.plot import plot_curve
    from paraspan.evaluate.downstream.runner import merge_results
    from paraspan.evaluate.downstream.tables import plot_title

    def save(curve: Any) -> None:
        run = {"wall_seconds": round(time.perf_counter() - started), "cpu_seconds": round(cpu_seconds()),
               "peak_rss_mb": round(peak_rss_mb()), "load_average": load_average()}
        rewriter = getattr(augmenter, "_rewriter", None)
        if rewriter is not None:  # what the rule-based generator did (rules in use, skips)
            run["rewrite"] = {"rules": len(rewriter.rules.rules), "counts": dict(sorted(rewriter.counts.items()))}
        curve.task = key  # WikiANN stays "ner"; WNUT17 and FrameNet SRL get curves of their own
        # the file holds portable paths already; so must what is compared with it
        merge_results(args.output, curve, portable_meta({**meta, **run}, args))
        merged = portable(args.output, args)
        plot_curve(args.task, merged[key], args.output.parent / f"downstream_{key}.png",
                   title=plot_title(key, merged["meta"][key], merged[key]))

    return save


def augment_only(args: argparse.Namespace, train: list, augmenter: Any, budget: Any = None) -> None:
    """``--augment-only``: each seed's subset at each percent, as the curve draws it, augmented into
    the kept run store (with ``--augment-budget``: the chunks the curve will ask for, no more); what
    the augmenter reported is printed per subset."""
    from paraspan.evaluate.downstream.budget import augment_subset
    from paraspan.evaluate.downstream.data import sample_subset

    if not args.augment.startswith("generator:") or (args.store_dir is None and args.store is None):
        raise SystemExit("--augment-only needs --augment generator:NAME and --store-dir or --store "
                         "(the run is kept there)")
    done: list[dict[str, Any]] = []
    # what each subset cost and gave, next to the curve's results (``<output stem>-augment-only.json``)
    target = args.output.with_name(args.output.stem + "-augment-only.json")
    for percent in parse_percents(args.percents):
        for seed in seed_list(args):
            subset = sample_subset(train, percent, seed)
            got = augment_subset(augmenter, subset, seed, budget, len(train))
            outputs, record = got.outputs, {"budget": got.record} if got.record else {}
            report = {k: v for k, v in (got.report or {}).items() if k not in ("notes",)}
            print(f"{percent}% seed {seed}: {len(subset)} sentences, {len(outputs)} outputs kept; "
                  + json.dumps({**record, **report}, ensure_ascii=False)[:600], flush=True)
            done.append({"percent": percent, "seed": seed, "sentences": len(subset),
                         **{k: v for k, v in report.items() if k != "store"}, "kept": len(outputs), **record})
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps({"command": "python benchmarks/downstream.py " + " ".join(sys.argv[1:]),
                                          "machine": machine(), "date": datetime.date.today().isoformat(),
                                          **({"augment_budget": budget.to_dict(len(train))} if budget else {}),
                                          "subsets": done}, indent=1) + "\n", encoding="utf-8")


def choose(args: argparse.Namespace, values: list[float]) -> None:
    """``--choose-positive-weight``: the base learner alone at each weight; the grid and the choice
    go into ``--choices-output`` (merged with what earlier calls wrote)."""
    import torch

    torch.set_num_threads(1)
    from paraspan.corpus.jsonl import atomic_write
    from paraspan.evaluate.downstream.data import split_by_document
    from paraspan.evaluate.downstream.runner import choose_weight, make_learner, merge_grid, positive_weight_grid

    started = time.perf_counter()
    train, evals, _ = load_task(args.task, args.shared, args.ner_set, args.exemplars, fn_test=False,
                                srl_set=args.srl_set)
    if args.task == "frame_id":
        report, evals = "dev", {"dev": evals["dev"]}  # never the test documents
        scored_on = "FrameNet 1.5 full-text dev documents"
    else:  # SRL's only evaluation split is its test part: hold out training documents instead
        train, held = split_by_document(train, 0.25)
        report, evals = "heldout", {"heldout": held}
        scored_on = "25% of the training documents of UP EWT dev (split by document; the test part unused)"
    learner = make_learner(args.task, args.cache_dir, epochs=args.epochs)
    grid = positive_weight_grid(learner, train, evals, report, values, parse_percents(args.percents),
                                seed_list(args),
                                progress=lambda m: print(m, file=sys.stderr, flush=True))
    data = json.loads(args.choices_output.read_text()) if args.choices_output.is_file() else {}
    entry = data.setdefault(args.task, {}).setdefault("positive_weight", {})
    entry["grid"] = merge_grid(entry.get("grid", {}), grid)
    chosen, means = choose_weight(entry["grid"], args.choose_at)
    command = "python benchmarks/downstream.py " + " ".join(sys.argv[1:])
    entry.update({
        "what": "loss weight of the positive classes (frames / role tags) against NULL / O in the head; the base "
                "learner alone (gold subset only, no augmentation)",
        "scored_on": scored_on, "train_sentences": len(train), "eval_sentences": len(evals[report]),
        "criterion": f"highest mean F1 at {args.choose_at}% over the seeds every weight ran; ties: the smaller weight",
        "choose_at": args.choose_at, "chosen": chosen, "mean_f1": means,
        "head": {k: v for k, v in vars(learner.config).items() if k != "positive_weight"},
        "machine": machine(), "date": datetime.date.today().isoformat()})
    entry.setdefault("runs", []).append({"command": command, "wall_seconds": round(time.perf_counter() - started),
                                         "cpu_seconds": round(cpu_seconds()), "peak_rss_mb": round(peak_rss_mb()),
                                         "load_average": load_average()})
    args.choices_output.parent.mkdir(parents=True, exist_ok=True)
    with atomic_write(args.choices_output, "w") as handle:
        handle.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    for pct, row in sorted(means.items(), key=lambda kv: float(kv[0])):
        cells = ", ".join(f"w={w}: {v['mean']}" + (f" ± {v['sd']}" if v["sd"] is not None else "") + f" (n={v['n']})"
                          for w, v in sorted(row.items(), key=lambda kv: float(kv[0])))
        print(f"{args.task} {pct}% {report} F1: {cells}")
    print(f"chosen at {args.choose_at}%: {chosen}; wrote {args.choices_output}")


if __name__ == "__main__":
    main()
