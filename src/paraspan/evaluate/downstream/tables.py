"""The markdown tables ``benchmarks/downstream.py`` prints: one results file (:func:`table`, the README
table of a curve) and several augmenters' files side by side (:func:`compare`).

Gains are paired by seed (the seeds of a point share their gold subset): over gold only, over the
copy control, and, where a run had the held-aside gold control, the control over gold only and the
augmented data over it.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from paraspan.evaluate.downstream.curves import paired_stats
from paraspan.evaluate.downstream.data import percent_number

#: the tasks of ``benchmarks/downstream.py`` in the order their tables are printed (others follow)
TASK_ORDER = ("frame_id", "ner", "ner_wnut17", "srl", "srl_framenet")


def compare(files: list[Path], eval_set: str | None = None) -> str:
    """One table over several augmenters' results files (one augmenter each, the same seeds, hence
    the same gold subsets): per task and percent, each augmenter against gold only, against its
    own copy control, and against the best other augmenter at that point, all paired by seed.
    ``eval_set``: the F1 on that evaluation set instead of the reported one (``test``: FrameNet's
    test documents of a ``--fn-test`` run); points without it are left out."""
    rows: dict[tuple[str, int], list[tuple[str, dict[str, Any]]]] = {}
    for path in files:
        data = json.loads(path.read_text())
        if "meta" not in data:  # an --augment-only cost file
            continue
        for task, points in data.items():
            if task == "meta":
                continue
            name = str(data["meta"][task].get("augmenter", path.stem))
            filt = data["meta"][task].get("filter")
            name += f" ({filt})" if filt else ""
            for percent, point in points.items():
                if eval_set is not None and eval_set != data["meta"][task].get("report"):
                    other = point.get("other", {}).get(eval_set)
                    if not other:
                        continue
                    point = {**point, **other}
                rows.setdefault((task, percent_number(percent)), []).append((name, point))

    def f1(values: list[float | None]) -> str:
        got = [v for v in values if v is not None]
        return f"{statistics.fmean(got):.1f}" if got else "–"

    def gain(stats: dict[str, Any]) -> str:
        if stats["gain_mean"] is None:
            return "–"
        p = f", p={stats['p_value']:.3f}" if stats["p_value"] is not None else ""
        return f"{stats['gain_mean']:+.1f}{p}"

    out = ["| task | % | augmenter | seeds | + sentences | base F1 | augmented F1 | copy F1 | − base | − copy | "
           "− best other |", "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for (task, percent), entries in sorted(rows.items()):
        means = {name: statistics.fmean([v for v in point.get("augmented", []) if v is not None] or [0.0])
                 for name, point in entries}
        for name, point in sorted(entries, key=lambda e: -means[e[0]]):
            others = [(n, p) for n, p in entries if n != name and p.get("augmented")]
            best = max(others, key=lambda e: means[e[0]], default=None)
            vs_best = (f"{gain(paired_stats(best[1]['augmented'], point['augmented']))} vs {best[0]}"
                       if best and point.get("augmented") else "–")
            n_aug = [v for v in point.get("n_augmented", []) if v is not None]
            out.append(
                f"| {task} | {percent} | {name} | {len(point.get('base', []))} | "
                f"{statistics.fmean(n_aug) if n_aug else 0:.0f} | {f1(point.get('base', []))} | "
                f"{f1(point.get('augmented', []))} | {f1(point.get('copy', []))} | "
                f"{gain(paired_stats(point.get('base', []), point.get('augmented', [])))} | "
                f"{gain(paired_stats(point.get('copy', []), point.get('augmented', [])))} | {vs_best} |")
    return "\n".join(out)


def plot_title(task: str, meta: dict[str, Any], points: dict[str, Any]) -> str:
    """The title of a results file's plot of ``task``: its data, reported set, augmenter and seeds."""
    runs = max((len(point.get("base", [])) for point in points.values()), default=0)
    return (f"{task}: {meta.get('dataset', '?')} ({meta.get('report', '?')} F1, mean ± sd over seeds)\n"
            f"augmenter: {str(meta.get('augmenter', '?')).split('/')[-1]}; {runs} seed(s) per point")


