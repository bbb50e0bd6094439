"""Aligner-score thresholds calibrated to a precision: the score above which the aligner's
predicted spans are right at least ``target`` of the time on gold span tasks.

This is how :mod:`paraspan.filter.thresholds` sets its ``align-p95`` / ``align-p99`` presets
(Culkin et al. 2021's aligner thresholds 0.95 / 0.99 were confidence levels of *their* aligner;
ours scores on another scale). Input: prediction records as ``paraspan align`` writes them
(``source``, ``target``, ``source_span``, ``gold``, ``pred``, ``score``). A record counts only
when the aligner predicted a span (a null prediction places no anchor, so no output exists to
filter); it is right when the predicted span equals the gold span on word-token boundaries (the
exact match of :mod:`paraspan.align.scoring`), wrong otherwise (a gold null included).

Subsets: ``all`` tasks; ``copy_free``: tasks whose source-span words do not occur in the target
(lowercased, as one word sequence) — what the pipeline's anchors face, since the anchor's words
are banned from the paraphrase.

    from paraspan.align.calibrate import calibrate
    calibrate(records, targets=(0.95, 0.99), subset="copy_free")

``python benchmarks/alignment.py --calibrate`` runs the shipped aligner on the MultiMWA dev span
tasks and prints these numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from paraspan.align.tokens import tokenize
from paraspan.errors import ParaspanError

SUBSETS = ("all", "copy_free")


@dataclass(frozen=True)
class Calibration:
    """The lowest threshold whose kept predictions reach ``target`` precision (None: none does).

    ``threshold`` is floored to 4 decimals (pipeline provenance rounds scores to 4), so every
    prediction counted in ``kept`` passes ``aligner >= threshold``. ``best_precision`` /
    ``best_threshold``: the highest precision any threshold with ``min_support`` kept reaches.
    """

    target: float
    threshold: float | None
    kept: int
    precision: float | None
    predictions: int
    subset: str
    min_support: int
    best_precision: float
    best_threshold: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _words(text: str) -> list[str]:
    return [w.lower() for w in tokenize(text).words]


def is_copy_free(record: Mapping[str, Any]) -> bool:
    """Whether the words of the source span do not occur, in order, in the target."""
    s, e = record["source_span"]
    span = _words(record["source"][s:e])
    target = _words(record["target"])
    n = len(span)
    return not any(target[i:i + n] == span for i in range(len(target) - n + 1)) if n else True


def is_right(record: Mapping[str, Any]) -> bool:
    """Whether the predicted span is the gold span (on word-token boundaries)."""
    gold, pred = record.get("gold"), record.get("pred")
    if gold is None or pred is None:
        return False
    tokens = tokenize(record["target"])
    return tokens.token_span(*gold) == tokens.token_span(*pred)


def _floor4(value: float) -> float:
    return math.floor(value * 10_000) / 10_000


def calibrate(records: Iterable[Mapping[str, Any]], targets: Sequence[float] = (0.95, 0.99), *,
              subset: str = "all", min_support: int = 20) -> list[Calibration]:
    """One :class:`Calibration` per precision ``target`` (fractions, e.g. 0.95).

    Predictions are ranked by score; at each distinct score ``s`` the precision of those with
    score ≥ ``s`` is measured, and the threshold for a target is the lowest ``s`` where it is at
    least the target with at least ``min_support`` predictions kept (the most outputs at that
    precision).
    """
    if subset not in SUBSETS:
        raise ParaspanError.from_code("E660", subset=subset, choices=", ".join(SUBSETS))
    if any(not 0 < t <= 1 for t in targets):
        raise ParaspanError.from_code("E661", targets=list(targets))
    scored: list[tuple[float, bool]] = []
    for rec in records:
        if rec.get("pred") is None or rec.get("score") is None:
            continue
        if subset == "copy_free" and not is_copy_free(rec):
            continue
        scored.append((float(rec["score"]), is_right(rec)))
    scored.sort(key=lambda x: -x[0])
    curve: list[tuple[float, int, float]] = []  # (threshold, kept, precision) at each distinct score
    right = 0
    for i, (score, ok) in enumerate(scored):
        right += ok
        if i + 1 == len(scored) or scored[i + 1][0] != score:
            curve.append((score, i + 1, right / (i + 1)))
    supported = [c for c in curve if c[1] >= min_support]
    best = max(supported, key=lambda c: (c[2], c[1]), default=None)
    out = []
    for target in targets:
        reached = [c for c in supported if c[2] >= target]
        at = min(reached, key=lambda c: c[0]) if reached else None
        out.append(Calibration(
            target=target, threshold=_floor4(at[0]) if at else None, kept=at[1] if at else 0,
            precision=round(at[2], 4) if at else None, predictions=len(scored), subset=subset,
            min_support=min_support, best_precision=round(best[2], 4) if best else 0.0,
            best_threshold=_floor4(best[0]) if best else None))
    return out


def precision_at(records: Iterable[Mapping[str, Any]], threshold: float, *, subset: str = "all"
                 ) -> tuple[int, float | None]:
    """How many predictions score ≥ ``threshold`` in ``subset``, and their precision."""
    kept = right = 0
    for rec in records:
        if rec.get("pred") is None or rec.get("score") is None or float(rec["score"]) < threshold:
            continue
        if subset == "copy_free" and not is_copy_free(rec):
            continue
        kept += 1
        right += is_right(rec)
    return kept, (round(right / kept, 4) if kept else None)
