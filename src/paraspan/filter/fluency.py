"""Fluency: is the output as natural English as the sentence it was rewritten from?

The LLM scores both texts, token by token, each after the model's begin-of-text token. Two
statistics compare them (``statistic``):

* ``shared-drop`` (the default): align the tokens the output shares with its source (difflib on
  the token ids) and take the lowest log-prob(output token) − log-prob(source token) over them,
  i.e. minus the largest drop: how much more surprising the most-disturbed shared token became.
  A rewrite that breaks the sentence ("in the summer of 2001" → "in the of 2001 summer", "a air
  space") makes the words around the break unexpected, while a fluent paraphrase leaves the
  words it keeps about as likely as they were. One bad word moves this statistic by whole nats.
* ``mean``: d = mean log-prob per token of the output − the source's. A one-word error in a
  20-word sentence is diluted by the mean below the natural spread of fluent paraphrases, so at
  the same operating point it rejects about a third as many broken sentences (benchmarks/README.md,
  "Fluency filter").

The output is kept iff the statistic ≥ τ. τ is calibrated per (model, statistic) on gold
paraphrases (MRPC train positives): the 5th percentile of the statistic over both directions
of the pairs, i.e. the value that keeps 95% of two fluent sentences that mean the same. The
calibrated values ship in ``data/fluency.json`` (written by ``benchmarks/verify.py --part
fluency --statistic S``, which also measures the rejection of corrupted sentences);
``threshold`` overrides them.

A **word edit** (the output differs from its source in one stretch of at most three words: a
contextual substitute, an inflection) leaves every other token in place, so a shared token's drop
there is the new word failing its neighbours ("capable to obtain", "related with", "asserting it
the president's priority"), not the spread of a reworded sentence the gold pairs calibrate. Such an
output must pass ``word_edit_threshold`` (−3.0 nats) too. Chosen on the 187 judged substitutes of
the FrameNet dev runs (``benchmarks/README.md``, "Verified augmentation per generator"), all of
which had passed the calibrated τ: −3.0 rejects 25 of the 79 wrong ones and 5 of the 108 right
ones (``python benchmarks/generators.py substitutes fn-substitute-v3 … fn-cascade-b``).

The model runs through the LLM runtime (:func:`paraspan.llm.llama_backend.text_token_scorer`,
:func:`~paraspan.llm.llama_backend.text_scorer`), which is imported on the first decision.
"""

from __future__ import annotations

import difflib
import json
import math
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib.resources import files
from typing import Any, Literal, cast

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter.base import BaseFilter, FilterDecision

#: A scorer: texts → mean log-probability per token of each (one model call for all of them).
Scorer = Callable[[Sequence[str]], list[float]]

#: Token ids of a text and the log-probability of each.
TokenScores = tuple[list[int], list[float]]
#: A token scorer: texts → token ids and per-token log-probs of each (one model call for all of them).
TokenScorer = Callable[[Sequence[str]], list[TokenScores]]
#: The statistics the filter can compare an output with its source by.
STATISTICS = ("shared-drop", "mean")
Statistic = Literal["shared-drop", "mean"]
#: The statistic the registered filter uses unless told (the better one in benchmarks/verify.py --part fluency).
DEFAULT_STATISTIC: Statistic = "shared-drop"
STATISTIC_DESCRIPTIONS = {
    "shared-drop": "min over the tokens the output shares with its source (difflib on token ids) of the token's "
                   "log-prob in the output minus in the source, after begin-of-text (minus the largest drop)",
    "mean": "mean log-prob per token of the output minus the source's, after begin-of-text",
}

CALIBRATION_FILE = "fluency.json"
#: The share of gold paraphrase pairs the calibrated threshold keeps.
KEEP_SHARE = 0.95
#: Texts whose scores a filter keeps (a few KB each: token ids and log-probs).
MEMO_SIZE = 2048


@lru_cache(maxsize=1)
def _calibration_text() -> str:
    path = files("paraspan.filter") / "data" / CALIBRATION_FILE
    return path.read_text(encoding="utf-8") if path.is_file() else "{}"


