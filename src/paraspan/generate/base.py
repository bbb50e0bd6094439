"""The contract every generator (paraphrase, rewrite, infill, …) follows.

A generator turns one :class:`GenerationRequest` into a ranked list of :class:`Candidate`
rewrites. Generators are looked up by name in :data:`generators` (``"module:attr"`` strings, so
listing them imports nothing heavy).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from paraspan.registry import Registry

#: A character span ``[start, end)`` of the request text.
CharSpan = tuple[int, int]


@dataclass(frozen=True)
class GenerationRequest:
    """One sentence to rewrite.

    ``ban``: spans whose words (in any form) must not appear in a rewrite.
    ``keep``: spans whose text must appear verbatim in every rewrite.
    """

    id: str
    text: str
    ban: tuple[CharSpan, ...] = ()
    keep: tuple[CharSpan, ...] = ()
    n: int | None = None  # how many rewrites to return (None: the generator's default)
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def span_text(self, span: CharSpan) -> str:
        return self.text[span[0]:span[1]]


@dataclass
class Candidate:
    """One rewrite.

    ``scores`` are named numbers, larger = better unless the name says otherwise (the
    paraphraser uses ``forward``, ``backward`` and ``score``). ``mapping`` is an optional
    source-token → candidate-token alignment for generators that know it (an infiller does; a
    free paraphraser does not: ``None``). ``meta`` holds anything else (cluster, constraint set, …).
    """

    text: str
    scores: dict[str, float] = field(default_factory=dict)
    mapping: list[tuple[int, int]] | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class GenerationResult:
    """Candidates for one request, plus why there are none (``note``) and counters."""

    request: GenerationRequest
    candidates: list[Candidate]
    note: str | None = None
    stats: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Generator(Protocol):
    """Anything with ``generate(request) -> list[Candidate]`` (best first)."""

    def generate(self, request: GenerationRequest) -> list[Candidate]: ...


#: Generators by name. Values are factories (a class or function) returning a Generator.
generators: Registry[Any] = Registry("generators")
generators.register("paraphrase", "paraspan.generate.paraphrase:Paraphraser",
                    "LLM paraphrases under negative/positive lexical constraints (ParaBank 2 style)")
generators.register("rewrite", "paraspan.generate.rewrite.generator:Rewriter",
                    "rewrite rules over dependency parses with a token mapping (Woodsend & Lapata 2014)")
generators.register("infill", "paraspan.generate.infill:Infiller",
                    "sister-LU replacement + FE-span infilling + FE-type filter (Cui & Swayamdipta 2024)")
