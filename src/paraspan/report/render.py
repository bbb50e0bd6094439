"""The run report as one self-contained HTML file: inline CSS and JS, figures as data URIs, the
output table as embedded JSON. Nothing is fetched when the page is viewed."""

from __future__ import annotations

import html
import json
import re
import time
from importlib.resources import files
from pathlib import Path
from typing import Any

from paraspan.pipeline.store import RunStore
from paraspan.report.collect import SCORES, ReportData, collect
from paraspan.report.highlight import legend_html
from paraspan.report.plots import all_figures


def _fmt(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}" if isinstance(value, int) else html.escape(str(value))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="grid"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _figure(uri: str | None, alt: str) -> str:
    return f'<img class="fig" alt="{html.escape(alt, quote=True)}" src="{uri}">' if uri else ""


def _cards(data: ReportData) -> str:
    inputs = data.inputs
    seed = inputs.get("done", 0) + inputs.get("skipped", 0)
    outputs = data.counts["outputs"]
    cards = [
        ("input sentences", inputs.get("total", 0)),
        ("processed", inputs.get("done", 0)),
        ("skipped (no structure, or too many)", inputs.get("skipped", 0)),
        ("pending", inputs.get("pending", 0)),
        ("candidates aligned", data.counts["candidates"]),
        ("outputs", outputs),
        ("multiple (unfiltered)", f"{(seed + outputs) / seed:.2f}×" if seed else "–"),
        ("judgments", data.judgments["judgments"]),
    ]
    return "".join(f'<div class="card"><b>{_fmt(v) if not isinstance(v, str) else v}</b>'
                   f"<span>{html.escape(k)}</span></div>" for k, v in cards)


def _iterations(data: ReportData) -> str:
    if not data.iterations:
        return '<p class="muted">no candidates in this store yet</p>'
    rows = [[str(r["iteration"]), _fmt(r["structures"]), _fmt(r["candidates"]), _fmt(r["structures_placed"]),
             _fmt(r["outputs"]), _pct(r["yield"])] for r in data.iterations]
    return _table(["iteration", "structures tried", "candidates", "structures placed", "outputs",
                   "yield (outputs / structures at iteration 1)"], rows)


def _filters(data: ReportData) -> str:
    if not data.filters:
        return '<p class="muted">no filter decisions are recorded in this store</p>'
    rows = [[html.escape(f.name), _fmt(f.kept), _pct(f.kept / f.decided if f.decided else None),
             f"{f.multiple:.2f}×" if f.multiple is not None else "–", _fmt(f.judged), _pct(f.precision),
             _pct(f.recall)] for f in data.filters]
    return _table(["filter", "kept", "share kept", "multiple", "judged among kept", "precision (judged)",
                   "recall (judged)"], rows)


def _judgments(data: ReportData) -> str:
    j = data.judgments
    if not j["judgments"] and not data.review:
        return ('<p class="muted">no judgments yet: collect them with <code>paraspan review</code>, then '
                "<code>paraspan judgments</code> and <code>paraspan train-filter</code></p>")
    text = (f"<p>{j['judgments']:,} judgments of {j['outputs_judged']:,} outputs by {j['annotators']} "
            f"annotator(s); {j['accepted']:,} outputs accepted (mean ≥ 50), acceptance "
            f"{_pct(j['acceptance'])}.</p>")
    if data.review:
        rows = []
        for kind in ("system", "gold-in", "gold-out"):
            values = data.review.get(kind, [])
            if values:
                rows.append([kind, _fmt(len(values)), f"{sum(values) / len(values):.1f}",
                             _pct(sum(v >= 50 for v in values) / len(values))])
        text += _table(["item kind (review app)", "judgments", "mean", "accepted"], rows)
    return text


def _json_for_script(value: Any) -> str:
    # `</` would end the <script> element early; `<!--` and U+2028/9 upset some parsers
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return (text.replace("</", "<\\/").replace("<!--", "\\u003c!--")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def render(data: ReportData, *, figures: dict[str, str] | None = None) -> str:
    """The report page for ``data`` (figures are drawn when not given)."""
    from paraspan import __version__

    figures = all_figures(data) if figures is None else figures
    template = (files("paraspan.report") / "data" / "report.html").read_text(encoding="utf-8")
    notes = "".join(f'<p class="note">{html.escape(n)}</p>' for n in data.notes)
    payload = {"rows": data.rows, "filters": [f.name for f in data.filters], "scores": list(SCORES)}
    values = {
        "VERSION": html.escape(__version__),
        "TITLE": html.escape(Path(data.store).name),
        "STORE": html.escape(data.store),
        "WHEN": time.strftime("%Y-%m-%d %H:%M"),
        "CARDS": _cards(data),
        "NOTES": notes,
        "CONFIG": html.escape(json.dumps(data.config, indent=2, sort_keys=True, ensure_ascii=False)),
        "ITERATIONS": _iterations(data),
        "FIG_YIELD": _figure(figures.get("yield"), "yield per iteration"),
        "FIG_SCORES": _figure(figures.get("scores"), "score histograms"),
        "FILTERS": _filters(data),
        "FIG_TRADEOFFS": _figure(figures.get("tradeoffs"), "filter trade-offs"),
        "JUDGMENTS": _judgments(data),
        "FIG_JUDGMENTS": _figure(figures.get("judgments"), "judgment distribution"),
        "LEGEND": legend_html(data.palette),
        "DATA": _json_for_script(payload),
    }
    # one pass over the placeholders: a value that happens to contain "@@X@@" is never substituted again
    return re.sub(r"@@([A-Z_]+)@@", lambda m: values.get(m.group(1), m.group(0)), template)


def build_report(store_path: str | Path, out: str | Path, *, max_rows: int = 20000) -> ReportData:
    """Read ``store_path`` (read-only) and write the report to ``out`` atomically."""
    from paraspan.corpus.jsonl import atomic_write

    with RunStore.open(store_path, readonly=True) as store:
        data = collect(store, max_rows=max_rows)
    page = render(data)
    with atomic_write(Path(out)) as handle:
        handle.write(page)
    return data
