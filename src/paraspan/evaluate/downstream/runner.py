"""Glue shared by ``paraspan evaluate downstream`` and ``benchmarks/downstream.py``: build a learner,
read and check the data, run the curve, merge the results into one JSON file and plot them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import CorpusError, ParaspanError
from paraspan.evaluate.downstream.curves import Curve, combine_points, setting_differences
from paraspan.evaluate.downstream.data import percent_number
from paraspan.evaluate.downstream.learners import HeadConfig, Learner, learners

#: The structure kinds each task trains on.
TASK_KINDS = {"frame_id": ("frame",), "srl": ("srl", "frame"), "ner": ("entity",)}


def head_config(task: str, *, epochs: int | None = None, positive_weight: float | None = None) -> HeadConfig:
    """The head settings of a feature learner: its module's defaults (``default_config``), with
    ``epochs`` and ``positive_weight`` when given."""
    import importlib

    module = importlib.import_module(getattr(learners().get(task), "__module__", __name__))
    config: HeadConfig = module.default_config() if hasattr(module, "default_config") else HeadConfig()
    changes: dict[str, Any] = {}
    if epochs:
        changes["epochs"] = epochs
    if positive_weight is not None:
        changes["positive_weight"] = float(positive_weight)
    return replace(config, **changes)


def make_learner(task: str, cache_dir: str | Path | None, *, epochs: int | None = None,
                 encoder: str | None = None, positive_weight: float | None = None,
                 budget: str | None = None, averages: bool | None = None) -> Learner:
    """The registered learner for ``task``; the feature learners share one cached frozen encoder.
    ``positive_weight``: the head's loss weight of positive classes (default: the learner's);
    ``budget``, ``averages``: the NER learner's updates (``all`` or ``gold``) and whether it scores
    averaged weights (see ``SpacyNerLearner``); None: the learner's default."""
    factory = learners().get(task)
    if task == "ner":
        options = {"epochs": epochs, "budget": budget, "averages": averages}
        return factory(**{k: v for k, v in options.items() if v is not None})
    from paraspan.evaluate.downstream.features import open_cache

    config = head_config(task, epochs=epochs, positive_weight=positive_weight)
    return factory(open_cache(cache_dir, encoder), config)


def check_task_data(task: str, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]],
                    where: dict[str, str]) -> dict[str, Any]:
    """Refuse data with nothing to learn or score; count labels the training data never shows."""
    kinds = TASK_KINDS[task]

    def labels(sentences: Sequence[Sentence]) -> set[str]:
        out: set[str] = set()
        for s in sentences:
            for st in s.structures:
                if st.kind in kinds:
                    out.update([st.label] if task != "srl" else [a.label or "" for a in st.args])
        return out

    if not train:
        raise CorpusError.from_code("E920", file=where.get('train'))
    seen = labels(train)
    if not seen:
        raise CorpusError.from_code("E921", file=where.get('train'), choices="/".join(kinds), task=task)
    unseen = {}
    for name, sentences in evals.items():
        if not sentences:
            raise CorpusError.from_code("E922", file=where.get(name), name=name)
        unseen[name] = sorted(labels(sentences) - seen)
    return {"labels_in_train": len(seen), "eval_labels_unseen_in_train": {k: len(v) for k, v in unseen.items()},
            "eval_labels_unseen_examples": {k: v[:10] for k, v in unseen.items()}}


def learner_setting(learner: Learner) -> dict[str, Any]:
    """What a results file records of ``learner``'s settings (``head`` or ``spacy``), so that runs
    of another setting are told apart (``setting_differences``)."""
    if hasattr(learner, "config"):
        return {"head": vars(learner.config)}
    if hasattr(learner, "epochs"):
        return {"spacy": {"epochs": learner.epochs, "max_steps": learner.max_steps,
                          # recorded only when not the default, so the runs before the option stay comparable
                          **({"budget": learner.budget} if learner.budget != "all" else {}),
                          **({"averages": True} if learner.averages else {})}}
    return {}


