"""The language-model backend a generator samples from and scores with.

:class:`Backend` is what :class:`~paraspan.generate.paraphrase.Paraphraser` needs; the llama.cpp
implementation is :class:`~paraspan.llm.llama_backend.LlamaBackend`. A transformers
backend would map a :class:`~paraspan.text.constraints.BanSet` to ``bad_words_ids``
(:func:`~paraspan.text.constraints.banned_token_ids` over its vocabulary, plus a
``LogitsProcessor`` running :class:`~paraspan.text.constraints.WordGuard`), a vLLM backend to
``SamplingParams(bad_words=...)`` plus the same guard; all of them leave the final check to the
caller (:meth:`BanSet.find_leaks`).

Prompts are split into a ``prefix`` and a ``suffix``: the prefix (system prompt and
instruction, identical for every sentence) is evaluated once and cached; only the suffix is
evaluated per request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from paraspan.text.constraints import BanSet, VocabIndex, banned_token_ids


@dataclass(frozen=True)
class Prompt:
    """Token ids of a prompt: a cacheable ``prefix`` shared by many prompts, then the rest."""

    prefix: tuple[int, ...]
    suffix: tuple[int, ...]

    @property
    def tokens(self) -> tuple[int, ...]:
        return self.prefix + self.suffix

    def __len__(self) -> int:
        return len(self.prefix) + len(self.suffix)


@dataclass(frozen=True)
class SampleGroup:
    """``n`` samples under one set of bans; sample ``i`` is seeded by ``(seed, i)``.

    ``keep``: phrases the samples should contain verbatim (soft positive constraints). Until a
    sample contains a phrase, the logit of the phrase's next token is raised: by
    ``keep_start`` for its first token, by ``keep_continue`` once the sample has begun it — so a
    phrase the model starts tends to be finished word for word. Callers still verify.

    ``fields``: when > 0, the answer must be exactly that many ``|``-separated fields on one
    line: the answer cannot end (end of turn, line break) before ``fields - 1`` separators, and
    no separator is sampled after them (a format constraint, like a grammar; callers still parse).

    ``max_words``: when > 0, a sample stops (finish ``"words"``) as soon as its line holds more
    than that many words (runs of non-space characters with a letter or digit): for a caller that
    refuses longer answers, the rest of such a sample is decode time spent on nothing.
    """

    n: int
    seed: int
    bans: BanSet = field(default_factory=BanSet)
    keep: tuple[str, ...] = ()
    keep_start: float = 0.0
    keep_continue: float = 0.0
    fields: int = 0
    max_words: int = 0


@dataclass
class Sample:
    """One sampled continuation.

    ``logprobs``: per generated token (the stop token included), under the model's full,
    unconstrained distribution at temperature 1 — not the renormalised top-k one.
    ``finish``: ``"stop"`` (end of turn), ``"newline"`` or ``"length"`` (hit ``max_tokens``).
    """

    text: str
    tokens: list[int]
    logprobs: list[float]
    finish: str
    group: int = 0
    index: int = 0

    @property
    def mean_logprob(self) -> float:
        return sum(self.logprobs) / len(self.logprobs) if self.logprobs else float("-inf")


@dataclass(frozen=True)
class SampleJob:
    """The sample groups of one prompt, answered with at most ``max_tokens`` tokens each."""

    prompt: Prompt
    groups: tuple[SampleGroup, ...]
    max_tokens: int


def sample_batch(backend: Any, jobs: Sequence[SampleJob], *, top_k: int,
                 temperature: float = 1.0) -> list[list[Sample]]:
    """The samples of several prompts (one list per job, groups numbered within the job).

    A backend with a ``sample_batch`` method decodes the samples of all prompts together (the
    llama.cpp backend: one decode wave, so a CPU reaches its batched rate rather than its
    single-stream rate); any other is called once per prompt. The samples are the same either
    way: sample ``i`` of a group is seeded by ``(group.seed, i)``, not by its place in a batch.
    """
    batched = getattr(backend, "sample_batch", None)
    if callable(batched):
        return batched(jobs, top_k=top_k, temperature=temperature)
    return [backend.sample_groups(job.prompt, job.groups, top_k=top_k, max_tokens=job.max_tokens,
                                  temperature=temperature) for job in jobs]


def backend_info(runtime: Any, model: str) -> dict[str, Any]:
    """What a generator's provenance records of its loaded backend: the model's name, the package it
    came from and the runtime (llama.cpp or transformers)."""
    resolved = getattr(getattr(runtime, "llm", None), "resolved", None)
    return {"llm": getattr(resolved, "name", None) or getattr(runtime, "model_name", model),
            "llm_package": getattr(resolved, "source_package", None) or getattr(runtime, "source_package", None),
            "llm_backend": runtime.name}


def context_size(n_ctx: int, parallel: int) -> int:
    """A context of at least ``n_ctx`` tokens with room for ``parallel`` sequences decoded together:
    the cached prefix, a few prompts' suffixes and ``parallel`` answers of ~80 tokens."""
    return max(n_ctx, 1024 + 80 * parallel)


@runtime_checkable
class Backend(Protocol):
    """A causal LM that can sample under bans and score continuations."""

    name: str

    @property
    def n_ctx(self) -> int:
        """Context window in tokens (prompt + continuation must fit)."""
        ...

    @property
    def vocab(self) -> Sequence[str]:
        """Token id → decoded text (``""`` for control tokens)."""
        ...

    def tokenize(self, text: str, *, special: bool = False) -> list[int]: ...

    def detokenize(self, tokens: Sequence[int]) -> str: ...

    def chat_prompt(self, system: str, user: str, *, split_at: str | None = None) -> Prompt:
        """The chat-template prompt for one user turn, ready for the assistant's answer.

        ``split_at``: the prefix ends just before this substring of ``user`` (its first
        occurrence); everything before it is the cacheable prefix.
        """
        ...

    def end_of_turn(self) -> list[int]:
        """The tokens that end an assistant answer (scored as part of a continuation)."""
        ...

    def sample(self, prompt: Prompt | Sequence[int], n: int, *, top_k: int, seed: int, banned: BanSet,
               max_tokens: int, temperature: float = 1.0) -> list[Sample]:
        """``n`` top-k samples of the answer to ``prompt`` with ``banned`` enforced.

        A plain token list is a prompt with nothing to cache.
        """
        ...

    def sample_groups(self, prompt: Prompt | Sequence[int], groups: Sequence[SampleGroup], *, top_k: int,
                      max_tokens: int, temperature: float = 1.0) -> list[Sample]:
        """Samples for several ban sets of one prompt (the prompt is evaluated once)."""
        ...

    def logprob(self, prompt: Prompt | Sequence[int], continuation: Sequence[int]) -> float:
        """Mean log-probability of ``continuation`` given ``prompt``."""
        ...

    def logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[float]:
        """:meth:`logprob` for many (prompt, continuation) pairs (batched where possible)."""
        ...


class BanIdCache:
    """The token ids masked for a :class:`BanSet` over one vocabulary, memoised per ban set (a
    sentence's ban sets recur across its samples, retries and rescoring); both backends use it."""

    def __init__(self, limit: int = 256) -> None:
        self._ids: dict[BanSet, Any] = {}
        self.limit = limit

    def ids(self, bans: BanSet, index: VocabIndex) -> Any:
        import numpy as np

        got = self._ids.get(bans)
        if got is None:
            got = np.asarray(banned_token_ids(bans, index), dtype=np.int64)
            if len(self._ids) > self.limit:
                self._ids.clear()
            self._ids[bans] = got
        return got
