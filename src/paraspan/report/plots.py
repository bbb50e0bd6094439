"""The report's figures, drawn with matplotlib (Agg) and embedded as PNG data URIs.

Each function returns ``None`` when there is nothing to draw, so the page leaves the figure out
instead of showing an empty axis.
"""

from __future__ import annotations

import base64
import io
from typing import Any

from paraspan.report.collect import ACCEPT, SCORE_TITLES, SCORES, ReportData


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # no display: the report is written on servers and in CI
    import matplotlib.pyplot as plt

    return plt


def _png(fig: Any) -> str:
    plt = _pyplot()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=96, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def iteration_yield(data: ReportData) -> str | None:
    """Outputs (and structures tried / placed) per iteration."""
    rows = data.iterations
    if not rows:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.2))
    xs = [r["iteration"] for r in rows]
    width = 0.27
    tried = [r["structures"] or 0 for r in rows]
    placed = [r["structures_placed"] or 0 for r in rows]
    outputs = [r["outputs"] for r in rows]
    ax.bar([x - width for x in xs], tried, width, label="structures tried", color="#bbbbbb")
    ax.bar(xs, placed, width, label="with a placed candidate", color="#a8dadc")
    ax.bar([x + width for x in xs], outputs, width, label="outputs", color="#457b9d")
    ax.set_xlabel("iteration")
    ax.set_ylabel("count")
    ax.set_xticks(xs)
    ax.legend(frameon=False, fontsize=8)
    ax.set_title("yield per iteration")
    return _png(fig)


def score_histograms(data: ReportData) -> str | None:
    """One histogram per score, stacked by iteration."""
    present = [k for k in SCORES if data.scores.get(k)]
    if not present:
        return None
    plt = _pyplot()
    cols = min(3, len(present))
    nrows = (len(present) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(4.0 * cols, 2.8 * nrows), squeeze=False)
    for ax, key in zip(axes.flat, present, strict=False):
        by_iter = data.scores_by_iteration.get(key, {})
        iterations = sorted(by_iter)
        ax.hist([by_iter[i] for i in iterations], bins=20, stacked=True, label=[f"iter {i}" for i in iterations])
        ax.set_title(SCORE_TITLES[key], fontsize=9)
        ax.tick_params(labelsize=8)
    for ax in list(axes.flat)[len(present):]:
        ax.axis("off")
    axes.flat[0].legend(frameon=False, fontsize=7)
    fig.tight_layout()
    return _png(fig)


def _sweep(values: list[float], judged: list[tuple[float, float]], keep_above: bool) -> tuple[list[float], ...]:
    """Share of outputs kept and judged precision of the kept ones, over thresholds."""
    if not values:
        return [], [], []
    lo, hi = min(values), max(values)
    steps = 40
    thresholds = [lo + (hi - lo) * i / steps for i in range(steps + 1)]
    kept, precision = [], []
    for t in thresholds:
        kept.append(sum((v >= t) if keep_above else (v <= t) for v in values) / len(values))
        chosen = [j for v, j in judged if ((v >= t) if keep_above else (v <= t))]
        precision.append(sum(j >= ACCEPT for j in chosen) / len(chosen) if chosen else float("nan"))
    return thresholds, kept, precision


def filter_tradeoffs(data: ReportData) -> str | None:
    """Kept share against a threshold on the aligner score and on the paraphrase NLL, with judged
    precision when there are judgments; and every recorded filter as a point (size vs precision)."""
    if not data.scores.get("aligner") and not data.filters:
        return None
    plt = _pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(12.5, 3.2))
    sweeps = (("aligner", "aligner score ≥ t", True), ("forward", "paraphrase NLL ≤ t", False))
    for ax, (key, title, above) in zip(axes, sweeps, strict=False):
        values = data.scores.get(key, [])
        if key == "forward":  # the paper thresholds the negative log-likelihood
            values = [-v for v in values]
        judged = [((-p[key] if key == "forward" else p[key]), p["judgment"]) for p in data.judged
                  if p.get(key) is not None]
        xs, kept, precision = _sweep(values, judged, above)
        if not xs:
            ax.axis("off")
            continue
        ax.plot(xs, kept, label="share kept", color="#457b9d")
        if judged:
            ax.plot(xs, precision, label="judged precision", color="#e76f51")
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("t", fontsize=8)
        ax.set_ylim(-0.02, 1.02)
        ax.tick_params(labelsize=8)
        ax.legend(frameon=False, fontsize=7)
    ax = axes[2]
    if data.filters:
        xs = [f.kept / f.decided if f.decided else 0 for f in data.filters]
        has_precision = any(f.precision is not None for f in data.filters)
        ys = [(f.precision if f.precision is not None else float("nan")) if has_precision else i
              for i, f in enumerate(data.filters)]
        ax.scatter(xs, ys, color="#2a9d8f")
        names: dict[tuple[float, float], list[str]] = {}
        for x, y, f in zip(xs, ys, data.filters, strict=True):  # filters that coincide share one label
            if y == y:  # NaN: no judged output kept, no point drawn
                names.setdefault((round(x, 4), round(y, 4)), []).append(f.name)
        for (x, y), group in names.items():
            ax.annotate(", ".join(group), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
        ax.set_xlabel("share of outputs kept", fontsize=8)
        ax.set_ylabel("judged precision" if has_precision else "filter", fontsize=8)
        if not has_precision:
            ax.set_yticks([])
        ax.set_title("recorded filters", fontsize=9)
        ax.tick_params(labelsize=8)
    else:
        ax.axis("off")
    fig.tight_layout()
    return _png(fig)


def judgment_distribution(data: ReportData) -> str | None:
    """Judgments of system outputs and of the gold controls (Culkin et al. 2021, Figure 7)."""
    if not data.review:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    colours = {"gold-in": "#2a9d8f", "system": "#457b9d", "gold-out": "#e76f51"}
    for kind in ("gold-in", "system", "gold-out"):
        values = data.review.get(kind)
        if values:
            mean = sum(values) / len(values)
            ax.hist(values, bins=10, range=(0, 100), alpha=0.55, color=colours[kind],
                    label=f"{kind} (n={len(values)}, mean {mean:.1f})")
    ax.axvline(ACCEPT, color="#555555", linewidth=0.8, linestyle="--")
    ax.set_xlabel("judgment (0–100)")
    ax.legend(frameon=False, fontsize=8)
    ax.set_title("human judgments by item kind")
    return _png(fig)


def all_figures(data: ReportData) -> dict[str, str]:
    out = {}
    for name, draw in (("yield", iteration_yield), ("scores", score_histograms), ("tradeoffs", filter_tradeoffs),
                       ("judgments", judgment_distribution)):
        uri = draw(data)
        if uri is not None:
            out[name] = uri
    return out