def read_results(target: Path) -> dict[str, Any]:
    """The results JSON at ``target`` ({} when there is none); E930 when it is not JSON."""
    if not target.is_file():
        return {}
    try:
        return json.loads(target.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ParaspanError.from_code("E930", file=str(target), line=exc.lineno, msg=exc.msg) from None


def refuse_other_setting(path: str | Path, task: str, meta: dict[str, Any], data: dict[str, Any] | None = None
                         ) -> None:
    """E931 when the results file at ``path`` holds a ``task`` curve whose learner, data or augmenter
    differ from ``meta``'s: one point must never mix them. Call it before training as well, since
    ``merge_results`` would refuse the curve only after the runs it cost."""
    data = read_results(Path(path)) if data is None else data
    stored = data.get("meta", {}).get(task)
    if stored is not None and data.get(task):
        differ = setting_differences(stored, meta)
        if differ:
            raise ParaspanError.from_code("E931", file=str(path), task=task, differ="; ".join(differ))


def merge_results(path: str | Path, curve: Curve, meta: dict[str, Any]) -> dict[str, Any]:
    """Write ``curve`` under its task in the JSON at ``path`` (other tasks are kept), atomically."""
    from paraspan.corpus.jsonl import atomic_write

    target = Path(path)
    data = read_results(target)
    # Points of other percents (run by another job) are kept; a percent run again is combined with the
    # stored one, seed by seed (a seed run again replaces its record).
    refuse_other_setting(target, curve.task, {**curve.meta, **meta}, data)
    points = data.setdefault(curve.task, {})
    for percent, point in curve.points.items():
        points[percent] = combine_points(points[percent], point) if percent in points else point
    task_meta = data.setdefault("meta", {}).setdefault(curve.task, {})
    task_meta.update({**curve.meta, **meta, "percents": sorted(data[curve.task], key=percent_number)})
    task_meta.setdefault("commands", [])
    if meta.get("command") and meta["command"] not in task_meta["commands"]:
        task_meta["commands"].append(meta["command"])
    with atomic_write(target, "w") as handle:
        handle.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return data


def merge_files(target: Path, others: Sequence[Path]) -> dict[str, Any]:
    """Points of ``others`` folded into the results file ``target`` seed by seed (a seed in both is
    replaced by the other's run); a file of another learner, data or augmenter is refused (E931).
    Returns what ``target`` now holds."""
    from paraspan.corpus.jsonl import atomic_write

    data = read_results(target)
    for other in others:
        extra = json.loads(Path(other).read_text(encoding="utf-8"))
        for task, meta in extra.get("meta", {}).items():
            refuse_other_setting(f"{target} (merging {other})", task, meta, data)
            points = data.setdefault(task, {})
            for percent, point in extra.get(task, {}).items():
                points[percent] = combine_points(points[percent], point) if percent in points else point
            task_meta = data.setdefault("meta", {}).setdefault(task, dict(meta))
            task_meta["percents"] = sorted(points, key=percent_number)
            for command in meta.get("commands", [meta.get("command")]):
                if command and command not in task_meta.setdefault("commands", []):
                    task_meta["commands"].append(command)
    with atomic_write(target, "w") as handle:
        handle.write(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    return data


def recorded_base_runs(files: Sequence[Path], key: str, mine: dict[str, Any], report: str
                       ) -> dict[tuple[int, int], Any]:
    """The gold-only runs of the ``key`` curves of earlier results files, by (percent, seed). ``mine``:
    what this run's meta records of its learner and data; a file of another learner setting, dataset
    or evaluation set is refused (``ValueError``): its gold-only F1s are not this run's."""
    from paraspan.evaluate.downstream.curves import LEARNER_SETTING, recorded_bases

    runs: dict[tuple[int, int], Any] = {}
    for path in files:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"--base-from {path}: cannot read it ({exc})") from None
        old = data.get("meta", {}).get(key)
        if old is None or key not in data:
            raise ValueError(f"--base-from {path}: no {key} curve in it (it has {sorted(data.get('meta', {}))})")
        differ = setting_differences(old, mine, LEARNER_SETTING)
        if differ:
            raise ValueError(f"--base-from {path}: another learner or data — " + "; ".join(differ))
        for percent, point in data[key].items():
            for seed, recorded in recorded_bases(point, report, str(path)).items():
                runs.setdefault((percent_number(percent), seed), recorded)
    return runs


# --------------------------------------------------------------------------- choosing the positive weight


def _weight_key(value: float) -> str:
    return f"{float(value):g}"


def positive_weight_grid(learner: Any, train: Sequence[Sentence], evals: dict[str, Sequence[Sentence]],
                         report: str, values: Sequence[float], percents: Sequence[float], seeds: Sequence[int],
                         progress: Any = None) -> dict[str, dict[str, dict[str, list[Any]]]]:
    """The base learner alone (gold subset only, no augmentation) at each positive weight:
    ``{weight: {percent: {"seeds": [...], "f1": [...], "precision", "recall", "seconds", "diverged"}}}``
    on ``evals[report]``. Every weight of a (percent, seed) trains on the same subset with the same seed."""
    from paraspan.evaluate.downstream.data import sample_subset

    if report not in evals:
        raise ValueError(f"report set {report!r} is not among the evaluation sets {sorted(evals)}")
    say = progress or (lambda message: None)
    grid: dict[str, dict[str, dict[str, list[Any]]]] = {}
    for percent in percents:
        for seed in seeds:
            subset = sample_subset(train, percent, seed)
            for value in values:
                run = replace(learner, config=replace(learner.config, positive_weight=float(value)))
                result = run.run(subset, {report: evals[report]}, seed)
                score = result.scores.get(report, {})
                cell = grid.setdefault(_weight_key(value), {}).setdefault(str(percent), {})
                cell.setdefault("seeds", []).append(seed)
                for key in ("f1", "precision", "recall"):
                    cell.setdefault(key, []).append(score.get(key))
                cell.setdefault("seconds", []).append(round(result.seconds, 1))
                cell.setdefault("diverged", []).append(result.diverged)
                say(f"{learner.name} {percent}% seed {seed} positive weight {value:g}: {report} F1 "
                    f"{score.get('f1')} (P {score.get('precision')}, R {score.get('recall')}; {result.seconds:.0f}s)")
    return grid


def merge_grid(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """``new`` folded into ``old``: per weight and percent, a seed run again replaces its old entry."""
    out = json.loads(json.dumps(old))
    for weight, by_percent in new.items():
        for percent, cell in by_percent.items():
            have = out.setdefault(weight, {}).setdefault(percent, {})
            seeds = list(have.get("seeds", []))
            rows = {s: {k: v[i] for k, v in have.items() if k != "seeds"} for i, s in enumerate(seeds)}
            for i, seed in enumerate(cell["seeds"]):
                rows[seed] = {k: v[i] for k, v in cell.items() if k != "seeds"}
            order = sorted(rows)
            keys = sorted({k for row in rows.values() for k in row})
            out[weight][percent] = {"seeds": order, **{k: [rows[s].get(k) for s in order] for k in keys}}
    return out


def choose_weight(grid: dict[str, Any], percent: int) -> tuple[float | None, dict[str, dict[str, Any]]]:
    """The weight with the highest mean F1 at ``percent`` over the seeds every weight ran (ties:
    the smaller weight, the closer to unweighted), and the mean F1 per percent and weight."""
    import statistics

    means: dict[str, dict[str, Any]] = {}
    for weight, by_percent in grid.items():
        for pct, cell in by_percent.items():
            done = [f for f in cell.get("f1", []) if f is not None]
            means.setdefault(pct, {})[weight] = {
                "mean": round(statistics.fmean(done), 2) if done else None,
                "sd": round(statistics.stdev(done), 2) if len(done) >= 2 else None, "n": len(done)}
    at = {w: by_percent[str(percent)] for w, by_percent in grid.items() if str(percent) in by_percent}
    if not at:
        return None, means
    common = set.intersection(*(set(c["seeds"]) for c in at.values()))

    def paired_mean(cell: dict[str, Any]) -> float | None:
        done = [f for s, f in zip(cell["seeds"], cell["f1"], strict=True) if s in common and f is not None]
        return statistics.fmean(done) if done and len(done) == len(common) else None

    scored = [(m, float(w)) for w, cell in at.items() if (m := paired_mean(cell)) is not None]
    if not scored:
        return None, means
    best = max(m for m, _ in scored)
    return min(w for m, w in scored if m == best), means
