"""Span-alignment scoring: exact-match and soft (token-overlap) precision, recall and F1.

It lives in ``align`` because training the aligner scores its held-out slice with it;
:mod:`paraspan.evaluate.alignment` reads prediction files and shows the scores.

How tasks count (our reading of Culkin et al. 2021, §4.3–4.4)
---------------------------------------------------------------
The paper says a prediction threshold "allows the model to incur a false negative without a
false positive", and that the baselines, which always predict, have precision equal to recall.
So, per task, with ``gold`` and ``pred`` each a span or null:

* exact match: ``pred == gold`` (both spans) is a tp; a predicted span that is not the gold
  span is an fp; a gold span that was not predicted exactly is an fn. A wrong span is thus both
  an fp and an fn, and a predicted null on a gold span is an fn only.
* a gold null (no counterpart; the paper's annotators chose that 9% of the time) counts only
  when a span is predicted for it: one fp. Null on null is a true negative and does not enter
  P/R/F1; we report it as ``null_accuracy`` instead. (The paper's P = R for the baselines means
  its test set had no gold nulls, or did not score them; this rule is our extension.)
* soft match (the paper's Table 1): the same, counted over target tokens: tp = tokens in both
  spans, fp = predicted tokens outside the gold span, fn = gold tokens outside the prediction,
  summed over tasks (micro average).

Spans are compared on word-token boundaries (:mod:`paraspan.align.tokens`): gold and predicted
character spans are first widened to the tokens they touch, so " bought" equals "bought".

Subsets: ``all`` tasks; ``non_identical``: tasks whose gold target text differs from the source
span text (case-insensitive, spaces collapsed), gold nulls included — the case that matters
after a negative constraint forbade the source words in the paraphrase; ``paraphrased``: the
same without the gold nulls (a differently worded counterpart exists).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paraspan.align.tokens import tokenize
from paraspan.errors import ParaspanError

SUBSETS = ("all", "non_identical", "paraphrased")


@dataclass
class Counts:
    tp: float = 0.0
    fp: float = 0.0
    fn: float = 0.0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


@dataclass
class _Subset:
    exact: Counts
    soft: Counts
    tasks: int = 0
    gold_null: int = 0
    null_on_null: int = 0
    pred_null: int = 0


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _span(value: Any) -> tuple[int, int] | None:
    return None if value is None else (int(value[0]), int(value[1]))


def is_identical(source: str, source_span: Sequence[int], target: str, gold: Sequence[int] | None) -> bool:
    """Whether the gold target text equals the source span text (a copy, not a paraphrase)."""
    if gold is None:
        return False
    return _norm(source[source_span[0]:source_span[1]]) == _norm(target[gold[0]:gold[1]])


class AlignmentEvaluator:
    """Scores prediction records (dicts with ``source``, ``target``, ``source_span``, ``gold``, ``pred``).

    ``evaluator(records)`` returns a flat dict: ``{subset}_{exact|soft}_{precision|recall|f1}``
    (percentages), ``{subset}_tasks``, ``{subset}_gold_null``, ``{subset}_pred_null``,
    ``{subset}_null_accuracy``; ``primary_metric`` names the headline number.
    """

    primary_metric = "all_exact_f1"

    def __init__(self, name: str = "") -> None:
        self.name = name

    def __call__(self, records: Iterable[Mapping[str, Any]]) -> dict[str, float]:
        subsets = {name: _Subset(Counts(), Counts()) for name in SUBSETS}
        for rec in records:
            source, target = rec["source"], rec["target"]
            src_span = _span(rec["source_span"])
            gold, pred = _span(rec["gold"]), _span(rec["pred"])
            if src_span is None:
                raise ParaspanError.from_code("E972", source=str(source)[:80])
            tokens = tokenize(target)
            gold_t = tokens.token_span(*gold) if gold is not None else None
            pred_t = tokens.token_span(*pred) if pred is not None else None
            names = ["all"]
            if not is_identical(source, src_span, target, gold):
                names.append("non_identical")
                if gold is not None:
                    names.append("paraphrased")
            for name in names:
                _count(subsets[name], gold_t, pred_t, gold is None)
        out: dict[str, float] = {}
        for name, sub in subsets.items():
            for kind, counts in (("exact", sub.exact), ("soft", sub.soft)):
                out[f"{name}_{kind}_precision"] = 100 * counts.precision
                out[f"{name}_{kind}_recall"] = 100 * counts.recall
                out[f"{name}_{kind}_f1"] = 100 * counts.f1
            out[f"{name}_tasks"] = sub.tasks
            out[f"{name}_gold_null"] = sub.gold_null
            out[f"{name}_pred_null"] = sub.pred_null
            out[f"{name}_null_accuracy"] = 100 * sub.null_on_null / sub.gold_null if sub.gold_null else 0.0
        return out


def _count(sub: _Subset, gold: tuple[int, int] | None, pred: tuple[int, int] | None, gold_is_null: bool) -> None:
    sub.tasks += 1
    sub.pred_null += pred is None
    if gold_is_null or gold is None:
        sub.gold_null += 1
        if pred is None:
            sub.null_on_null += 1
        else:
            sub.exact.fp += 1
            sub.soft.fp += pred[1] - pred[0] + 1
        return
    if pred is not None and pred == gold:
        sub.exact.tp += 1
    else:
        sub.exact.fn += 1
        if pred is not None:
            sub.exact.fp += 1
    gold_set = set(range(gold[0], gold[1] + 1))
    pred_set = set(range(pred[0], pred[1] + 1)) if pred is not None else set()
    overlap = len(gold_set & pred_set)
    sub.soft.tp += overlap
    sub.soft.fp += len(pred_set) - overlap
    sub.soft.fn += len(gold_set) - overlap
