"""The ``rewrite`` augmenter: ``paraspan.generate.rewrite.Rewriter`` (issue 7) as ``(sentences, seed) -> outputs``.

Rewriting is deterministic and per sentence, so the outputs of each gold sentence are computed
once and reused by every subset that contains it (``seed`` does not change them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence


@dataclass
class RewriteAugmenter:
    """At most ``max_per_sentence`` projected rewrites per gold sentence (one rule each, in turn)."""

    max_per_sentence: int | None = 2
    rules: Any = None  # a RuleSet or a refined-rules file; None: the default rule set
    memo: dict[str, list[Sentence]] = field(default_factory=dict)
    _rewriter: Any = None

    @property
    def rewriter(self) -> Any:
        if self._rewriter is None:
            from paraspan.generate.rewrite.generator import Rewriter

            self._rewriter = Rewriter(self.rules, max_per_sentence=self.max_per_sentence)
        return self._rewriter

    def __call__(self, sentences: list[Sentence], seed: int) -> list[Sentence]:
        todo = [s for s in sentences if s.id not in self.memo]
        for s in todo:
            self.memo[s.id] = []
        for out in self.rewriter.rewrite_corpus(todo):
            self.memo[out.source_id or ""].append(out)
        return [out for s in sentences for out in self.memo.get(s.id, [])]
