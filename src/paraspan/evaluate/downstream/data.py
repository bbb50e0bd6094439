"""Corpus plumbing shared by the downstream learners: tokens, span → token mapping, subsets, splits."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from paraspan.corpus.conll import valid_token_offsets
from paraspan.corpus.schema import Sentence, Span


@dataclass(slots=True)
class Tokenized:
    """A sentence with word tokens (character offsets) for the token-level learners."""

    sentence: Sentence
    offsets: list[tuple[int, int]]

    @property
    def words(self) -> list[str]:
        return [self.sentence.text[s:e] for s, e in self.offsets]

    def token_span(self, span: Span) -> tuple[int, int] | None:
        """The tokens ``[first, last]`` (inclusive) that a character span touches, or None."""
        first = last = None
        for i, (start, end) in enumerate(self.offsets):
            if end > span.start and start < span.end:
                if first is None:
                    first = i
                last = i
        if first is None or last is None:
            return None
        return first, last


class Tokenizer:
    """``meta["tokens"]`` when they fit the text, else spaCy's rule-based English tokenizer.

    Generated sentences usually carry no tokens; spaCy's blank tokenizer splits both FrameNet's
    pre-tokenized text and ordinary detokenized text sensibly. Loaded on first use.
    """

    def __init__(self) -> None:
        self._nlp: Any = None

    def __call__(self, sentence: Sentence) -> Tokenized:
        offsets = valid_token_offsets(sentence.meta.get("tokens"), sentence.text)
        if offsets is None:
            if self._nlp is None:
                import spacy

                self._nlp = spacy.blank("en")
            offsets = [(t.idx, t.idx + len(t.text)) for t in self._nlp.make_doc(sentence.text) if not t.is_space]
        return Tokenized(sentence, offsets)


def is_exemplar(sentence: Sentence) -> bool:
    """FrameNet LU exemplar sentences are annotated for one target only (ids ``fnXX:luN:M``)."""
    return ":lu" in sentence.id or sentence.meta.get("exemplar") is True


def exhaustive(sentence: Sentence) -> bool:
    """Whether unannotated spans of the sentence are true negatives: gold full text only.

    Exemplar and augmented sentences are partial annotations (Culkin et al. §6.3), so they give
    positives only.
    """
    return not sentence.is_augmented and not is_exemplar(sentence)


def percent_number(key: str | float) -> float:
    """A point's key (``"10"``, ``"0.5"``) as a number, whole where it is whole (sorting and printing)."""
    value = float(key)
    return int(value) if value.is_integer() else value


def sample_subset(sentences: Sequence[Sentence], percent: float, seed: int) -> list[Sentence]:
    """``percent``% of the sentences, drawn with ``seed`` (100 → all, in the original order)."""
    if percent >= 100:
        return list(sentences)
    n = max(1, round(len(sentences) * percent / 100))
    chosen = sorted(random.Random(seed).sample(range(len(sentences)), n))
    return [sentences[i] for i in chosen]


def document_of(sentence: Sentence) -> str:
    """The document a sentence belongs to: ``meta["doc"]``, else the id without its last ``-N`` part
    (Universal PropBank EWT ids are ``<document>-<sentence number>``)."""
    doc = sentence.meta.get("doc")
    if isinstance(doc, str) and doc:
        return doc
    head, sep, tail = sentence.id.rpartition("-")
    return head if sep and tail.isdigit() else sentence.id


def split_by_document(
    sentences: Sequence[Sentence], test_fraction: float = 0.3
) -> tuple[list[Sentence], list[Sentence]]:
    """A deterministic train/test split by document (documents ordered by a hash of their name),
    so that no document is on both sides."""
    docs: dict[str, list[Sentence]] = {}
    for sentence in sentences:
        docs.setdefault(document_of(sentence), []).append(sentence)
    order = sorted(docs, key=lambda d: hashlib.sha1(d.encode("utf-8")).hexdigest())
    target = test_fraction * len(sentences)
    test: list[Sentence] = []
    train: list[Sentence] = []
    for doc in order:
        (test if len(test) < target else train).extend(docs[doc])
    return train, test
