"""What a run report shows, read from a run store: numbers, per-iteration yield, scores, filters.

Everything here is plain data (dicts, lists, numbers) so that it can be tested without
rendering and embedded in the page as JSON.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.pipeline.store import OutputRecord, RunStore
from paraspan.report.highlight import Palette, highlight_html, structure_spans

#: The scores every output has (keys of :attr:`OutputRecord.scores`), in display order.
SCORES = ("forward", "backward", "score", "aligner", "min_span")
SCORE_TITLES = {"forward": "paraphrase log-prob (forward)", "backward": "back-translation log-prob (backward)",
                "score": "combined paraphrase score", "aligner": "aligner score (anchor)",
                "min_span": "lowest span score"}
ACCEPT = 50.0  # Culkin et al. 2021: a mean judgment ≥ 50 accepts


@dataclass
class FilterStats:
    name: str
    kept: int
    decided: int
    multiple: float | None  # (seed sentences + kept outputs) / seed sentences, as in Table 4
    judged: int = 0  # judged outputs this filter kept
    precision: float | None = None  # accepted / judged among kept
    recall: float | None = None  # kept / all accepted


@dataclass
class ReportData:
    store: str
    config: dict[str, Any]
    counts: dict[str, Any]
    inputs: dict[str, int]
    iterations: list[dict[str, Any]]
    rows: list[dict[str, Any]]
    scores: dict[str, list[float]]
    scores_by_iteration: dict[str, dict[int, list[float]]]
    filters: list[FilterStats]
    judgments: dict[str, Any]
    review: dict[str, list[float]]  # judgment scores per item kind (system, gold-in, gold-out)
    palette: Palette
    judged: list[dict[str, Any]] = field(default_factory=list)  # scores + mean judgment of judged outputs
    truncated: int = 0
    notes: list[str] = field(default_factory=list)


def _outputs_with_sources(store: RunStore) -> Iterator[tuple[OutputRecord, Sentence | None]]:
    """Outputs in input order with their source sentence (one lookup per input)."""
    last_id: str | None = None
    last: Sentence | None = None
    for record in store.iter_outputs():
        if record.input_id != last_id:
            last_id, last = record.input_id, store.source(record.input_id)
        yield record, last


def _iteration_yield(store: RunStore) -> list[dict[str, Any]]:
    """Per iteration: structures tried, structures with a placed candidate, candidates, outputs."""
    rows = store.conn.execute(
        "SELECT iteration, COUNT(DISTINCT input_id || '#' || structure), COUNT(*), SUM(placed), "
        "COUNT(DISTINCT CASE WHEN placed THEN input_id || '#' || structure END) "
        "FROM candidates GROUP BY iteration ORDER BY iteration").fetchall()
    per_iter = store.counts()["outputs_per_iteration"]
    first = rows[0][1] if rows else 0
    out = []
    for iteration, tried, candidates, placed, placed_structures in rows:
        outputs = int(per_iter.get(int(iteration), 0))
        out.append({"iteration": int(iteration), "structures": int(tried), "candidates": int(candidates),
                    "placed": int(placed or 0), "structures_placed": int(placed_structures or 0),
                    "outputs": outputs, "yield": outputs / first if first else None})
    for iteration, outputs in per_iter.items():  # outputs whose candidates were not stored
        if all(r["iteration"] != iteration for r in out):
            out.append({"iteration": int(iteration), "structures": None, "candidates": None, "placed": None,
                        "structures_placed": None, "outputs": int(outputs), "yield": None})
    return sorted(out, key=lambda r: r["iteration"])


def _review_scores(store: RunStore) -> dict[str, list[float]]:
    """Judgment scores per item kind, when the review app has run on this store."""
    has = store.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_responses'")
    if not has.fetchone():
        return {}
    grouped: dict[str, list[float]] = defaultdict(list)
    for kind, score in store.conn.execute("SELECT kind, score FROM review_responses"):
        grouped[kind].append(float(score))
    return dict(grouped)


def _r(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(float(value), digits)


@dataclass
class _FilterTally:
    """Per filter: the outputs it decided and kept, and of the kept ones the judged and the accepted."""

    decided: Counter[str] = field(default_factory=Counter)
    kept: Counter[str] = field(default_factory=Counter)
    kept_judged: Counter[str] = field(default_factory=Counter)
    kept_accepted: Counter[str] = field(default_factory=Counter)
    judged: int = 0  # outputs judged, whatever the filters decided
    accepted: int = 0

    def add(self, record: OutputRecord, judged: bool, accepted: bool) -> None:
        self.judged += judged
        self.accepted += accepted
        for name, keep in record.decisions.items():
            self.decided[name] += 1
            if keep:
                self.kept[name] += 1
                self.kept_judged[name] += judged
                self.kept_accepted[name] += accepted

    def stats(self, names: list[str], seed: int) -> list[FilterStats]:
        """Each named filter's numbers; ``seed``: the seed sentences, for the multiple."""
        filters = []
        for name in names:
            stats = FilterStats(name, self.kept[name], self.decided[name],
                                (seed + self.kept[name]) / seed if seed else None, self.kept_judged[name])
            if self.kept_judged[name]:
                stats.precision = self.kept_accepted[name] / self.kept_judged[name]
            if self.accepted:
                stats.recall = self.kept_accepted[name] / self.accepted
            filters.append(stats)
        return filters


