"""The ``retrieve`` generator: fillers of the same slot taken from a training corpus, ranked by a language model.

The baseline a trained generator must beat (no decoding): for a masked argument, every text that
fills the same slot in the donor corpus — the same (frame, FE), (roleset, role) or entity type, and
the same opening preposition or none, a cheap stand-in for the phrase type — is a candidate filler;
each is spliced in, and the sentences are ranked by the base model's mean log-probability per token.
"""

from __future__ import annotations

import random
import zlib
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult
from paraspan.generate.fillers import opener
from paraspan.generate.project import splice_structures
from paraspan.provenance import Generated
from paraspan.train.examples import MAX_SPAN_WORDS, maskable_args

__all__ = ["RetrievalConfig", "RetrievalFiller", "SlotPool", "make_retriever"]


SlotKey = tuple[str, str, str]


def slot_key(structure: Structure, span: Span, text: str) -> SlotKey:
    """(frame/roleset/"entity", FE/role/type, opening preposition or "-") of an argument or mention."""
    shape = opener(text[span.start:span.end])
    if structure.kind == "entity":
        return ("entity", structure.label, shape)
    return (structure.label, str(span.label), shape)


class SlotPool:
    """Filler texts by slot, counted, from a donor corpus."""

    def __init__(self) -> None:
        self.slots: dict[SlotKey, Counter[str]] = {}

    def add(self, sentence: Sentence, max_words: int = MAX_SPAN_WORDS) -> None:
        for structure in sentence.structures:
            spans = maskable_args(sentence.text, structure, max_words)
            for span in spans:
                key = slot_key(structure, span, sentence.text)
                self.slots.setdefault(key, Counter())[sentence.text[span.start:span.end]] += 1

    def add_all(self, sentences: Iterable[Sentence]) -> SlotPool:
        for sentence in sentences:
            self.add(sentence)
        return self

    def fillers(self, key: SlotKey) -> list[str]:
        return [text for text, _ in self.slots.get(key, Counter()).most_common()]


@dataclass(frozen=True)
class RetrievalConfig:
    """``masks``: arguments tried per structure; ``pool``: donor fillers scored per argument (drawn at
    random from the slot's, seeded by the sentence); ``n``: candidates returned."""

    masks: int = 3
    pool: int = 12
    n: int = 6
    seed: int = 0


class RetrievalFiller:
    """Fills a masked argument with donor texts of the same slot, ranked by the base model."""

    capabilities = Capabilities(honours_ban=False, needs_structure=True, deterministic=True, keeps_meaning=False,
                                retries=0)

    def __init__(self, pool: SlotPool, backend: Any, config: RetrievalConfig | None = None) -> None:
        self.pool = pool
        self.backend = backend
        self.config = config or RetrievalConfig()
        self.info: dict[str, Any] = {"slots": len(pool.slots), "retrieval_config": vars(self.config)}

    def generate(self, request: GenerationRequest) -> GenerationResult:
        from paraspan.llm.llama_backend import text_logprobs

        sentence, index = request.sentence, request.structure
        if sentence is None or index is None or not 0 <= index < len(sentence.structures):
            return GenerationResult(request, [], note="retrieval needs an annotated structure")
        structure = sentence.structures[index]
        rng = random.Random(zlib.crc32(f"{self.config.seed}:{request.id}:{index}".encode()))
        spans = maskable_args(sentence.text, structure, MAX_SPAN_WORDS)
        rng.shuffle(spans)
        stats: Counter[str] = Counter()
        options: list[tuple[str, list[Structure | None], dict[str, Any]]] = []
        for span in spans[: self.config.masks]:
            original = sentence.text[span.start:span.end]
            key = slot_key(structure, span, sentence.text)
            donors = [f for f in self.pool.fillers(key) if f.lower() != original.lower()]
            if not donors:
                stats["no donor for the slot"] += 1
                continue
            for filler in rng.sample(donors, min(len(donors), self.config.pool)):
                placed = splice_structures(sentence, [(span, filler)])
                if placed is not None:
                    said = Generated(replaced=(original,), keeps_anchor=True)
                    options.append((placed[0], placed[1], said.meta(task="span", masked=[key[1]], fillers=[filler])))
        if not options:
            return GenerationResult(request, [], note="no donor filler: " + (
                ", ".join(f"{k} {v}" for k, v in stats.items()) or "nothing to mask"), stats=dict(stats))
        scores = text_logprobs(self.backend, [text for text, _, _ in options])
        ranked = sorted(zip(scores, options, strict=True), key=lambda pair: -pair[0])
        candidates = [Candidate(text, {"score": score}, structures, None, meta)
                      for score, (text, structures, meta) in ranked[: request.n or self.config.n]]
        return GenerationResult(request, candidates, stats=dict(stats))


def make_retriever(donors: str, donors_format: str | None = None, model: str = "gemma-270m", masks: int = 3,
                   pool: int = 12, n: int = 6, seed: int = 0, threads: int | None = None) -> RetrievalFiller:
    """The registered ``retrieve`` generator: ``donors``, the training corpus the fillers come from (train
    split only); ``model``, the base whose log-likelihood ranks them; the rest, :class:`RetrievalConfig`'s."""
    from paraspan.corpus.formats import guess_format, read_corpus
    from paraspan.errors import ParaspanError
    from paraspan.llm.llama_backend import LlamaBackend

    if not Path(donors).exists():
        raise ParaspanError.from_code("E010", file=str(donors), what="file",
                                      fix="give the training corpus the fillers are drawn from")
    fmt = donors_format or guess_format(donors) or "jsonl"
    slots = SlotPool().add_all(read_corpus(donors, fmt))
    backend = LlamaBackend.load(model, n_threads=threads)
    return RetrievalFiller(slots, backend, RetrievalConfig(masks=masks, pool=pool, n=n, seed=seed))
