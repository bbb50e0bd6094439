"""``paraspan evaluate downstream``: learning curves with and without augmented data."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from paraspan.cli.common import (
    FromFormat,
    Splits,
    console,
    feature_cache,
    input_format,
    read_input,
    reader_options,
    use_threads,
)
from paraspan.errors import ParaspanError


def _percents(value: str) -> list[int]:
    try:
        out = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise ParaspanError.from_code("E940",
                                      problem=f"--percents {value!r} is not a comma-separated list of integers",
                                      fix="e.g. --percents 10,25,50,100") from None
    if not out or any(p <= 0 or p > 100 for p in out):
        raise ParaspanError.from_code("E940", problem=f"--percents {value!r}: each must be in 1..100",
                                      fix="e.g. --percents 10,100")
    return out


def _read(path: Path, fmt: str | None, split: str | None, splits: Path | None) -> list:
    fmt = input_format(path, fmt)
    # --splits is for FrameNet; the other readers do not take it.
    options = reader_options(split=split, splits=splits) if fmt == "framenet" else {}
    return list(read_input(path, fmt, **options))


def _task_data(train: Path, eval_sets: list[str], from_fmt: str | None, splits: Path | None,
               split_by_document: float | None) -> tuple[list, dict[str, list], dict[str, str]]:
    """The training corpus, the evaluation sets by name and where each was read from."""
    from paraspan.evaluate.downstream.data import split_by_document as split_docs

    fmt_is_fn = (from_fmt == "framenet")
    gold = _read(train, from_fmt, "train" if fmt_is_fn and splits else None, splits)
    evals: dict[str, list] = {}
    where = {"train": str(train)}
    for item in eval_sets:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            raise ParaspanError.from_code("E942", item=item)
        evals[name] = _read(Path(path), from_fmt, name if fmt_is_fn and splits else None, splits)
        where[name] = path
    if not evals:
        if split_by_document is None:
            raise ParaspanError.from_code("E943")
        gold, evals["test"] = split_docs(gold, split_by_document)
    return gold, evals, where


def downstream_cmd(
    task: Annotated[str, typer.Option(help="frame_id, srl or ner.")],
    train: Annotated[Path, typer.Option(help="Gold training corpus (any readable format).")],
    eval_sets: Annotated[list[str] | None, typer.Option(
        "--eval", help="NAME=FILE evaluation set (repeatable); FrameNet with --splits: NAME is the split.")] = None,
    from_fmt: FromFormat = None,
    splits: Splits = None,
    split_by_document: Annotated[float | None, typer.Option(
        help="With no --eval: hold out this fraction of the training documents as 'test' (SRL on EWT dev).")] = None,
    augment: Annotated[str, typer.Option(help=(
        "Augmenter: none, rewrite, another registered name, generator:NAME (a registered generator through "
        "`paraspan augment`'s pipeline on each gold subset), jsonl:PATH (made from the subsets) or "
        "jsonl-corpus:PATH (made from the whole training corpus)."))] = "none",
    filter_name: Annotated[str, typer.Option("--filter", help=(
        "generator:NAME: what the learner gets and what a candidate must pass (verified, all, a preset, "
        "a rule or a registered filter, as `paraspan augment --filter`)."))] = "verified",
    store: Annotated[Path | None, typer.Option(help=(
        "generator:NAME: reuse this run store (it must hold the subsets' sentences).")
    )] = None,
    store_dir: Annotated[Path | None, typer.Option(help=(
        "generator:NAME: keep one run store per corpus and settings here, so each gold sentence is "
        "augmented once and reused by later seeds, percents and runs."))] = None,
    overrides: Annotated[list[str] | None, typer.Option("--set", help=(
        "generator:NAME: KEY=VALUE into the run config, as `paraspan augment --set` (repeatable), e.g. "
        "--set iterations=1 --set generator.frames=FRAMENET."))] = None,
    workers: Annotated[int, typer.Option(min=1, help="generator:NAME: worker processes for the pipeline.")] = 1,
    lexsub: Annotated[bool, typer.Option(help="Also run the lexical-substitution ablation.")] = True,
    copy_control: Annotated[bool, typer.Option(
        help="Also train on copies of the augmented outputs' sources (same count): diversity vs. re-weighting.")
    ] = False,
    gold_control: Annotated[bool, typer.Option(
        help="Also train on as many extra gold sentences as the augmented outputs, drawn from the training "
             "corpus outside the subset (condition 'gold'): the outputs against more real data.")] = False,
    augment_budget: Annotated[float | None, typer.Option(metavar="PCT", help=(
        "Augment each subset only until its outputs reach PCT% of the whole training corpus (e.g. 6.25, as "
        "Cui & Swayamdipta): its sentences in a seeded order, --augment-chunk a call, the outputs cut to "
        "that count."))] = None,
    augment_chunk: Annotated[int, typer.Option(min=1, help="With --augment-budget: sentences a call.")] = 8,
    percents: Annotated[str, typer.Option(help="Training percents.")] = "10,25,50,100",
    seeds: Annotated[int, typer.Option(min=1, help="Seeds (resampled subsets) per point.")] = 3,
    report: Annotated[str | None, typer.Option(
        help="Evaluation set whose F1 fills the curves (default: first).")] = None,
    output: Annotated[Path, typer.Option(
        "--output", "-o",
        help="Results JSON (merged by task, seed by seed; one of another learner, data or augmenter is refused).")
    ] = Path("downstream.json"),
    plot: Annotated[Path | None, typer.Option(help="Write the curve as a PNG here.")] = None,
    cache_dir: Annotated[Path | None, typer.Option(
        help="Frozen-feature cache folder (default: a per-user folder in the paraspan cache).")] = None,
    epochs: Annotated[int | None, typer.Option(min=1, help="Training epochs (default: the learner's).")] = None,
    threads: Annotated[int, typer.Option(min=1, help="torch threads.")] = 1,
    ner_budget: Annotated[str | None, typer.Option(
        help="ner: the learner's updates — `all` (epochs passes over everything it gets) or `gold` (as many as "
             "epochs passes over the gold subset alone, so added sentences get no extra updates; the default).")
    ] = None,
    ner_averages: Annotated[bool | None, typer.Option(
        "--ner-averages/--no-ner-averages",
        help="ner: score the running average of the weights (default: the learner's).")] = None,
) -> None:
    """Learning curves: train on slices of the gold data with and without augmented sentences."""
    from paraspan.evaluate.downstream.augment import get_augmenter, spacy_pos
    from paraspan.evaluate.downstream.budget import Budget
    from paraspan.evaluate.downstream.curves import CurveConfig, curve_meta, run_curve
    from paraspan.evaluate.downstream.ner import BUDGETS
    from paraspan.evaluate.downstream.runner import (
        TASK_KINDS,
        check_task_data,
        learner_setting,
        make_learner,
        merge_results,
        refuse_other_setting,
    )

    err = console()
    if task not in TASK_KINDS:
        raise ParaspanError.from_code("E941", task=task, choices=", ".join(TASK_KINDS))
    if ner_budget is not None and ner_budget not in BUDGETS:
        raise ParaspanError.from_code("E945", value=ner_budget)
    if augment_budget is not None and not 0 < augment_budget <= 100:
        raise ParaspanError.from_code("E940", problem=f"--augment-budget {augment_budget:g} is not in (0, 100]",
                                      fix="a percent of the whole training corpus, e.g. --augment-budget 6.25")
    gold, evals, where = _task_data(train, eval_sets or [], from_fmt, splits, split_by_document)
    checks = check_task_data(task, gold, evals, where)
    report_name = report or next(iter(evals))
    if report_name not in evals:
        raise ParaspanError.from_code("E944", report_name=report_name, choices=", ".join(evals))
    augmenter = None
    if augment != "none":
        # the task's structure kinds only (generator:NAME: a corpus's other kinds are not augmented)
        augmenter = get_augmenter(augment, filter=filter_name, store=store, store_dir=store_dir,
                                  settings={"kinds": list(TASK_KINDS[task])}, overrides=tuple(overrides or ()),
                                  prefix=train.stem, workers=workers)
    pos = None
    if augmenter is not None and lexsub:
        from paraspan.models import load_spacy

        pos = spacy_pos(load_spacy(exclude=("ner", "parser", "lemmatizer")))
    use_threads(threads)
    learner = make_learner(task, cache_dir or feature_cache("downstream"),
                           epochs=epochs, budget=ner_budget if task == "ner" else None,
                           averages=ner_averages if task == "ner" else None)
    config = CurveConfig(percents=_percents(percents), seeds=list(range(seeds)), report=report_name,
                         lexsub=lexsub, augment=augmenter is not None, copy_control=copy_control,
                         gold_control=gold_control,
                         augment_budget=Budget(augment_budget, augment_chunk) if augment_budget is not None else None)
    meta = {"augmenter": augment, **checks, **learner_setting(learner)}
    if augment.startswith("generator:"):
        meta.update({"filter": filter_name, "settings": list(overrides or ())})
    # a results file of another learner, data or augmenter is refused now, not after the runs
    refuse_other_setting(output, learner.name, {**meta, **curve_meta(gold, evals, config)})
    curve = run_curve(learner, gold, evals, config, augmenter, pos,
                      on_point=lambda c: merge_results(output, c, meta), progress=err.print)
    merge_results(output, curve, meta)
    if plot is not None:
        from paraspan.evaluate.downstream.plot import plot_curve

        plot_curve(task, curve.points, plot, title=f"{task} ({report_name}), augmenter: {augment}")
    for percent, point in curve.points.items():
        line = f"{percent}%: base {point['summary']['base']}"
        for condition in ("augmented", "lexsub", "copy", "gold"):
            if condition in point.get("gain", {}):
                line += f"; {condition} {point['summary'][condition]} gain {point['gain'][condition]}"
        err.print(line)
    err.print(f"wrote {output}" + (f" and {plot}" if plot else ""))
