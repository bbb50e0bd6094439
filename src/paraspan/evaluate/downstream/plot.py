"""Learning-curve plots (matplotlib, imported only here; ``pip install matplotlib``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paraspan.errors import ParaspanError

_STYLE = {"base": ("gold only", "tab:blue", "o"), "augmented": ("gold + augmented", "tab:orange", "s"),
          "lexsub": ("gold + lexical substitution", "tab:green", "^"),
          "copy": ("gold + copies (control)", "tab:gray", "x")}


def plot_curve(task: str, points: dict[str, dict[str, Any]], path: str | Path, *, title: str | None = None,
               metric: str = "F1") -> Path:
    """One PNG: mean F1 ± sd over seeds per training percent, one line per condition."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ParaspanError.from_code("E910") from None
    fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=120)
    percents = sorted(points, key=int)
    for condition, (label, color, marker) in _STYLE.items():
        xs, means, sds = [], [], []
        for p in percents:
            stats = points[p].get("summary", {}).get(condition)
            if stats and stats.get("mean") is not None:
                xs.append(int(p))
                means.append(stats["mean"])
                sds.append(stats.get("sd") or 0.0)
        if xs:
            ax.errorbar(xs, means, yerr=sds, label=label, color=color, marker=marker, capsize=3)
    ax.set_xlabel("% of gold training sentences")
    ax.set_ylabel(metric)
    ax.set_xticks([int(p) for p in percents])
    ax.set_title(title or task, fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(target)
    plt.close(fig)
    return target
