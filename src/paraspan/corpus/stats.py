"""Corpus statistics: sentences, structures by kind, arguments, label distributions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from paraspan.corpus.schema import Sentence


@dataclass
class CorpusStats:
    sentences: int = 0
    augmented: int = 0
    tokens: int = 0
    sentences_without_structures: int = 0
    structures: Counter[str] = field(default_factory=Counter)
    anchors: Counter[str] = field(default_factory=Counter)
    args: Counter[str] = field(default_factory=Counter)
    labels: dict[str, Counter[str]] = field(default_factory=dict)
    arg_labels: dict[str, Counter[str]] = field(default_factory=dict)
    documents: set[str] = field(default_factory=set)

    def add(self, sentence: Sentence) -> None:
        self.sentences += 1
        if sentence.is_augmented:
            self.augmented += 1
        tokens = sentence.meta.get("tokens") if isinstance(sentence.meta, dict) else None
        self.tokens += len(tokens) if isinstance(tokens, list) else len(sentence.text.split())
        doc = sentence.meta.get("doc") if isinstance(sentence.meta, dict) else None
        if isinstance(doc, str):
            self.documents.add(doc)
        if not sentence.structures:
            self.sentences_without_structures += 1
        for structure in sentence.structures:
            kind = structure.kind
            self.structures[kind] += 1
            if structure.anchor is not None:
                self.anchors[kind] += 1
            self.args[kind] += len(structure.args)
            self.labels.setdefault(kind, Counter())[structure.label] += 1
            arg_counter = self.arg_labels.setdefault(kind, Counter())
            for arg in structure.args:
                arg_counter[arg.label or ""] += 1

    def to_dict(self, top: int | None = None) -> dict[str, Any]:
        def ranked(counter: Counter[str]) -> dict[str, int]:
            return dict(counter.most_common(top))

        return {
            "sentences": self.sentences,
            "augmented": self.augmented,
            "documents": len(self.documents),
            "tokens": self.tokens,
            "sentences_without_structures": self.sentences_without_structures,
            "structures": dict(sorted(self.structures.items())),
            "anchors": dict(sorted(self.anchors.items())),
            "args": dict(sorted(self.args.items())),
            "distinct_labels": {k: len(v) for k, v in sorted(self.labels.items())},
            "labels": {k: ranked(v) for k, v in sorted(self.labels.items())},
            "arg_labels": {k: ranked(v) for k, v in sorted(self.arg_labels.items())},
        }


def compute_stats(sentences: Iterable[Sentence]) -> CorpusStats:
    stats = CorpusStats()
    for sentence in sentences:
        stats.add(sentence)
    return stats
