"""Teach only what the checks accept: training directions whose target fails the word check of its relation.

``paraspan paraphrase --relation R`` puts every candidate through R's word check before the judges
(:func:`paraspan.cli.paraphrase_relation.direction_check`): a forward candidate drops content words
and adds none, a reverse one adds and drops none, an equivalent one keeps every number, name,
deciding word and content word (or a WordNet synonym), and the words kept keep their heads. An
adapter trained on every relabelled pair rewrites as freely as those pairs do, and the check refused
90-97% of its candidates (benchmarks/README.md, "Trained sentence paraphrasers"): only 131 of the 907
forward directions of the relabelled MRPC, SICK and STS-B train pairs keep to the source's content
words. :func:`check_pairs` leaves out each direction (source → target under R) whose target the
same check refuses, so that the adapter learns the rewrites generation keeps.

The check is the caller's (:data:`WordCheck`): train must not import the filters or the command
line, which import it; ``paraspan train-generator --task paraphrase`` passes the one ``paraspan
paraphrase --relation`` applies (``--checked-pairs``, the default).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from paraspan.train.pairs import PAIR_RELATIONS, LabelledPair, PairExampleConfig, directions, length_ok, unusable

__all__ = ["WordCheck", "check_pairs", "check_training_pairs", "describe_check"]

#: ``check(relation, [(source, target), …])`` → for each pair, why ``target`` is refused as a paraphrase
#: of ``source`` under ``relation`` (``None``: it passes).
WordCheck = Callable[[str, Sequence[tuple[str, str]]], list[str | None]]


def check_pairs(pairs: Iterable[LabelledPair], check: WordCheck, config: PairExampleConfig | None = None, *,
                relations: Sequence[str] = PAIR_RELATIONS) -> tuple[list[LabelledPair], dict[str, Any]]:
    """``pairs`` without the directions ``check`` refuses, and what it did per relation.

    Only directions that would teach are checked (a usable pair, a relation in ``relations``, a length
    within ``config``'s ratios); the rest pass through unchanged, for :func:`build_pair_examples` to
    count as it always does. A pair keeps the directions that pass (``ways``) and goes when none does.
    Each relation is checked in one call. The report: per relation, the directions ``checked``,
    ``kept`` and ``dropped``, and ``why`` (reason → count, most frequent first)."""
    config = config or PairExampleConfig()
    pairs = list(pairs)
    todo: dict[str, list[tuple[int, str, str, str]]] = {}
    for i, pair in enumerate(pairs):
        if unusable(pair, config) is not None:
            continue
        for way, source, target, relation in directions(pair):
            if relation in relations and length_ok(source, target, config):
                todo.setdefault(relation, []).append((i, way, source, target))
    refused: set[tuple[int, str]] = set()
    report: dict[str, Any] = {}
    for relation in [r for r in PAIR_RELATIONS if r in todo]:
        items = todo[relation]
        reasons = check(relation, [(source, target) for _, _, source, target in items])
        if len(reasons) != len(items):  # a bug in the check, not in the pairs
            raise ValueError(f"the word check gave {len(reasons)} answers for {len(items)} {relation} directions")
        why: Counter[str] = Counter()
        for (i, way, _, _), reason in zip(items, reasons, strict=True):
            if reason is not None:
                refused.add((i, way))
                why[reason] += 1
        report[relation] = {"checked": len(items), "kept": len(items) - sum(why.values()),
                            "dropped": sum(why.values()), "why": dict(why.most_common())}
    out: list[LabelledPair] = []
    for i, pair in enumerate(pairs):
        ways = [way for way, *_ in directions(pair) if (i, way) not in refused]
        if len(ways) == len(directions(pair)):
            out.append(pair)
        elif ways:
            out.append(replace(pair, ways=ways[0]))
    return out, report


def check_training_pairs(pairs: Iterable[LabelledPair], dev_pairs: Iterable[LabelledPair] | None,
                         check: WordCheck | None, config: PairExampleConfig | None = None, *,
                         relations: Sequence[str] = PAIR_RELATIONS
                         ) -> tuple[list[LabelledPair], list[LabelledPair] | None, dict[str, Any]]:
    """The training and dev pairs that ``check`` leaves (:func:`check_pairs`; both unchanged without a
    check) and what the model card records: ``{"applied": bool, "train": report, "dev": report}``. The
    dev pairs held out of the training pairs (no ``dev_pairs``) are checked with them: a pair's kept
    directions stay with it, on one side of the split."""
    pairs = list(pairs)
    dev = list(dev_pairs) if dev_pairs is not None else None
    if check is None:
        return pairs, dev, {"applied": False}
    kept, report = check_pairs(pairs, check, config, relations=relations)
    record: dict[str, Any] = {"applied": True, "train": report}
    if dev is not None:
        dev, record["dev"] = check_pairs(dev, check, config, relations=relations)
    return kept, dev, record


def describe_check(record: dict[str, Any]) -> str:
    """One line of what the word check kept: ``word check kept equivalence 900 of 2,000 (added 700, …), …``."""
    if not record.get("applied"):
        return "word check off: every relabelled pair teaches (--all-pairs)"
    parts = []
    for relation, counts in record.get("train", {}).items():
        top = ", ".join(f"{why} {n:,}" for why, n in list(counts["why"].items())[:3])
        parts.append(f"{relation} {counts['kept']:,} of {counts['checked']:,}" + (f" (dropped: {top})" if top else ""))
    return "word check kept " + ("; ".join(parts) or "nothing to check")
