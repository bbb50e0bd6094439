"""A rule-based generator and aligner for pipeline tests: fast, deterministic, no models.

The generator swaps each banned word for the first synonym of a small table that is not banned
itself (so iterations walk down the synonym list, as the real loop walks down paraphrases); the
aligner finds a span's text, or one of its synonyms, in the target.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paraspan.align.base import AlignResult, AlignTask
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult, GeneratorFactory

SYNONYMS: dict[str, list[str]] = {
    "sold": ["traded", "handed over", "vended", "auctioned"],
    "bought": ["purchased", "acquired", "picked up", "obtained"],
    "arrived": ["got", "came", "turned up", "showed up"],
    "teacher": ["tutor", "instructor", "educator"],
    # the part of speech changes: verb → verb → adjective (with a copula), adjective → verb
    "think": ["reflect", "are mindful"],
    "eager": ["itching", "keen"],
}
# every synonym knows its whole group (for the aligner)
GROUPS: dict[str, set[str]] = {}
for head, syns in SYNONYMS.items():
    group = {head, *syns}
    for word in group:
        GROUPS[word] = group


@dataclass
class FakeGenerator:
    delay: float = 0.0
    info: dict[str, Any] = field(default_factory=lambda: {"llm": "fake-synonyms", "llm_package": "tests==0"})
    capabilities = Capabilities(honours_ban=True)

    def generate(self, request: GenerationRequest) -> GenerationResult:
        if self.delay:
            time.sleep(self.delay)
        banned = [request.span_text(s).lower() for s in request.ban] + [t.lower() for t in request.ban_texts]
        text = request.text
        out = text
        for word in banned:
            head = next((h for h, syns in SYNONYMS.items() if word == h or word in syns), None)
            if head is None:
                continue
            choice = next((s for s in [head, *SYNONYMS[head]] if s not in banned), None)
            if choice is None:
                return GenerationResult(request, [], note="no synonym left")
            out = re.sub(rf"\b{re.escape(word)}\b", choice, out, flags=re.IGNORECASE)
        if out == text:
            return GenerationResult(request, [], note="nothing to rewrite")
        cands = [Candidate(out, {"forward": -0.5, "backward": -0.7, "score": -1.2}, meta={"cluster": 0}),
                 Candidate("Indeed, " + out[0].lower() + out[1:], {"forward": -0.9, "backward": -1.0, "score": -1.9},
                           meta={"cluster": 1})]
        return GenerationResult(request, cands[: request.n or 2])


@dataclass
class FakeAligner:
    name: str = "fake"
    info: dict[str, Any] = field(default_factory=dict)

    def align(self, tasks: list[AlignTask], progress: Any = None) -> list[AlignResult]:
        out = []
        for task in tasks:
            phrase = task.source[task.source_span[0]:task.source_span[1]]
            options = [(phrase, 0.99)] + [(s, 0.96) for s in sorted(GROUPS.get(phrase.lower(), set())) if s != phrase.lower()]
            found = None
            for option, score in options:
                m = re.search(rf"\b{re.escape(option)}\b", task.target, flags=re.IGNORECASE)
                if m:
                    found = AlignResult((m.start(), m.end()), score, task.source_span)
                    break
            out.append(found or AlignResult(None, 0.1, task.source_span))
        return out


def make_generator(delay: float = 0.0) -> FakeGenerator:
    """``delay``: seconds each call sleeps (a slow model, for the kill and resume tests)."""
    return FakeGenerator(delay=delay)


def make_aligner() -> FakeAligner:
    return FakeAligner()


#: the version of the fake's one "rule" (a test sets it to stand for a rule fixed since a run)
RULE_VERSION = "1"


class VersionedFactory(GeneratorFactory):
    """A factory that names its code's versions, as the rewriter's does."""

    def code_versions(self, options: Mapping[str, Any]) -> dict[str, str]:
        return {"rule:fake": RULE_VERSION}


@VersionedFactory
def make_versioned_generator(delay: float = 0.0) -> FakeGenerator:
    """The fake generator whose factory names its code versions."""
    return FakeGenerator(delay=delay)
