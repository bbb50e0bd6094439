"""Token and mention replacement from a donor pool (Dai & Adel 2020): ``token_replace`` and ``mention_replace``."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.corpus.schema import Sentence, Span
from paraspan.errors import ParaspanError
from paraspan.generate.base import (
    Capabilities,
    GenerationRequest,
    GenerationResult,
    GeneratorFactory,
)
from paraspan.generate.baselines.common import (
    _at_start,
    _Drawing,
    _final_punctuation,
    _fit_case,
    _frozen_anchors,
    _wordlike,
    labelled_spans,
    tokenize,
)
from paraspan.generate.project import Edit, tokens_in

if TYPE_CHECKING:
    pass



# ----------------------------------------------------------------------------- donor pool


@dataclass
class DonorPool:
    """Label-wise tokens (``(kind, label, "B"|"I")``) and mentions (``(kind, label)``) with counts."""

    tokens: dict[tuple[str, str, str], Counter[str]] = field(default_factory=dict)
    mentions: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    sentences: int = 0
    _seen: set[tuple[str, str]] = field(default_factory=set, repr=False)

    def add(self, sentence: Sentence) -> bool:
        """Add the labelled spans of ``sentence`` (once per id and text); whether it was new."""
        key = (sentence.id, sentence.text)
        if key in self._seen:
            return False
        self._seen.add(key)
        self.sentences += 1
        text = sentence.text
        toks = tokenize(sentence)
        for st in sentence.structures:
            for span, label in labelled_spans(st):
                cut = _final_punctuation(text, span) if st.kind != "entity" else 0
                mention = text[span.start:span.end - cut].strip()
                if _wordlike(mention):
                    self.mentions.setdefault((st.kind, label), Counter())[mention] += 1
                for pos, i in enumerate(tokens_in(toks, span.start, span.end)):
                    word = text[toks[i][0]:toks[i][1]]
                    if _wordlike(word):
                        self.tokens.setdefault((st.kind, label, "B" if pos == 0 else "I"), Counter())[word] += 1
        return True

    def add_all(self, sentences: Iterable[Sentence]) -> None:
        for sentence in sentences:
            self.add(sentence)

    @staticmethod
    def choices(table: dict[Any, Counter[str]], key: Any, original: str) -> tuple[list[str], list[int]]:
        """Donors of ``key`` other than ``original`` (any case), sorted, with their counts."""
        counter = table.get(key)
        if not counter:
            return [], []
        low = original.casefold()
        items = sorted((w, c) for w, c in counter.items() if w.casefold() != low)
        return [w for w, _ in items], [c for _, c in items]

    @classmethod
    def load(cls, path: str | Path, fmt: str | None = None) -> DonorPool:
        """A pool of every labelled span of the corpus at ``path`` (format ``fmt``, or guessed)."""
        from paraspan.corpus.formats import guess_format, read_corpus

        pool = cls()
        pool.add_all(read_corpus(path, fmt or guess_format(path) or "jsonl"))
        if not pool.mentions:
            raise ParaspanError.from_code("E882", path=str(path))
        return pool


class _Donating(_Drawing):
    """Token and mention replacement: a donor pool, from a corpus or from what was seen."""

    def __init__(self, p: float, n: int, seed: int, donors: DonorPool | str | Path | None = None,
                 donors_format: str | None = None) -> None:
        super().__init__(p, n, seed)
        self.fixed = donors is not None
        if donors is None:
            self.pool = DonorPool()
        elif isinstance(donors, DonorPool):
            self.pool = donors
        else:
            self.pool = DonorPool.load(donors, donors_format)
        self.info["donors"] = (str(donors) if isinstance(donors, (str, Path)) else
                               "given" if self.fixed else "seen sentences")

    def _see(self, sentence: Sentence) -> None:
        if not self.fixed:
            self.pool.add(sentence)

    def _no_donor(self, request: GenerationRequest, what: str, labels: list[str]) -> GenerationResult:
        return GenerationResult(request, [], note=f"no donor {what} with the same label: "
                                f"{', '.join(labels)} (pool of {self.pool.sentences} sentences)")


class TokenReplacer(_Donating):
    """Label-wise token replacement (Dai & Adel 2020; see the module docstring); registered as ``token_replace``."""

    name = "token_replace"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False)

    def _generate(self, request: GenerationRequest, sentence: Sentence, which: list[int]) -> GenerationResult:
        text = sentence.text
        tokens = tokenize(sentence)
        frozen = _frozen_anchors(sentence, which)
        keys: dict[int, tuple[str, str, str]] = {}
        for k in which:
            st = sentence.structures[k]
            for span, label in labelled_spans(st):
                for pos, i in enumerate(tokens_in(tokens, span.start, span.end)):
                    s, e = tokens[i]
                    if i in keys or not _wordlike(text[s:e]) or any(a < e and s < b for a, b in frozen):
                        continue
                    keys[i] = (st.kind, label, "B" if pos == 0 else "I")
        if not keys:
            return GenerationResult(request, [], note="no labelled span to replace tokens in")
        options = {i: DonorPool.choices(self.pool.tokens, key, text[tokens[i][0]:tokens[i][1]])
                   for i, key in sorted(keys.items())}
        options = {i: o for i, o in options.items() if o[0]}
        if not options:
            return self._no_donor(request, "token", sorted({f"{k[1]} ({k[2]})" for k in keys.values()}))

        def draw(rng: random.Random) -> list[Edit]:
            edits = []
            for i, (words, weights) in options.items():
                if rng.random() < self.p:
                    word = rng.choices(words, weights)[0]
                    s, e = tokens[i]
                    edits.append(Edit(s, e, _fit_case(word, _at_start(text, s)), keys[i][1]))
            return edits

        return self._drawn(request, sentence, tokens, None, frozen, draw, {"replaceable_tokens": len(options)})


class MentionReplacer(_Donating):
    """Mention replacement (Dai & Adel 2020; see the module docstring); registered as ``mention_replace``."""

    name = "mention_replace"
    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False)

    def _generate(self, request: GenerationRequest, sentence: Sentence, which: list[int]) -> GenerationResult:
        text = sentence.text
        frozen = _frozen_anchors(sentence, which)
        changed = [sentence.structures[k] for k in which]
        # every span of the structures being changed must come through whole: a mention is only
        # replaced when no other of their spans lies inside it or cuts it
        others = [sp for st in changed for sp in st.spans()]
        targets: dict[tuple[int, int], tuple[Span, str, str]] = {}
        for st in changed:
            for span, label in labelled_spans(st):
                key = (span.start, span.end)
                if key in targets or any(a < span.end and span.start < b for a, b in frozen):
                    continue
                if any((o.start, o.end) != key and o.overlaps(span)
                       and not (o.start <= span.start and span.end <= o.end) for o in others):
                    continue
                targets[key] = (span, st.kind, label)
        if not targets:
            return GenerationResult(request, [], note="no labelled span to replace")
        options: dict[tuple[int, int], tuple[Span, str, tuple[list[str], list[int]]]] = {}
        for key, (span, kind, label) in sorted(targets.items()):
            # an argument that ends the sentence keeps the sentence's final punctuation
            cut = _final_punctuation(text, span) if kind != "entity" else 0
            edited = Span(span.start, span.end - cut, label)
            found = DonorPool.choices(self.pool.mentions, (kind, label), edited.text_in(text).strip())
            if found[0]:
                options[key] = (edited, label, found)
        if not options:
            return self._no_donor(request, "mention", sorted({label for _, _, label in targets.values()}))

        def draw(rng: random.Random) -> list[Edit]:
            edits: list[Edit] = []
            for span, label, (texts, weights) in options.values():
                if rng.random() < self.p and not any(e.start < span.end and span.start < e.end for e in edits):
                    new = rng.choices(texts, weights)[0]
                    edits.append(Edit(span.start, span.end, _fit_case(new, _at_start(text, span.start)), label))
            return edits

        return self._drawn(request, sentence, tokenize(sentence), None, frozen, draw,
                           {"replaceable_mentions": len(options)})



# ----------------------------------------------------------------------------- factories


class DonorPoolFactory(GeneratorFactory):
    """A donor-pool generator's factory: without ``donors`` the pool is the sentences the run has
    seen, so it reads the corpus (:func:`paraspan.generate.base.reads_corpus`)."""

    def reads_corpus(self, options: Mapping[str, Any]) -> bool:
        return options.get("donors") is None


@DonorPoolFactory
def make_token_replacer(p: float = 0.3, donors: str | None = None, donors_format: str | None = None, n: int = 5,
                        seed: int = 0) -> TokenReplacer:
    """The registered ``token_replace`` generator: each labelled token replaced with probability
    ``p`` by a donor token of the same label and position; ``donors`` a corpus to draw them from
    (format ``donors_format``, guessed from the name by default; default: the sentences seen)."""
    return TokenReplacer(p, n, seed, donors, donors_format)


@DonorPoolFactory
def make_mention_replacer(p: float = 0.3, donors: str | None = None, donors_format: str | None = None, n: int = 5,
                          seed: int = 0) -> MentionReplacer:
    """The registered ``mention_replace`` generator: each labelled span replaced with probability
    ``p`` by a donor mention of the same label; ``donors`` as for ``token_replace``."""
    return MentionReplacer(p, n, seed, donors, donors_format)

