"""The shared filter contract: a filter looks at a source sentence and its rewrites and returns,
for each rewrite, a decision with a reason.

Filters are registered by name as ``"module:attr"`` strings (see :func:`filters`), so listing
them imports nothing heavy. A registered target is a factory: call it with its options to get a
filter (``filters().get("relation")(judge)``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from paraspan.corpus.schema import Sentence
from paraspan.registry import Registry


@dataclass(frozen=True)
class FilterDecision:
    """Keep or drop one output; ``reason`` says why in words, ``scores`` holds the numbers behind it."""

    keep: bool
    reason: str
    scores: dict[str, Any] = field(default_factory=dict)


class Filter(Protocol):
    """Decides, for each output rewritten from ``source``, whether to keep it (one decision per output)."""

    def __call__(self, source: Sentence, outputs: list[Sentence]) -> list[FilterDecision]: ...


def filters() -> Registry[Callable[..., Filter]]:
    """Filter factories by name (a fresh registry: no global state)."""
    reg: Registry[Callable[..., Filter]] = Registry("filters")
    reg.register("relation", "paraspan.filter.relations:RelationFilter",
                 "keep rewrites whose NLI relation to the source is equivalence (or also forward entailment)")
    return reg
