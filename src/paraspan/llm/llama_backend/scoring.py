"""Scoring continuations on llama.cpp: many (prompt, continuation) pairs packed into one batch on the cached prefix."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from paraspan.llm.backend import Prompt
from paraspan.llm.llama_backend.sequences import (
    _FIRST_WORK_SEQ,
    _PREFIX_SEQ,
    _PROMPT_SEQ,
    ContextTooSmall,
    as_prompt,
)


class LlamaScoring:
    """The scoring half of :class:`~paraspan.llm.llama_backend.LlamaBackend`: its ``logprob``, ``logprobs`` and
    ``token_logprobs`` (a mixin over the context, batch and sequence helpers the backend defines)."""

    max_parallel: int
    n_batch: int
    counters: Any
    _n_ctx: int
    _lib: Any
    _mem: Any

    # defined by the backend: llama.cpp calls on its own context
    def _decode(self, entries: Sequence[tuple[int, int, int | Sequence[int], bool]]) -> None:
        raise NotImplementedError

    def _logits(self, rows: int) -> np.ndarray:
        raise NotImplementedError

    def _seq_rm(self, seq: int) -> None:
        raise NotImplementedError

    def _ensure_prefix(self, prefix: tuple[int, ...]) -> None:
        raise NotImplementedError

    def logprob(self, prompt: Prompt | Sequence[int], continuation: Sequence[int]) -> float:
        return self.logprobs([(prompt, continuation)])[0]

    def logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[float]:
        """Mean log-probability of each continuation; prompts sharing a prefix reuse its cache."""
        return self._score(items)[0]

    def token_logprobs(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]]) -> list[list[float]]:
        """Log-probability of each continuation token (one list per item, in token order), in the same
        batches as :meth:`logprobs`, whose mean is the mean of these values."""
        per_token = self._score(items, per_token=True)[1]
        return [per_token.get(i, []) for i in range(len(items))]

    def _score(self, items: Sequence[tuple[Prompt | Sequence[int], Sequence[int]]], *, per_token: bool = False
               ) -> tuple[list[float], dict[int, list[float]]]:
        """Mean log-probabilities (and, with ``per_token``, each token's) of the continuations."""
        items = [(as_prompt(prompt), continuation) for prompt, continuation in items]
        results: list[float] = [float("nan")] * len(items)
        tokens: dict[int, list[float]] = {}
        by_prefix: dict[tuple[int, ...], list[int]] = {}
        for i, (prompt, continuation) in enumerate(items):
            if not continuation:
                raise ValueError("an empty continuation has no log-probability")
            if len(prompt) + len(continuation) > self._n_ctx - 1:
                raise ContextTooSmall.from_code("E383",
                                                problem="prompt + continuation "
                                                        f"({len(prompt) + len(continuation)} tokens) exceed the "
                                                        f"context ({self._n_ctx})")
            by_prefix.setdefault(prompt.prefix, []).append(i)
        try:
            for prefix, indices in by_prefix.items():
                if prefix:
                    self._ensure_prefix(prefix)
                self._score_with_prefix(prefix, [(i, items[i][0].suffix, items[i][1]) for i in indices],
                                        results, per_token=tokens if per_token else None)
        finally:
            for seq in range(_PROMPT_SEQ, _FIRST_WORK_SEQ + self.max_parallel):
                self._seq_rm(seq)
        return results, tokens

    def _score_with_prefix(self, prefix: tuple[int, ...],
                           items: Sequence[tuple[int, tuple[int, ...], Sequence[int]]],
                           results: list[float], *, per_token: dict[int, list[float]] | None = None) -> None:
        base = len(prefix)
        sums: dict[int, float] = {}
        pending: list[tuple[int, int, int, bool]] = []
        targets: list[tuple[int, int]] = []  # (item, target token) per output row
        owners: dict[int, int] = {}  # seq id → item whose last token is in the batch
        free = list(range(_FIRST_WORK_SEQ + self.max_parallel - 1, _FIRST_WORK_SEQ - 1, -1))

        def flush() -> None:
            if not pending:
                return
            self._decode(pending)
            rows = self._logits(len(targets)) if targets else None
            if rows is not None:
                peak = rows.max(axis=1)
                lse = peak + np.log(np.exp(rows - peak[:, None]).sum(axis=1))
                for r, (item, token) in enumerate(targets):
                    sums[item] = sums.get(item, 0.0) + float(rows[r, token] - lse[r])
                    if per_token is not None:  # rows come in token order within an item
                        per_token.setdefault(item, []).append(float(rows[r, token] - lse[r]))
            self.counters["scored_tokens"] += len(pending)
            pending.clear()
            targets.clear()
            for seq, _item in list(owners.items()):
                self._seq_rm(seq)
                free.append(seq)
            owners.clear()

        # a batch also has to fit in the KV cache beside the prefix
        limit = max(1, min(self.n_batch, self._n_ctx - base - 1))
        for item, suffix, continuation in items:
            tokens = list(suffix) + list(continuation)
            first_target = len(suffix) - 1  # the row that predicts continuation[0]
            if not free or len(pending) + len(tokens) > limit:
                flush()  # start the item on a fresh batch if it does not fit in this one
            seq = free.pop()
            if prefix:
                self._lib.llama_memory_seq_cp(self._mem, _PREFIX_SEQ, seq, -1, -1)
            for j, token in enumerate(tokens):
                if len(pending) == limit:
                    flush()  # this item is not in `owners` yet, so its sequence survives
                wants = first_target <= j < len(tokens) - 1
                pending.append((token, base + j, seq, wants))
                if wants:
                    targets.append((item, tokens[j + 1]))
            owners[seq] = item
        flush()
        for item, _suffix, continuation in items:
            results[item] = sums.get(item, 0.0) / len(continuation)

