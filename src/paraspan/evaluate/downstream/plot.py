"""Learning-curve plots (matplotlib, imported only here; ``pip install matplotlib``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paraspan.errors import ParaspanError
from paraspan.evaluate.downstream.data import percent_number

_STYLE = {"base": ("gold only", "tab:blue", "o"), "augmented": ("gold + augmented", "tab:orange", "s"),
          "lexsub": ("gold + lexical substitution", "tab:green", "^"),
          "copy": ("gold + copies (control)", "tab:gray", "x"),
          "gold": ("gold + held-aside gold (control)", "tab:red", "D")}


def _pyplot() -> Any:
    """matplotlib's pyplot on the file-only backend (no display on a server)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ParaspanError.from_code("E910") from None
    return plt


def _save(plt: Any, fig: Any, path: str | Path) -> Path:
    fig.tight_layout()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target)
    plt.close(fig)
    return target


def plot_curve(task: str, points: dict[str, dict[str, Any]], path: str | Path, *, title: str | None = None,
               metric: str = "F1") -> Path:
    """One PNG: mean F1 ± sd over seeds per training percent, one line per condition."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=120)
    percents = sorted(points, key=percent_number)
    for condition, (label, color, marker) in _STYLE.items():
        xs, means, sds = [], [], []
        for p in percents:
            stats = points[p].get("summary", {}).get(condition)
            if stats and stats.get("mean") is not None:
                xs.append(percent_number(p))
                means.append(stats["mean"])
                sds.append(stats.get("sd") or 0.0)
        if xs:
            ax.errorbar(xs, means, yerr=sds, label=label, color=color, marker=marker, capsize=3)
    ax.set_xlabel("% of gold training sentences")
    ax.set_ylabel(metric)
    ax.set_xticks([percent_number(p) for p in percents], labels=percents)
    ax.set_title(title or task, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(plt, fig, path)


def plot_grid(task_grid: dict[str, Any], eval_set: str, path: str | Path, *, title: str | None = None) -> Path:
    """One PNG per task and evaluation set: each augmenter's paired gain over gold only (mean ± sd
    over seeds) per training percent, solid, and its copy control's, dashed in the same colour."""
    plt = _pyplot()
    points = task_grid["points"][eval_set]
    names = sorted({name for rows in points.values() for name in rows})
    percents = sorted(points, key=percent_number)
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    colors = plt.get_cmap("tab10")
    for i, name in enumerate(names):
        for key, style, suffix in (("vs_base", "-", ""), ("copy_vs_base", "--", " copies")):
            xs, ys, sds = [], [], []
            for p in percents:
                stats = (points[p].get(name) or {}).get(key)
                if stats and stats.get("gain_mean") is not None:
                    xs.append(percent_number(p) * (1 + 0.025 * (i - (len(names) - 1) / 2)))  # apart, so error bars show
                    ys.append(stats["gain_mean"])
                    sds.append(stats.get("gain_sd") or 0.0)
            if xs:
                ax.errorbar(xs, ys, yerr=sds, linestyle=style, color=colors(i % 10), marker="o" if not suffix else "x",
                            capsize=2, label=name + suffix, alpha=1.0 if not suffix else 0.55)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xticks([percent_number(p) for p in percents], labels=[f"{p}%" for p in percents])
    ax.minorticks_off()
    ax.set_xlabel("gold training sentences")
    ax.set_ylabel(f"F1 − gold only ({eval_set})")
    ax.set_title(title or f"{task_grid.get('dataset')}: {eval_set}", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="best", framealpha=0.8)
    return _save(plt, fig, path)
