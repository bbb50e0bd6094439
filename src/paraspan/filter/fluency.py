"""Fluency: is the output as natural English as the sentence it was rewritten from?

The LLM scores both texts (mean log-probability per token, each after the model's
begin-of-text token); ``d = mean log-prob(output) − mean log-prob(source)``. A rewrite that
breaks the sentence ("in the summer of 2001" → "in the of 2001 summer", "a air space") makes
tokens the model did not expect, so d drops well below zero, while a fluent sentence that
means the same lands near its source. The output is kept iff ``d ≥ τ``.

τ is calibrated per model on gold paraphrases (MRPC train positives): the 5th percentile of d
over both directions of the pairs, i.e. the value that keeps 95% of two fluent sentences that
mean the same. The calibrated values ship in ``data/fluency.json`` (written by
``benchmarks/verify.py --part fluency``, which also measures the rejection of corrupted
sentences); ``threshold`` overrides them.

The model runs through the LLM runtime (:func:`paraspan.llm.llama_backend.text_scorer`), which
is imported on the first decision.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision

#: A scorer: texts → mean log-probability per token of each (one model call for all of them).
Scorer = Callable[[Sequence[str]], list[float]]

CALIBRATION_FILE = "fluency.json"
#: The share of gold paraphrase pairs the calibrated threshold keeps.
KEEP_SHARE = 0.95


@lru_cache(maxsize=1)
def _calibration_text() -> str:
    path = files("paraspan.filter") / "data" / CALIBRATION_FILE
    return path.read_text(encoding="utf-8") if path.is_file() else "{}"


def calibrated_thresholds() -> dict[str, float]:
    """The shipped threshold of each calibrated model (``default``, ``small``)."""
    models = json.loads(_calibration_text()).get("models", {})
    return {name: float(entry["threshold"]) for name, entry in models.items() if "threshold" in entry}


def calibrated_threshold(model: str) -> float:
    """The shipped threshold for ``model``; a clear error when it was not calibrated."""
    known = calibrated_thresholds()
    if model not in known:
        raise ParaspanError.from_code("E861", model=model, calibrated=", ".join(sorted(known)) or "none")
    return known[model]


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0-1) of ``values``, linear between order statistics (numpy's default)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    low = math.floor(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)


def gold_deltas(scorer: Scorer, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """d in both directions of each gold pair (s1 → s2 and s2 → s1), scoring every sentence once."""
    texts = sorted({t for pair in pairs for t in pair})
    value = dict(zip(texts, scorer(texts), strict=True))
    return [d for a, b in pairs for d in (value[b] - value[a], value[a] - value[b])]


def calibrate(scorer: Scorer, pairs: Sequence[tuple[str, str]], keep: float = KEEP_SHARE) -> float:
    """The threshold that keeps ``keep`` of the gold paraphrase ``pairs`` (both directions)."""
    return percentile(gold_deltas(scorer, pairs), 1.0 - keep)


class FluencyFilter(BaseFilter):
    """Keep an output iff its mean log-prob per token minus its source's is at least ``threshold``.

    ``scorer`` maps texts to mean log-probs in one call, or ``load`` returns one on the first
    decision (so building the filter loads no model). Score = d; details hold both log-probs.
    """

    def __init__(self, threshold: float, scorer: Scorer | None = None, *, name: str = "fluency",
                 load: Callable[[], Scorer] | None = None, model: str | None = None) -> None:
        if scorer is None and load is None:
            raise ValueError("give a scorer or a function that loads one")
        self.threshold = float(threshold)
        self._scorer = scorer
        self._load = load
        self.name = name
        self.model = model

    @property
    def scorer(self) -> Scorer:
        """The scorer, loaded now if it was not yet."""
        if self._scorer is None:
            assert self._load is not None
            self._scorer = self._load()
        return self._scorer

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        return self.decide_batch([(output, source)])[0]

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        """All outputs and their distinct sources scored in one scorer call (each source once)."""
        if not pairs:
            return []
        for out, source in pairs:
            if source is None:
                raise ParaspanError.from_code("E860", missing=out.id)
            if not source.text.strip():
                raise ParaspanError.from_code("E862", source=source.id, output=out.id)
        texts: dict[str, None] = {}  # ordered and distinct: a source shared by many outputs is scored once
        for out, source in pairs:
            assert source is not None
            texts[source.text] = None
            if out.text.strip():
                texts[out.text] = None
        order = list(texts)
        value = dict(zip(order, self.scorer(order), strict=True))
        return [self._decision(out.text, value.get(out.text), value[source.text])  # type: ignore[union-attr]
                for out, source in pairs]

    def _decision(self, text: str, lp_out: float | None, lp_src: float) -> FilterDecision:
        details: dict[str, Any] = {"output_logprob": lp_out, "source_logprob": round(lp_src, 4),
                                   "threshold": self.threshold}
        if self.model is not None:
            details["model"] = self.model
        if lp_out is None or not text.strip():
            return FilterDecision(False, None, "empty output", details)
        d = lp_out - lp_src
        details.update(output_logprob=round(lp_out, 4), delta=round(d, 4))
        keep = d >= self.threshold
        reason = (f"mean log-prob {lp_out:.2f} vs source {lp_src:.2f} "
                  f"(Δ {d:+.2f} {'≥' if keep else '<'} {self.threshold:+.2f})")
        return FilterDecision(keep, round(d, 4), reason, details)


def fluency_filter(model: str = "default", threshold: float | None = None, threads: int | None = 1,
                   record_as: str | None = None) -> FluencyFilter:
    """The registered ``fluency`` filter: keep outputs whose mean log-prob per token under the LLM
    ``model`` (``default``, ``small`` or a ``.gguf`` path) is at most ``-threshold`` below their
    source's. ``threshold`` defaults to the value calibrated for ``model`` on gold paraphrases
    (shipped with the package); the model loads on the first decision, with ``threads`` threads."""
    tau = calibrated_threshold(model) if threshold is None else float(threshold)
    return FluencyFilter(tau, name=record_as or "fluency", load=_ScorerLoader(model, threads), model=model)


@dataclass(frozen=True)
class _ScorerLoader:
    """Loads the scorer (a plain object, so a filter that has not loaded it yet pickles)."""

    model: str
    threads: int | None

    def __call__(self) -> Scorer:
        from paraspan.llm.llama_backend import text_scorer

        return text_scorer(self.model, n_threads=self.threads)
