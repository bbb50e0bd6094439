"""Judgment export and agreement statistics (Culkin et al. 2021 §6.1).

The paper binarises each 0–100 rating at 50, reports Fleiss' kappa over the system outputs'
binarised ratings (0.56 with three annotators), how often all annotators agree (71%), and the
acceptance rates of the gold controls (in-frame 95%, out-of-frame 7%) as a check that annotators
understood the task.

Judgments from both review modes (trigger, output) share the store's ``judgments`` table; their
JSON note says which mode (none: trigger), and both the export and the statistics can keep one.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paraspan.pipeline.store import Judgment, RunStore

ACCEPT = 50.0


def review_note(note: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """A judgment's note split into what the review app recorded (task, seconds, mode) and the
    annotator's own note. A note that the review app did not write is all the annotator's."""
    if not note:
        return None, None
    if note.startswith("{"):
        try:
            data = json.loads(note)
        except ValueError:
            data = None
        if isinstance(data, dict) and "review_task" in data:
            text = data.pop("note", None)
            data.setdefault("mode", "trigger")  # trigger-mode notes predate modes and do not say
            return data, text if isinstance(text, str) and text else None
    return None, note


def judgment_mode(judgment: Judgment) -> str | None:
    """The review mode that recorded ``judgment`` (None: not recorded by the review app)."""
    review, _ = review_note(judgment.note)
    return review["mode"] if review else None


def fleiss_kappa(counts: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' kappa from per-item category counts (``counts[i][j]`` raters put item i in category j).

    Items may have different numbers of raters (each needs at least 2; others are ignored): the
    per-item agreement is then averaged over items and the chance agreement uses the pooled
    category shares, which equals Fleiss (1971) when every item has the same number of raters.
    None when it is undefined (no item with 2+ raters, or every rating in one category).
    """
    rows = [list(map(int, r)) for r in counts if sum(r) >= 2]
    if not rows:
        return None
    total = sum(sum(r) for r in rows)
    categories = len(rows[0])
    shares = [sum(r[j] for r in rows) / total for j in range(categories)]
    expected = sum(p * p for p in shares)
    if expected >= 1.0:
        return None
    observed = sum((sum(c * c for c in r) - sum(r)) / (sum(r) * (sum(r) - 1)) for r in rows) / len(rows)
    return (observed - expected) / (1.0 - expected)


def _binary_counts(ratings: dict[str, list[float]]) -> list[list[int]]:
    return [[sum(s < ACCEPT for s in v), sum(s >= ACCEPT for s in v)] for v in ratings.values()]


def _summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"judgments": 0, "mean": None, "accepted": None}
    return {"judgments": len(values), "mean": round(sum(values) / len(values), 2),
            "accepted": round(sum(v >= ACCEPT for v in values) / len(values), 4)}


def _responses(store: RunStore) -> list[tuple[int, str, str, str, float]]:
    has = store.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'review_responses'"
                             ).fetchone()
    if not has:
        return []
    return [(int(t), a, i, k, float(s)) for t, a, i, k, s in store.conn.execute(
        "SELECT task_id, annotator, item_id, kind, score FROM review_responses ORDER BY task_id, annotator")]


def agreement(store: RunStore, mode: str | None = None) -> dict[str, Any]:
    """Agreement and control statistics over all judgments in ``store`` (those of review ``mode``)."""
    system: dict[str, list[float]] = defaultdict(list)
    annotators: dict[str, dict[str, Any]] = defaultdict(lambda: {"judgments": 0, "controls": 0, "controls_right": 0})
    for j in store.judgments():
        if mode is not None and judgment_mode(j) != mode:
            continue
        system[j.output_id].append(j.score)
        annotators[j.annotator]["judgments"] += 1
    controls: dict[str, list[float]] = defaultdict(list)
    control_items: dict[str, list[float]] = defaultdict(list)
    for _task, annotator, item, kind, score in _responses(store) if mode in (None, "trigger") else []:
        if kind == "system":
            continue
        controls[kind].append(score)
        control_items[item].append(score)
        annotators[annotator]["controls"] += 1
        # an in-frame control should be accepted, an out-of-frame one rejected
        annotators[annotator]["controls_right"] += int((score >= ACCEPT) == (kind == "gold-in"))
    multi = {k: v for k, v in system.items() if len(v) >= 2}
    agree = [len({s >= ACCEPT for s in v}) == 1 for v in multi.values()]
    means = [sum(v) / len(v) for v in system.values()]
    out: dict[str, Any] = {
        "system": {**_summary([s for v in system.values() for s in v]), "outputs": len(system),
                   "outputs_accepted": sum(m >= ACCEPT for m in means),
                   "outputs_with_2plus": len(multi)},
        "gold-in": _summary(controls.get("gold-in", [])),
        "gold-out": _summary(controls.get("gold-out", [])),
        "fleiss_kappa": _round(fleiss_kappa(_binary_counts(multi))),
        "all_agree": round(sum(agree) / len(agree), 4) if agree else None,
        "fleiss_kappa_with_controls": _round(fleiss_kappa(_binary_counts({**multi, **control_items}))),
        "annotators": {name: {**a, "control_accuracy": round(a["controls_right"] / a["controls"], 4)
                              if a["controls"] else None} for name, a in sorted(annotators.items())},
    }
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def export_judgments(store: RunStore, out: str | Path, *, controls: str | Path | None = None,
                     mode: str | None = None) -> tuple[int, int]:
    """Write the store's judgments of outputs as ``{"output_id", "score", "annotator", "time"}`` lines
    (what ``paraspan train-filter`` reads); with ``controls``, the control ratings to a second file.
    ``mode``: only the judgments of that review mode (``trigger``, ``output``).

    A judgment from the review app also has ``task``, ``mode`` and ``seconds``, and ``note`` is
    the annotator's own note only (``"meaning: forty dollars became forty cents"``), not the JSON
    the store keeps. Returns (judgments, control ratings) written."""
    from paraspan.corpus.jsonl import atomic_write

    tasks: dict[int, int] = {}
    for table in ("review_responses", "review_output_responses"):
        has = store.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone()
        if has:
            tasks.update(store.conn.execute(f"SELECT judgment_id, task_id FROM {table} "
                                            "WHERE judgment_id IS NOT NULL"))
    written = 0
    with atomic_write(Path(out)) as handle:
        for j in store.judgments():
            review, note = review_note(j.note)
            if mode is not None and (review or {}).get("mode") != mode:
                continue
            line: dict[str, Any] = {"output_id": j.output_id, "score": j.score, "annotator": j.annotator,
                                    "time": j.time}
            if j.id in tasks:
                line["task"] = tasks[j.id]
            if review:
                line.setdefault("task", review["review_task"])
                line["mode"] = review["mode"]
                if "seconds" in review:
                    line["seconds"] = review["seconds"]
            if note:  # why the annotator judged so ("meaning: forty dollars became forty cents")
                line["note"] = note
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
            written += 1
    n_controls = 0
    if controls is not None:
        with atomic_write(Path(controls)) as handle:
            for task, annotator, item, kind, score in _responses(store) if mode in (None, "trigger") else []:
                if kind == "system":
                    continue
                handle.write(json.dumps({"item_id": item, "kind": kind, "score": score, "annotator": annotator,
                                         "task": task}, ensure_ascii=False) + "\n")
                n_controls += 1
    return written, n_controls