def calibrated_thresholds(statistic: str = DEFAULT_STATISTIC) -> dict[str, float]:
    """The shipped threshold of each model calibrated for ``statistic`` (``default``, ``small``)."""
    out: dict[str, float] = {}
    for name, entry in json.loads(_calibration_text()).get("models", {}).items():
        if "threshold" in entry:  # the older layout: one statistic, the mean
            entry = {"mean": entry}
        if "threshold" in entry.get(statistic, {}):
            out[name] = float(entry[statistic]["threshold"])
    return out


def calibrated_threshold(model: str, statistic: str = DEFAULT_STATISTIC) -> float:
    """The shipped threshold for ``model`` and ``statistic``; a clear error when it was not calibrated."""
    known = calibrated_thresholds(statistic)
    if model not in known:
        calibrated = f"{', '.join(sorted(known)) or 'none'} for the {statistic!r} statistic"
        raise ParaspanError.from_code("E861", model=model, calibrated=calibrated)
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


def shared_drop(source: TokenScores, output: TokenScores) -> float:
    """The ``shared-drop`` statistic: min over the tokens ``output`` shares with ``source`` (aligned
    with difflib on the token ids) of log-prob in the output − log-prob in the source, i.e. minus
    the largest drop (how much more surprising the most-disturbed shared token became). 0.0 when
    they share no token (nothing to compare)."""
    (src_ids, src_lps), (out_ids, out_lps) = source, output
    matcher = difflib.SequenceMatcher(None, src_ids, out_ids, autojunk=False)
    diffs = [out_lps[j + k] - src_lps[i + k] for i, j, n in matcher.get_matching_blocks() for k in range(n)]
    return min(diffs) if diffs else 0.0


