"""The filter contract.

A filter decides, for one augmentation output (and the input sentence it was rewritten from),
whether to keep it: :meth:`Filter.decide` returns a :class:`FilterDecision` (keep, score,
reason). The numbers threshold rules read are in ``output.provenance`` (see
:func:`paraspan.filter.thresholds.features`); ``source`` is the input with id
``output.source_id``, which filters that compare the two (the relation filter) need and the
others ignore. Model-backed filters also decide many outputs in one call
(:meth:`BatchFilter.decide_batch`); :func:`decide_all` uses that when a filter has it.

Filters are registered and built by name in :mod:`paraspan.filter` (``filters``,
``build_filter``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, runtime_checkable

from paraspan.corpus.schema import Sentence, Structure


@dataclass(frozen=True)
class FilterDecision:
    """Keep or drop one output: ``score`` is the number the decision rests on when there is one
    (the learned filter's probability), ``reason`` says why in words, ``details`` holds the
    numbers behind it."""

    keep: bool
    score: float | None
    reason: str
    details: dict[str, Any] = field(default_factory=dict, compare=False)


@runtime_checkable
class Filter(Protocol):
    """Decides whether to keep one output; ``name`` is what decisions are recorded under."""

    name: str

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision: ...


@runtime_checkable
class BatchFilter(Filter, Protocol):
    """A filter that decides many (output, source) pairs at once (a model-backed one)."""

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]: ...


class BaseFilter:
    """A convenient base: ``decide_batch`` decides one pair after another, and the two traits the
    pipeline reads (:func:`reads_checks`, :func:`records_check`) at their defaults."""

    name: str
    #: It decides from the checks recorded before it (``provenance["checks"]``): run it after them.
    READS_CHECKS: ClassVar[bool] = False
    #: Its decision joins ``provenance["checks"]`` for the filters that read them; a rule over
    #: provenance (a threshold preset) adds nothing there.
    RECORDS_CHECK: ClassVar[bool] = True

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        raise NotImplementedError

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        return [self.decide(output, source) for output, source in pairs]


def reads_checks(flt: Filter) -> bool:
    """Whether ``flt`` decides from the checks recorded before it (a declared trait of
    :class:`BaseFilter`; a filter outside that base reads none)."""
    return isinstance(flt, BaseFilter) and flt.READS_CHECKS


def records_check(flt: Filter) -> bool:
    """Whether ``flt``'s decision is recorded among an output's checks (see :class:`BaseFilter`)."""
    return not isinstance(flt, BaseFilter) or flt.RECORDS_CHECK


def source_structure(source: Sentence, output: Sentence) -> Structure | None:
    """The structure of ``source`` that ``output`` was made from (``provenance["structure"]``, 0
    when not recorded); None when the index is not one of the source's structures."""
    index = (output.provenance or {}).get("structure", 0)
    return source.structures[index] if isinstance(index, int) and 0 <= index < len(source.structures) else None


def decide_all(flt: Filter, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
    """One decision per (output, source) pair, in one batched call when the filter has one."""
    if isinstance(flt, BatchFilter):
        decisions = list(flt.decide_batch(pairs))
        if len(decisions) != len(pairs):  # a bug in the filter, not in the input
            raise ValueError(f"filter {flt.name!r} returned {len(decisions)} decisions for {len(pairs)} outputs")
        return decisions
    return [flt.decide(output, source) for output, source in pairs]


def recorded(name: str, decision: FilterDecision) -> dict[str, FilterDecision]:
    """The decisions one filter's decision stands for: each part's of a combined check
    (``details["parts"]``, e.g. the labels, spans, fluency and meaning of ``verified``), then its own."""
    parts = (decision.details or {}).get("parts") or {}
    return {**parts, name: decision}


def record(output: Sentence, name: str, decision: FilterDecision) -> None:
    """Write ``decision`` (and its parts) into ``output.provenance``: ``filters`` (name → keep) and
    ``checks`` (name → keep, score, reason)."""
    prov = output.provenance if output.provenance is not None else {}
    output.provenance = prov
    for key, d in recorded(name, decision).items():
        prov.setdefault("filters", {})[key] = bool(d.keep)
        score = round(float(d.score), 4) if isinstance(d.score, (int, float)) else d.score
        prov.setdefault("checks", {})[key] = {"keep": bool(d.keep), "score": score, "reason": str(d.reason)}
