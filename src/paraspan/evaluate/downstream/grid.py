"""One grid over the learning-curve runs of many augmenters, with a plain verdict per task.

Each run of ``benchmarks/downstream.py`` measures one augmenter (its subsets, gold only, its
copy control and the augmented data, paired by seed). A user choosing an augmenter needs them side
by side: per task, evaluation set and percent, every augmenter against gold only, against its own
copies and against the best simple baseline, paired by seed across runs (the subsets of a seed are
the same in every run). :func:`build_grid` does that and checks that the runs it combines used the
same learner; :func:`verdict` states, from the numbers, whether the issue's goal is met.

Every run trains gold only again on the same subsets, so the grid also reports how far those
retrainings of one seed disagree (``gold_only_reruns``): the learner's own noise from run to run
(on another machine, floating-point sums differ and training diverges), measured apart from
any augmenter. A gain smaller than that spread is not one the grid can tell from noise.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paraspan.evaluate.downstream.curves import paired_stats, summary
from paraspan.evaluate.downstream.data import percent_number

# Augmenters a user would try first (Dai & Adel 2020; Pancholy et al. 2021), and paraspan's own.
BASELINES = ("token_replace", "mention_replace", "synonym_replace", "sister_lu")
PARASPAN = ("cascade", "rewrite", "paraphrase", "infill", "sister_lu_infill")
ALPHA = 0.05


@dataclass(frozen=True)
class Source:
    """One results file of ``benchmarks/downstream.py`` and what of it the grid takes.

    ``percents``: the points taken (None: all); ``drop``: conditions left out, with ``note`` saying
    why (a copy control measured with a defect, say); ``task``: the grid task its runs go under
    (None: the file's own), so that runs of one task made with another learner get a table of their
    own instead of being refused; later sources replace earlier ones point by point.
    """

    path: str
    data: Mapping[str, Any]
    percents: tuple[str, ...] | None = None
    drop: tuple[str, ...] = ()
    note: str = ""
    task: str | None = None


@dataclass(frozen=True)
class Goal:
    """What an augmenter must show at ``percent`` on the reported set: at least ``min_gain`` F1 over
    each of ``against`` (``copy``: its own copy control; ``best_baseline``) with paired p < ``ALPHA``."""

    text: str
    percent: str = "10"
    verified_only: bool = False
    min_gain: float = 0.0
    against: tuple[str, ...] = ("copy",)


# The goals of issue 19, per task.
GOALS = {
    "frame_id": Goal("verified paraphrase data beats its copies and the best simple baseline by ≥ 1 F1 "
                     "(paired p < 0.05) at 10%", verified_only=True, min_gain=1.0,
                     against=("copy", "best_baseline")),
    "ner": Goal("the best paraspan generator beats its copies at 10% (paired p < 0.05)"),
    "ner_wnut17": Goal("the best paraspan generator beats its copies at 10% (paired p < 0.05)"),
    "srl": Goal("the best paraspan generator beats its copies at 10% (paired p < 0.05)"),
}


@dataclass
class _Entry:
    filter: str | None
    point: dict[str, Any]
    source: Source


def augmenter_name(meta: Mapping[str, Any]) -> str:
    """``generator:cascade`` → ``cascade``; ``rewrite`` (the unfiltered rule rewriter) stays."""
    name = str(meta.get("augmenter", "?"))
    return name.split(":", 1)[1] if name.startswith("generator:") else name


def kind(name: str) -> str:
    return "baseline" if name in BASELINES else "paraspan" if name in PARASPAN else "other"


def _learner(meta: Mapping[str, Any]) -> dict[str, Any]:
    return dict(meta.get("head") or meta.get("spacy") or {})


def _by_seed(point: Mapping[str, Any], condition: str, eval_set: str, report: str) -> dict[int, float]:
    values = point.get(condition) if eval_set == report else point.get("other", {}).get(eval_set, {}).get(condition)
    seeds = point.get("seeds") or list(range(len(point.get("base", []))))
    return {s: v for s, v in zip(seeds, values or [], strict=False) if v is not None}


def _paired(base: Mapping[int, float], other: Mapping[int, float]) -> dict[str, Any]:
    seeds = sorted(set(base) & set(other))
    return {**paired_stats([base[s] for s in seeds], [other[s] for s in seeds]), "seeds": seeds}


def _mean(values: Mapping[int, float]) -> float | None:
    return summary(list(values.values()))["mean"]


def build_grid(sources: Sequence[Source]) -> dict[str, Any]:
    """Per task: the augmenters, their learner, and per evaluation set and percent each augmenter's
    F1s and paired gains over gold only, its copies and the best simple baseline.

    Raises ``ValueError`` when runs of one task used different learners (their F1s would not be
    comparable) or one file holds no run."""
    entries: dict[str, dict[str, dict[str, _Entry]]] = {}  # task → percent → augmenter → entry
    reruns: dict[str, dict[str, dict[int, list[float]]]] = {}  # task → percent → seed → gold-only F1 per run
    tasks: dict[str, dict[str, Any]] = {}
    for source in sources:
        meta_all = source.data.get("meta")
        if not meta_all:
            raise ValueError(f"{source.path}: no 'meta' — not a results file of benchmarks/downstream.py")
        for file_task, meta in meta_all.items():
            task = source.task or file_task
            name = augmenter_name(meta)
            info = tasks.setdefault(task, {"dataset": meta.get("dataset"), "report": meta.get("report"),
                                           "learner": _learner(meta), "learner_from": source.path,
                                           "eval_sets": [], "augmenters": {}})
            if _learner(meta) != info["learner"]:
                raise ValueError(f"{source.path}: {task} was run with learner {_learner(meta)}, "
                                 f"{info['learner_from']} with {info['learner']} — their F1s are not comparable; "
                                 "rerun one of them with the other's settings")
            if meta.get("report") != info["report"]:
                raise ValueError(f"{source.path}: {task} reports {meta.get('report')!r}, "
                                 f"{info['learner_from']} {info['report']!r}")
            augmenter = info["augmenters"].setdefault(name, {"kind": kind(name), "filter": meta.get("filter"),
                                                             "sources": [], "notes": []})
            if source.path not in augmenter["sources"]:
                augmenter["sources"].append(source.path)
            if source.note and source.note not in augmenter["notes"]:
                augmenter["notes"].append(source.note)
            for percent, point in source.data.get(file_task, {}).items():
                if source.percents is not None and percent not in source.percents:
                    continue
                point = {k: v for k, v in point.items() if k not in source.drop}
                if "other" in point:
                    point["other"] = {e: {c: v for c, v in conds.items() if c not in source.drop}
                                      for e, conds in point["other"].items()}
                entries.setdefault(task, {}).setdefault(percent, {})[name] = _Entry(meta.get("filter"), point, source)
                # a gold-only run taken from another file (``base_from``) is no retraining: not counted
                taken = {s for s, f in zip(point.get("seeds") or [], point.get("base_from") or [], strict=False) if f}
                for seed, value in _by_seed(point, "base", info["report"], info["report"]).items():
                    if seed not in taken:
                        reruns.setdefault(task, {}).setdefault(percent, {}).setdefault(seed, []).append(value)
                for eval_set in [info["report"], *point.get("other", {})]:
                    if eval_set not in info["eval_sets"]:
                        info["eval_sets"].append(eval_set)

    grid: dict[str, Any] = {}
    for task, info in tasks.items():
        points: dict[str, dict[str, Any]] = {}
        for percent, by_name in sorted(entries.get(task, {}).items(), key=lambda kv: percent_number(kv[0])):
            # The best baseline is chosen on the reported set and kept on the others (never chosen on test).
            reported = _point(by_name, info["report"], info["report"])
            best = {n: (r["vs_best_baseline"] or {}).get("name") for n, r in reported.items()}
            for eval_set in info["eval_sets"]:
                row = reported if eval_set == info["report"] else _point(by_name, eval_set, info["report"], best)
                if row:
                    points.setdefault(eval_set, {})[percent] = row
        grid[task] = {k: v for k, v in info.items() if k != "learner_from"} | {"points": points}
        grid[task]["gold_only_reruns"] = rerun_spread(reruns.get(task, {}))
        grid[task]["verdict"] = verdict(task, grid[task])
    return grid


def rerun_spread(reruns: Mapping[str, Mapping[int, Sequence[float]]]) -> dict[str, Any]:
    """Per percent, how far the gold-only F1s of one seed (the same subset, retrained by each run)
    lie apart: the largest and the mean max − min over the seeds run more than once."""
    out: dict[str, Any] = {}
    for percent, by_seed in sorted(reruns.items(), key=lambda kv: percent_number(kv[0])):
        spreads = {seed: max(values) - min(values) for seed, values in by_seed.items() if len(values) > 1}
        if spreads:
            out[percent] = {"runs": max(len(v) for v in by_seed.values()), "seeds": sorted(spreads),
                            "spread_max": round(max(spreads.values()), 2),
                            "spread_mean": round(statistics.fmean(spreads.values()), 2),
                            "per_seed": {seed: list(by_seed[seed]) for seed in sorted(spreads)}}
    return out


def _point(by_name: Mapping[str, _Entry], eval_set: str, report: str,
           best_of: Mapping[str, str | None] | None = None) -> dict[str, Any]:
    """One percent on one evaluation set; ``best_of``: each augmenter's best baseline, as chosen on
    the reported set (None: choose here, by mean augmented F1)."""
    values = {name: {c: _by_seed(e.point, c, eval_set, report) for c in ("base", "augmented", "copy")}
              for name, e in by_name.items()}
    values = {name: v for name, v in values.items() if v["augmented"] and v["base"]}
    out: dict[str, Any] = {}
    for name, v in values.items():
        e = by_name[name]
        n_aug = [n for n in e.point.get("n_augmented", []) if n is not None]
        n_train = [n for n in e.point.get("n_train", []) if n is not None]
        cost = [s for s in e.point.get("augment_seconds", []) if s is not None]
        baselines = {n: w for n, w in values.items() if kind(n) == "baseline" and n != name}
        if best_of is None:
            best = max(baselines, key=lambda n: _mean(baselines[n]["augmented"]) or -1.0, default=None)
        else:
            best = best_of.get(name) if best_of.get(name) in baselines else None
        out[name] = {
            "filter": e.filter, "kind": kind(name), "source": e.source.path,
            "seeds": sorted(v["augmented"]), "n_train": round(statistics.fmean(n_train)) if n_train else None,
            "n_augmented": round(statistics.fmean(n_aug)) if n_aug else None,
            "augment_seconds": round(statistics.fmean(cost), 1) if cost else None,
            **{c: {**summary(list(v[c].values())), "per_seed": v[c]} for c in ("base", "augmented", "copy") if v[c]},
            "vs_base": _paired(v["base"], v["augmented"]),
            "vs_copy": _paired(v["copy"], v["augmented"]) if v["copy"] else None,
            "copy_vs_base": _paired(v["base"], v["copy"]) if v["copy"] else None,
            "vs_best_baseline": ({"name": best, **_paired(baselines[best]["augmented"], v["augmented"])}
                                 if best else None),
        }
    return out


def _significant(stats: Mapping[str, Any] | None, min_gain: float = 0.0) -> bool:
    return bool(stats and stats.get("gain_mean") is not None and stats.get("p_value") is not None
                and stats["gain_mean"] >= min_gain and stats["gain_mean"] > 0 and stats["p_value"] < ALPHA)


def _fmt(stats: Mapping[str, Any] | None) -> str:
    if not stats or stats.get("gain_mean") is None:
        return "n/a"
    p_value = stats.get("p_value")
    p = ("" if p_value is None else ", p < 0.001" if p_value < 0.001 else f", p = {p_value:.3f}" if p_value < 0.01
         else f", p = {p_value:.2f}")
    return f"{stats['gain_mean']:+.1f}{p}"


def verdict(task: str, task_grid: Mapping[str, Any]) -> dict[str, Any]:
    """Whether the task's goal is met, and per evaluation set and percent what helped or hurt,
    in words built from the numbers (significance: paired t-test over seeds, p < 0.05)."""
    goal = GOALS.get(task) or next((g for t, g in GOALS.items() if task.startswith(f"{t}_")), GOALS["ner"])
    report = task_grid["report"]
    at_goal = task_grid["points"].get(report, {}).get(goal.percent, {})
    candidates = {n: r for n, r in at_goal.items()
                  if r["kind"] == "paraspan" and (not goal.verified_only or r.get("filter") == "verified")}
    met_by = [n for n, r in candidates.items()
              if all(_significant(r.get("vs_copy" if a == "copy" else "vs_best_baseline"), goal.min_gain)
                     for a in goal.against)]
    lines = []
    if not candidates:
        lines.append(f"No {'verified ' if goal.verified_only else ''}paraspan generator was run at {goal.percent}%.")
    for name, r in sorted(candidates.items()):
        best = r.get("vs_best_baseline") or {}
        lines.append(f"{name} ({r.get('filter') or 'unfiltered'}) at {goal.percent}%, {report}: "
                     f"{_fmt(r['vs_base'])} over gold only, {_fmt(r.get('vs_copy'))} over its copies, "
                     f"{_fmt(best)} over the best simple baseline ({best.get('name', 'none')}); "
                     f"{len(r['seeds'])} seeds, {r['n_augmented']} new sentences a seed.")
    for eval_set, per_percent in task_grid["points"].items():
        for percent, rows in per_percent.items():
            up = [n for n, r in rows.items() if _significant(r["vs_base"])]
            down = [n for n, r in rows.items() if _significant(_negate(r["vs_base"]))]
            over_copy = [n for n, r in rows.items() if _significant(r.get("vs_copy"))]
            best = max(rows, key=lambda n: rows[n]["augmented"]["mean"])
            lines.append(
                f"{eval_set} {percent}%: above gold only (p < 0.05): {_names(up)}; below: {_names(down)}; "
                f"above its copies: {_names(over_copy)}; "
                f"highest mean: {best} ({_fmt(rows[best]['vs_base'])} over gold only).")
    return {"goal": goal.text, "met": bool(met_by), "met_by": sorted(met_by), "lines": lines}


def _names(names: Sequence[str]) -> str:
    return ", ".join(sorted(names)) or "none"


def _negate(stats: Mapping[str, Any]) -> dict[str, Any]:
    return {**stats, "gain_mean": -stats["gain_mean"] if stats.get("gain_mean") is not None else None}


def markdown(grid: Mapping[str, Any]) -> str:
    """The README tables: per task and evaluation set one row per percent and augmenter."""
    out = []
    for task, tg in grid.items():
        for eval_set, per_percent in tg["points"].items():
            out += [f"**{task}** — {tg['dataset']}, {eval_set} F1, mean over seeds; gains paired by seed",
                    "", "| % | augmenter | seeds | + sentences | gold only | augmented | copies | − gold only "
                    "| − copies | − best baseline |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
            for percent, rows in per_percent.items():
                for name, r in sorted(rows.items(), key=lambda kv: -kv[1]["augmented"]["mean"]):
                    best = r.get("vs_best_baseline")
                    label = f"{name} ({r['filter']})" if r.get("filter") else name
                    copies = f"{r['copy']['mean']:.1f}" if "copy" in r else "–"
                    out.append(f"| {percent} | {label} | {len(r['seeds'])} | {r['n_augmented'] or 0} "
                               f"| {r['base']['mean']:.1f} | {r['augmented']['mean']:.1f} | {copies} "
                               f"| {_fmt(r['vs_base'])} | {_fmt(r.get('vs_copy'))} "
                               f"| {_fmt(best) + ' vs ' + best['name'] if best else '–'} |")
            out.append("")
        if tg.get("gold_only_reruns"):
            spread = "; ".join(f"{percent}%: up to {r['spread_max']:.1f} (mean {r['spread_mean']:.1f}; "
                               f"{len(r['seeds'])} seeds, up to {r['runs']} runs)"
                               for percent, r in tg["gold_only_reruns"].items())
            out += [f"*{task}, gold only retrained on the same subsets by each run* (F1 max − min per seed): "
                    f"{spread}.", ""]
        v = tg["verdict"]
        out += [f"*{task} goal* ({v['goal']}): **{'met' if v['met'] else 'not met'}**"
                + (f" by {', '.join(v['met_by'])}" if v["met_by"] else "") + ".", ""]
        out += [f"- {line}" for line in v["lines"]] + [""]
    return "\n".join(out)
