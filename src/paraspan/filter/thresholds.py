"""Threshold filters over an output's iteration, paraphrase score and aligner score (Culkin et al.
2021, Table 4), composable by name.

Each augmented sentence carries ``provenance`` with ``iteration``, ``paraphrase`` scores and
``aligner`` scores. The named presets are the paper's rows:

=============  ==============================================  ===========
name           rule                                             Table 4 row
=============  ==============================================  ===========
``all``        keep everything                                  Unfiltered
``iter1``      iteration = 1                                    2
``iter3``      iteration ≤ 3                                    3
``para0.6``    paraphrase NLL ≤ 0.6                             4
``para0.8``    paraphrase NLL ≤ 0.8                             5
``align0.99``  aligner score ≥ 0.99                             6
``align0.95``  aligner score ≥ 0.95                             7
``lax``        iter3 & para0.8 & align0.95                      "lax"
``strict``     iter1 & para0.6 & align0.99                      "strict"
=============  ==============================================  ===========

Calibrated aligner presets
--------------------------
The paper's aligner thresholds are confidence levels of *its* BERT aligner. Ours (the shipped
MiniLM discriminative head) scores on another scale: the anchors it places in paraphrases score
about 0.5–0.95, so ``align0.95`` / ``align0.99`` (and ``lax`` / ``strict``) keep almost nothing.
The paper's rows stay as they are; beside them, presets whose aligner threshold is the score at
which *our* aligner reaches a precision:

==============  =============================================  =================================
name            rule                                           meaning
==============  =============================================  =================================
``align-p95``   aligner score ≥ :data:`ALIGN_P95` (0.649)      ≥ 95% exact-match precision
``align-p99``   aligner score ≥ :data:`ALIGN_P99` (0.9864)     ≥ 99% exact-match precision
``lax-cal``     iter3 & para0.8 & align-p95                    ``lax`` with the calibrated score
``strict-cal``  iter1 & para0.6 & align-p99                    ``strict`` with the calibrated score
==============  =============================================  =================================

How they were computed (:mod:`paraspan.align.calibrate`; rerun with
``python benchmarks/alignment.py --calibrate``, results in
``benchmarks/results/alignment-calibration.json``): the shipped aligner predicted every MultiMWA
dev span task (``mtref-dev`` + ``wiki-dev``, 2,665 tasks, 2,369 non-null predictions); the
threshold is the lowest score at which the predictions scoring at least that much are the gold
span (on word tokens) 95% / 99% of the time, with ≥ 20 kept (2,246 and 1,337 are).

Caveat: those tasks are mostly copies (the source words occur in the target). On the copy-free
ones — what a banned anchor faces (652 predictions) — precision at ≥ 0.649 is 86.4%, no
threshold reaches 95% (the best is 94.4%, at ≥ 0.829), and no copy-free prediction scores
0.9864: ``align-p99`` and ``strict-cal`` keep almost no pipeline output. That is the aligner's
limit, not the threshold's. (For scale: in the paper, ``align0.95`` kept 8.56X / 11X ≈ 78% of
the outputs and ``align0.99`` 3.61X / 11X ≈ 33%, Table 4's "Multiple" column.) Both numbers
belong to the shipped head: a head retrained with ``paraspan train-aligner`` needs them
recomputed.

"Paraphrase NLL" is the forward score negated: the mean per-token negative log-likelihood of
the paraphrase under the generator (the paper's paraphrase-model score, lower is better). The
aligner score is the anchor's (the trigger's) alignment score. Note that the numbers depend on
the models: the paper's thresholds were set for its Sockeye paraphraser and BERT aligner.

Besides names, a rule can be written inline: ``"iteration<=2&aligner>=0.9"`` with the fields
``iteration``, ``nll`` (forward NLL), ``score`` (forward + backward log-probability),
``backward``, ``aligner`` (anchor) and ``min_span`` (lowest span score), the operators
``<= < >= > =`` and ``&`` for "and". Names and inline rules mix: ``"lax&min_span>=0.5"``.
``paraspan.filter.build_filter`` reads any such string (it is the registered ``threshold``
filter); the filter is recorded under the string as written.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision

#: Aligner-score thresholds at which the shipped discriminative aligner (``minilm-head.npz``,
#: sha256 71e79712…) reaches 95% / 99% exact-match precision on the MultiMWA dev span tasks
#: (mtref-dev + wiki-dev; see the module doc). Computed 2026-11-22 by
#: ``python benchmarks/alignment.py --calibrate`` (paraspan.align.calibrate.calibrate, subset "all").
ALIGN_P95 = 0.649
ALIGN_P99 = 0.9864

PRESETS: dict[str, str] = {
    "all": "",
    "iter1": "iteration<=1",
    "iter3": "iteration<=3",
    "para0.6": "nll<=0.6",
    "para0.8": "nll<=0.8",
    "align0.99": "aligner>=0.99",
    "align0.95": "aligner>=0.95",
    "lax": "iter3&para0.8&align0.95",
    "strict": "iter1&para0.6&align0.99",
    "align-p95": f"aligner>={ALIGN_P95}",
    "align-p99": f"aligner>={ALIGN_P99}",
    "lax-cal": "iter3&para0.8&align-p95",
    "strict-cal": "iter1&para0.6&align-p99",
}

#: The paper's Table 4 rows (upper section).
TABLE4 = ("all", "iter1", "iter3", "para0.6", "para0.8", "align0.99", "align0.95", "lax", "strict")
#: The same with the aligner threshold calibrated for the shipped aligner (see the module doc).
CALIBRATED = ("align-p95", "align-p99", "lax-cal", "strict-cal")
#: The presets every run records a decision for.
RECORDED = TABLE4 + CALIBRATED

_OPS: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt, "=": operator.eq, "==": operator.eq,
}
_CLAUSE = re.compile(r"^\s*([a-z_]+)\s*(<=|>=|==|<|>|=)\s*(-?[0-9.]+(?:e-?[0-9]+)?)\s*$")
FIELDS = ("iteration", "nll", "score", "forward", "backward", "aligner", "min_span")


def features(provenance: Mapping[str, Any] | None) -> dict[str, float | None]:
    """The numbers a rule can test, read from an output's ``provenance``."""
    prov = provenance or {}
    para = prov.get("paraphrase") or {}
    align = prov.get("aligner") or {}
    forward = para.get("forward")
    spans = [s.get("score") for s in align.get("spans", []) if s.get("score") is not None]
    return {
        "iteration": prov.get("iteration"),
        "forward": forward,
        "nll": -forward if forward is not None else None,
        "backward": para.get("backward"),
        "score": para.get("score"),
        "aligner": align.get("anchor"),
        "min_span": min(spans) if spans else align.get("anchor"),
    }