def _add_scores(record: OutputRecord, scores: dict[str, list[float]],
                by_iter: dict[str, dict[int, list[float]]]) -> None:
    for key in SCORES:
        value = record.scores.get(key)
        if value is not None:
            scores[key].append(float(value))
            by_iter[key][record.iteration].append(float(value))


def _row(record: OutputRecord, source: Sentence | None, palette: Palette, filter_names: list[str],
         judgments: dict[str, list[float]], mean_judgment: dict[str, float]) -> dict[str, Any]:
    """One output's line of the table (its structure and the source's highlighted)."""
    out_structure = record.sentence.structures[0] if record.sentence.structures else None
    src_structure = (source.structures[record.structure]
                     if source is not None and record.structure < len(source.structures) else None)
    return {
        "id": record.id,
        "input": record.input_id,
        "iteration": record.iteration,
        "kind": out_structure.kind if out_structure else (src_structure.kind if src_structure else ""),
        "label": record.frame or (out_structure.label if out_structure else ""),
        "anchor": record.anchor_text or "",
        "source_anchor": (src_structure.anchor.text_in(source.text)
                          if source is not None and src_structure and src_structure.anchor else ""),
        "source": source.text if source is not None else "",
        "text": record.sentence.text,
        "source_html": highlight_html(source.text, structure_spans(src_structure), palette)
        if source is not None and src_structure is not None else "",
        "text_html": highlight_html(record.sentence.text, structure_spans(out_structure), palette)
        if out_structure is not None else "",
        "scores": {k: _r(record.scores.get(k)) for k in SCORES},
        "decisions": {name: record.decisions.get(name) for name in filter_names},
        "reasons": {name: record.reasons[name] for name in filter_names if record.reasons.get(name)},
        "judgment": _r(mean_judgment.get(record.id), 1),
        "judgments": len(judgments.get(record.id, ())),
    }


def collect(store: RunStore, *, max_rows: int = 20000) -> ReportData:
    """Read everything the report shows from ``store`` (one pass over the outputs)."""
    counts = store.counts()
    inputs = {"total": store.count_inputs(), **{k: int(v) for k, v in counts["inputs"].items()}}
    grouped: dict[str, list[float]] = defaultdict(list)
    for j in store.judgments():
        grouped[j.output_id].append(j.score)
    mean_judgment = {k: sum(v) / len(v) for k, v in grouped.items()}
    filter_names = store.filters()
    palette = Palette()
    rows: list[dict[str, Any]] = []
    scores: dict[str, list[float]] = {k: [] for k in SCORES}
    by_iter: dict[str, dict[int, list[float]]] = {k: defaultdict(list) for k in SCORES}
    tally = _FilterTally()
    truncated = 0
    judged_points: list[dict[str, Any]] = []
    for record, source in _outputs_with_sources(store):
        _add_scores(record, scores, by_iter)
        judged = record.id in mean_judgment
        accepted = judged and mean_judgment[record.id] >= ACCEPT
        tally.add(record, judged, accepted)
        if judged:
            judged_points.append({"iteration": record.iteration, **{k: record.scores.get(k) for k in SCORES},
                                  "judgment": mean_judgment[record.id]})
        if len(rows) >= max_rows:
            truncated += 1
            continue
        rows.append(_row(record, source, palette, filter_names, grouped, mean_judgment))
    seed = inputs.get("done", 0) + inputs.get("skipped", 0)
    judged_scores = [s for v in grouped.values() for s in v]
    judgments = {"judgments": len(judged_scores), "outputs_judged": tally.judged, "accepted": tally.accepted,
                 "annotators": len({j.annotator for j in store.judgments()}),
                 "acceptance": tally.accepted / tally.judged if tally.judged else None}
    notes = []
    if truncated:
        notes.append(f"the table shows the first {max_rows:,} outputs; {truncated:,} more are counted in the "
                     "numbers and plots but not listed (raise --max-rows)")
    return ReportData(store=str(store.path), config=store.config, counts=counts, inputs=inputs,
                      iterations=_iteration_yield(store), rows=rows, scores=scores,
                      scores_by_iteration={k: dict(v) for k, v in by_iter.items()},
                      filters=tally.stats(filter_names, seed), judgments=judgments, review=_review_scores(store),
                      palette=palette, judged=judged_points, truncated=truncated, notes=notes)
