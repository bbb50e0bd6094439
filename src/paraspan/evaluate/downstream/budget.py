"""Augmentation to a budget, and the held-aside gold control (Cui & Swayamdipta, Fig. 2).

Cui's design adds to a gold subset (25% of the training set) generated sentences amounting to a
fixed share of the *full* training set (6.25%), and compares them with as many copies and with as
many held-aside gold sentences. A slow generator then only has to augment as much of the subset as
the budget needs, not all of it:

- :func:`augment_to_budget`: the subset's sentences in a seeded random order, a chunk at a time,
  given to the augmenter until its outputs reach the count; the outputs are cut to exactly the
  count by a seeded sample (fewer when the subset runs out first: recorded as ``reached: false``).
  The order and the cut depend on the seed only, so a run store filled by ``--augment-only`` holds
  exactly the chunks a later curve asks for.
- :func:`held_aside_gold`: as many gold sentences as the outputs, drawn with the seed from the
  training set minus the subset (never from the subset).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.evaluate.downstream.augment import Augmenter, keep_derived

#: Report keys of an augmenter that are a snapshot (the store's size), not a count of one call.
SNAPSHOT_KEYS = frozenset({"store_inputs"})


@dataclass(frozen=True)
class Budget:
    """``percent`` of the full training set, given to the augmenter ``chunk`` sentences a call."""

    percent: float
    chunk: int = 8

    def __post_init__(self) -> None:
        if not self.percent > 0 or self.chunk < 1:
            raise ValueError(f"an augmentation budget needs percent > 0 and chunk ≥ 1, not {self}")

    def count(self, n_train: int) -> int:
        """The number of augmented sentences: ``round(percent / 100 × n_train)``."""
        return round(self.percent / 100 * n_train)

    def to_dict(self, n_train: int) -> dict[str, Any]:
        """What a results file records of the budget (a setting: runs of another budget do not mix)."""
        return {"percent": self.percent, "count": self.count(n_train), "chunk": self.chunk,
                "of": "the full training set"}


def budget_order(subset: Sequence[Sentence], seed: int) -> list[Sentence]:
    """The order the budget gives the subset's sentences to the augmenter (seeded, the subset's own)."""
    order = list(subset)
    random.Random(f"augment-order:{seed}").shuffle(order)
    return order


def merge_reports(reports: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One report for several calls of an augmenter: numbers summed, dicts of numbers (reasons →
    counts) summed key by key, anything else (and ``SNAPSHOT_KEYS``) the last call's."""
    out: dict[str, Any] = {}
    for report in reports:
        for key, value in report.items():
            old = out.get(key)
            if key not in SNAPSHOT_KEYS and _number(value) and _number(old):
                out[key] = round(old + value, 1) if isinstance(old + value, float) else old + value
            elif isinstance(value, dict) and isinstance(old, dict) and all(map(_number, [*value.values(),
                                                                                         *old.values()])):
                out[key] = {k: old.get(k, 0) + value.get(k, 0) for k in dict.fromkeys([*old, *value])}
            else:
                out[key] = value
    return out


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _report(augmenter: Augmenter) -> dict[str, Any] | None:
    report = getattr(augmenter, "report", None)
    return report() if callable(report) else None


@dataclass
class Budgeted:
    """What :func:`augment_to_budget` gives: the outputs (at most the count), the sentences used
    (given to the augmenter, or whose outputs were taken), the sources with an output before the
    cut, the outputs dropped as not derived from the sentences given, the augmenter's report over
    its calls, and the per-seed record."""

    outputs: list[Sentence]
    used: list[Sentence]
    derived: set[str]
    dropped: int
    report: dict[str, Any] | None
    record: dict[str, Any] | None


def augment_subset(augmenter: Augmenter, subset: Sequence[Sentence], seed: int, budget: Budget | None,
                   n_train: int) -> Budgeted:
    """The augmenter's outputs for a subset: to ``budget`` (:func:`augment_to_budget`; ``n_train``: the
    size of the full training set it is a percent of), or without one from the whole subset in one
    call (``record`` None)."""
    if budget is not None:
        return augment_to_budget(augmenter, subset, seed, budget.count(n_train), budget.chunk)
    outputs, dropped = keep_derived(augmenter(list(subset), seed), subset)
    return Budgeted(outputs, list(subset), {o.source_id or "" for o in outputs}, dropped, _report(augmenter), None)


def augment_to_budget(augmenter: Augmenter, subset: Sequence[Sentence], seed: int, count: int,
                      chunk: int = 8) -> Budgeted:
    """Augment ``subset`` until ``count`` outputs, ``chunk`` sentences a call in :func:`budget_order`;
    the outputs cut to ``count`` by a seeded sample. An augmenter with a true ``whole_subset``
    (its outputs or checks depend on the whole subset: a generator that draws donors from its
    sentences, a pre-made file) is called once with the whole subset instead, and its outputs are
    taken chunk by chunk in the same order."""
    order = budget_order(subset, seed)
    whole = bool(getattr(augmenter, "whole_subset", False)) and count > 0
    by_source: dict[str, list[Sentence]] = {}
    outputs: list[Sentence] = []
    reports: list[dict[str, Any]] = []
    dropped = calls = used = 0

    def call(sentences: Sequence[Sentence]) -> tuple[list[Sentence], int]:
        """The augmenter's outputs derived from ``sentences``, and how many it made from none of them;
        its report on the call is kept."""
        nonlocal calls
        kept = keep_derived(augmenter(list(sentences), seed), sentences)
        calls += 1
        report = _report(augmenter)
        if report is not None:
            reports.append(report)
        return kept

    if whole:
        found, dropped = call(subset)
        for output in found:
            by_source.setdefault(output.source_id or "", []).append(output)
    for start in range(0, len(order), chunk):
        if len(outputs) >= count:
            break
        part = order[start:start + chunk]
        used += len(part)
        if whole:
            outputs += [o for s in part for o in by_source.get(s.id, [])]
            continue
        got, lost = call(part)
        dropped += lost
        outputs += got
    before, derived = len(outputs), {o.source_id or "" for o in outputs}
    if before > count:
        keep = sorted(random.Random(f"augment-cut:{seed}").sample(range(before), count))
        outputs = [outputs[i] for i in keep]
    record = {"target": count, "sentences_used": used, "calls": calls, "outputs_before_cut": before,
              "reached": before >= count, **({"whole_subset": True} if whole else {})}
    return Budgeted(outputs, order[:used], derived, dropped, merge_reports(reports) if reports else None, record)


def held_aside_gold(train: Sequence[Sentence], subset: Sequence[Sentence], count: int, seed: int
                    ) -> list[Sentence]:
    """``count`` gold sentences of ``train`` outside ``subset`` (by id), drawn with ``seed`` (all of
    them when fewer are left), in training-set order."""
    taken = {s.id for s in subset}
    pool = [s for s in train if s.id not in taken]
    if count >= len(pool):
        return pool
    chosen = sorted(random.Random(f"gold-control:{seed}").sample(range(len(pool)), count))
    return [pool[i] for i in chosen]