def gold_statistics(scorer: TokenScorer, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """``shared-drop`` in both directions of each gold pair, scoring every sentence once."""
    texts = sorted({t for pair in pairs for t in pair})
    value = dict(zip(texts, scorer(texts), strict=True))
    return [d for a, b in pairs for d in (shared_drop(value[a], value[b]), shared_drop(value[b], value[a]))]


def gold_deltas(scorer: Scorer, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """d in both directions of each gold pair (s1 → s2 and s2 → s1), scoring every sentence once."""
    texts = sorted({t for pair in pairs for t in pair})
    value = dict(zip(texts, scorer(texts), strict=True))
    return [d for a, b in pairs for d in (value[b] - value[a], value[a] - value[b])]


def calibrate(scorer: Scorer, pairs: Sequence[tuple[str, str]], keep: float = KEEP_SHARE) -> float:
    """The threshold that keeps ``keep`` of the gold paraphrase ``pairs`` (both directions)."""
    return percentile(gold_deltas(scorer, pairs), 1.0 - keep)


class FluencyFilter(BaseFilter):
    """Keep an output iff its ``statistic`` against its source is at least ``threshold``.

    ``mean``: mean log-prob per token of the output minus its source's; ``scorer`` maps texts to
    mean log-probs. ``shared-drop``: :func:`shared_drop`; ``scorer`` maps texts to token ids and
    per-token log-probs. Either way one call scores all texts, and ``load`` may return the scorer
    on the first decision instead (so building the filter loads no model). Score = the statistic;
    details hold it, the threshold and both texts' mean log-probs.
    """

    def __init__(self, threshold: float, scorer: Scorer | TokenScorer | None = None, *, name: str = "fluency",
                 load: Callable[[], Scorer | TokenScorer] | None = None, model: str | None = None,
                 statistic: str = "mean", new_content_threshold: float | None = None,
                 word_edit_threshold: float | None = None, memo_size: int = MEMO_SIZE) -> None:
        if scorer is None and load is None:
            raise ValueError("give a scorer or a function that loads one")
        if statistic not in STATISTICS:
            raise ValueError(f"unknown fluency statistic {statistic!r} (known: {', '.join(STATISTICS)})")
        self.threshold = float(threshold)
        self._scorer = scorer
        self._load = load
        self.name = name
        self.model = model
        self.statistic = statistic
        # an output with new content (infilling, provenance "meaning": "new") shares few tokens with
        # its source, so shared-drop sees little of it: its mean log-prob must also be at most this
        # far below the source's (the `mean` statistic's calibrated threshold)
        self.new_content_threshold = new_content_threshold
        # a word edit (one stretch of at most 3 words changed) must also pass this (shared-drop only)
        self.word_edit_threshold = word_edit_threshold
        # text → its score, the most recently used last (see :meth:`_scores`)
        self.memo_size = memo_size
        self._memo: OrderedDict[str, Any] = OrderedDict()

    @property
    def scorer(self) -> Scorer | TokenScorer:
        """The scorer, loaded now if it was not yet."""
        if self._scorer is None:  # then __init__ was given ``load``
            self._scorer = cast("Callable[[], Scorer | TokenScorer]", self._load)()
        return self._scorer

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        return self.decide_batch([(output, source)])[0]

    def _scores(self, texts: Sequence[str]) -> dict[str, Any]:
        """Each text's score, from the memo or from one scorer call for the texts it lacks. The
        pipeline decides one candidate at a time, and a sentence's structures often get the same
        rewrite and always the same source: without the memo each of them scored both again (a
        sentence with five frames and one rewrite: ten texts scored instead of two)."""
        memo = self._memo
        missing = [t for t in texts if t not in memo]
        if missing:
            memo.update(zip(missing, self.scorer(missing), strict=True))
        value = {t: memo[t] for t in texts}
        for t in texts:  # least recently used go first
            memo.move_to_end(t)
        while len(memo) > self.memo_size:
            memo.popitem(last=False)
        return value

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        """All outputs and their distinct sources scored in one scorer call (each source once)."""
        if not pairs:
            return []
        texts: dict[str, None] = {}  # ordered and distinct: a source shared by many outputs is scored once
        for out, source in pairs:
            if source is None:
                raise ParaspanError.from_code("E860", missing=out.id)
            if not source.text.strip():
                raise ParaspanError.from_code("E862", source=source.id, output=out.id)
            texts[source.text] = None
            if out.text.strip():
                texts[out.text] = None
        value = self._scores(list(texts))
        decisions = [self._decision(out.text, value.get(out.text), value[source.text],  # type: ignore[union-attr]
                                    word_edit=is_word_edit(source.text, out.text))  # type: ignore[union-attr]
                     for out, source in pairs]
        return [self._new_content(d) if (out.provenance or {}).get("meaning") == "new" else d
                for d, (out, _) in zip(decisions, pairs, strict=True)]

    def _new_content(self, d: FilterDecision) -> FilterDecision:
        """``d`` with the mean log-prob also checked (see ``new_content_threshold``)."""
        delta = d.details.get("delta")
        if not d.keep or self.new_content_threshold is None or delta is None or self.statistic != "shared-drop":
            return d
        d.details["new_content_threshold"] = self.new_content_threshold
        if delta >= self.new_content_threshold:
            return d
        reason = (f"new content: mean log-prob {delta:.2f} below the source's "
                  f"({delta:.2f} < {self.new_content_threshold:.2f})")
        return FilterDecision(False, d.score, reason, d.details)

    def _decision(self, text: str, out: Any, src: Any, *, word_edit: bool = False) -> FilterDecision:
        threshold = self.threshold
        if word_edit and self.word_edit_threshold is not None and self.statistic == "shared-drop":
            threshold = max(threshold, self.word_edit_threshold)
        details: dict[str, Any] = {"statistic": self.statistic, "threshold": threshold,
                                   **({"word_edit": True} if word_edit else {})}
        if self.model is not None:
            details["model"] = self.model
        if self.statistic == "mean":
            return self._mean_decision(text, out, src, details)
        src_mean = _mean(src[1])
        details.update(source_logprob=round(src_mean, 4), output_logprob=None)
        if out is None or not text.strip():
            return FilterDecision(False, None, "empty output", details)
        s = shared_drop(src, out)
        out_mean = _mean(out[1])
        details.update(output_logprob=round(out_mean, 4), delta=round(out_mean - src_mean, 4),
                       largest_drop=round(-s, 4), shared_tokens=_shared_count(src[0], out[0]))
        keep = s >= threshold
        edit = ", a word edit" if threshold != self.threshold else ""
        reason = (f"shared-drop: largest drop of a shared token's log-prob {-s:.2f} "
                  f"({-s:.2f} {'≤' if keep else '>'} {-threshold:.2f}{edit}; "
                  f"mean log-prob {out_mean:.2f} vs source {src_mean:.2f})")
        return FilterDecision(keep, round(s, 4), reason, details)

    def _mean_decision(self, text: str, lp_out: float | None, lp_src: float,
                       details: dict[str, Any]) -> FilterDecision:
        details.update(output_logprob=lp_out, source_logprob=round(lp_src, 4))
        if lp_out is None or not text.strip():
            return FilterDecision(False, None, "empty output", details)
        d = lp_out - lp_src
        details.update(output_logprob=round(lp_out, 4), delta=round(d, 4))
        keep = d >= self.threshold
        reason = (f"mean log-prob {lp_out:.2f} vs source {lp_src:.2f} "
                  f"(Δ {d:+.2f} {'≥' if keep else '<'} {self.threshold:+.2f})")
        return FilterDecision(keep, round(d, 4), reason, details)


def is_word_edit(source: str, output: str, max_words: int = 3) -> bool:
    """Whether ``output`` differs from ``source`` in one stretch of at most ``max_words`` words."""
    a, b = source.split(), output.split()
    changed = [op for op in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes() if op[0] != "equal"]
    return len(changed) == 1 and max(changed[0][2] - changed[0][1], changed[0][4] - changed[0][3]) <= max_words


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


def _shared_count(a: Sequence[int], b: Sequence[int]) -> int:
    return sum(n for _, _, n in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks())


#: see the module docstring ("a word edit")
WORD_EDIT_THRESHOLD = -3.0


def fluency_filter(model: str = "default", threshold: float | None = None, threads: int | None = 1,
                   record_as: str | None = None, statistic: Statistic = DEFAULT_STATISTIC,
                   word_edit_threshold: float | None = WORD_EDIT_THRESHOLD) -> FluencyFilter:
    """The registered ``fluency`` filter: keep outputs whose fluency under the LLM ``model``
    (``default``, ``small`` or a ``.gguf`` path) against their source's is at least ``threshold``.
    ``statistic``: ``shared-drop`` (the largest drop of a token's log-prob over the tokens the
    output shares with its source must be at most ``-threshold``) or ``mean`` (the output's mean
    log-prob per token at most ``-threshold`` below its source's). ``threshold`` defaults to the
    value calibrated for ``model`` and ``statistic`` on gold paraphrases (shipped with the package);
    ``word_edit_threshold``: what a word edit must also pass with ``shared-drop`` (None: nothing
    more); the model loads on the first decision, with ``threads`` threads."""
    if statistic not in STATISTICS:  # pydantic checks the registry's options; this, direct calls
        raise ParaspanError.from_code("E004", where="filter 'fluency'", details=f"statistic: {statistic!r}",
                                      choices=f"statistic: {' | '.join(STATISTICS)}")
    tau = calibrated_threshold(model, statistic) if threshold is None else float(threshold)
    new_tau = calibrated_thresholds("mean").get(model) if statistic == "shared-drop" else None
    return FluencyFilter(tau, name=record_as or "fluency", load=_ScorerLoader(model, threads, statistic),
                         model=model, statistic=statistic, new_content_threshold=new_tau,
                         word_edit_threshold=word_edit_threshold)


@dataclass(frozen=True)
class _ScorerLoader:
    """Loads the scorer (a plain object, so a filter that has not loaded it yet pickles)."""

    model: str
    threads: int | None
    statistic: str = "mean"

    def __call__(self) -> Scorer | TokenScorer:
        from paraspan.llm.llama_backend import text_scorer, text_token_scorer

        load = text_token_scorer if self.statistic == "shared-drop" else text_scorer
        return load(self.model, n_threads=self.threads)