@dataclass(frozen=True)
class Clause:
    field: str
    op: str
    value: float

    def test(self, feats: Mapping[str, float | None]) -> bool:
        got = feats.get(self.field)
        return got is not None and _OPS[self.op](float(got), self.value)

    def __str__(self) -> str:
        return f"{self.field}{self.op}{self.value:g}"


@dataclass(frozen=True)
class ThresholdFilter(BaseFilter):
    """A conjunction of threshold clauses over an output's provenance; a
    :class:`~paraspan.filter.base.Filter` that ignores the source sentence."""

    name: str
    clauses: tuple[Clause, ...]
    RECORDS_CHECK: ClassVar[bool] = False  # it reads provenance: nothing to add to the checks

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        feats = features(output.provenance)
        details = {k: v for k, v in feats.items() if v is not None}
        for clause in self.clauses:
            if not clause.test(feats):
                got = feats.get(clause.field)
                shown = "missing" if got is None else f"{float(got):.3g}"
                return FilterDecision(False, None, f"{clause.field} {shown} fails {clause}", details)
        return FilterDecision(True, None, "passes " + ("&".join(map(str, self.clauses)) or "everything"), details)


def threshold_filter(rule: str, record_as: str | None = None) -> ThresholdFilter:
    """The registered ``threshold`` filter: a preset, an inline rule or a ``&`` of both,
    recorded as ``record_as`` (default: the rule as written)."""
    return parse_rule(rule, record_as)


def parse_rule(spec: str, name: str | None = None, *, _depth: int = 0) -> ThresholdFilter:
    """A filter from a preset name, an inline rule, or a ``&`` of both (see the module doc)."""
    if _depth > 8:
        raise ParaspanError.from_code("E710", spec=spec)
    clauses: list[Clause] = []
    for part in (p.strip() for p in spec.split("&")):
        if not part:
            continue
        if part in PRESETS:
            clauses.extend(parse_rule(PRESETS[part], part, _depth=_depth + 1).clauses)
            continue
        match = _CLAUSE.match(part)
        if match is None or match.group(1) not in FIELDS:
            raise ParaspanError.from_code("E711", part=part, choices=", ".join(PRESETS), choices2=", ".join(FIELDS))
        clauses.append(Clause(match.group(1), match.group(2), float(match.group(3))))
    return ThresholdFilter(name or spec, tuple(clauses))