def _ms(s: dict[str, Any] | None) -> str:
    if not s or s.get("mean") is None:
        return "–"
    return f"{s['mean']:.1f} ± {s['sd']:.1f}" if s.get("sd") is not None else f"{s['mean']:.1f}"


def _gain(g: dict[str, Any] | None) -> str:
    if not g or g.get("gain_mean") is None:
        return "–"
    text = f"{g['gain_mean']:+.1f}"
    if g.get("gain_sd") is not None:
        text += f" ± {g['gain_sd']:.1f}"
    if g.get("p_value") is not None:
        text += f" (p={g['p_value']:.3f})"
    return text


def _mean_count(values: list[int | None] | None) -> str:
    done = [v for v in values or [] if v is not None]
    return str(round(sum(done) / len(done))) if done else "–"


def _tasks(data: dict[str, Any]) -> list[str]:
    tasks = [t for t in data if t != "meta"]
    return sorted(tasks, key=lambda t: TASK_ORDER.index(t) if t in TASK_ORDER else len(TASK_ORDER))


def table(data: dict[str, Any]) -> str:
    """The README table of one results file: per task and percent, mean ± sd over seeds of each
    condition and the paired gains; the held-aside gold control's columns where a run had it, and
    a line per budgeted point (what the budget asked and got)."""
    gold = any("gold" in point for task in _tasks(data) for point in data[task].values())
    head = ("| task | % gold | n gold | + augmented | base F1 | augmented F1 | gain (paired) | lexsub F1 "
            "| lexsub gain | copy-control F1 | augmented − copy |")
    rule = "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    if gold:
        head += " + held-aside gold | gold-control F1 | gold − base | augmented − gold |"
        rule += "---:|---:|---:|---:|"
    lines, notes = [head, rule], []
    for task in _tasks(data):
        meta = data.get("meta", {}).get(task, {})
        for percent, point in sorted(data[task].items(), key=lambda kv: percent_number(kv[0])):
            summ, gains = point.get("summary", {}), point.get("gain", {})
            row = (f"| {task} ({meta.get('report', '?')}) | {percent} | {_mean_count(point['n_train'])} "
                   f"| {_mean_count(point.get('n_augmented'))} | {_ms(summ.get('base'))} "
                   f"| {_ms(summ.get('augmented'))} | {_gain(gains.get('augmented'))} | {_ms(summ.get('lexsub'))} "
                   f"| {_gain(gains.get('lexsub'))} | {_ms(summ.get('copy'))} "
                   f"| {_gain(paired_stats(point['copy'], point['augmented']) if 'copy' in point else None)} |")
            if gold:
                versus = paired_stats(point["gold"], point["augmented"]) if "gold" in point else None
                row += (f" {_mean_count(point.get('n_gold'))} | {_ms(summ.get('gold'))} "
                        f"| {_gain(gains.get('gold'))} | {_gain(versus)} |")
            lines.append(row)
            notes += _budget_note(task, percent, meta, point)
    return "\n".join(lines + ([""] + notes if notes else []))


def _budget_note(task: str, percent: str, meta: dict[str, Any], point: dict[str, Any]) -> list[str]:
    """One line on a budgeted point: the count asked, the seeds that reached it, the sentences used."""
    budget, records = meta.get("augment_budget"), point.get("budget")
    if not budget or not records:
        return []
    seeds = point.get("seeds") or list(range(len(records)))
    done = [(s, r) for s, r in zip(seeds, records, strict=False) if r]
    short = [str(s) for s, r in done if not r.get("reached")]
    used = [r.get("sentences_used", 0) for _, r in done]
    return [f"{task} {percent}%: augmented to a budget of {budget['count']} sentences ({budget['percent']:g}% of "
            f"{meta.get('train_sentences', '?')}), {budget['chunk']} a call; from {min(used)}–{max(used)} of "
            f"{_mean_count(point['n_train'])} subset sentences; "
            + (f"short of it for seed(s) {', '.join(short)} (the subset ran out)." if short else
               "reached for every seed.")]
