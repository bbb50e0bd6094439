"""Whole texts scored by an LLM backend: what the fluency filter and the trained generator call."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from paraspan.llm.llama_backend.backend import LlamaBackend


def start_tokens(backend: Any) -> list[int]:
    """The model's begin-of-text token (or end-of-text, or a newline): what a whole text is scored after."""
    own = getattr(backend, "start_tokens", None)
    if callable(own):  # a backend that knows its own (the transformers one)
        return list(own())
    model = getattr(backend, "_model", None)
    if model is not None:
        for token in (model.token_bos(), model.token_eos()):
            if token >= 0:
                return [int(token)]
    return backend.tokenize("\n")


def text_logprobs(backend: Any, texts: Sequence[str]) -> list[float]:
    """Mean log-probability per token of each text after :func:`start_tokens`, in one ``logprobs`` call."""
    start = start_tokens(backend)
    return backend.logprobs([(start, backend.tokenize(text)) for text in texts])


def text_token_logprobs(backend: Any, texts: Sequence[str]) -> list[tuple[list[int], list[float]]]:
    """Each text's token ids and the log-probability of each token after :func:`start_tokens`, in one
    ``token_logprobs`` call (the per-token values whose mean :func:`text_logprobs` gives)."""
    start = start_tokens(backend)
    tokens = [backend.tokenize(text) for text in texts]
    values = backend.token_logprobs([(start, ids) for ids in tokens])
    return [(list(ids), list(lps)) for ids, lps in zip(tokens, values, strict=True)]


def text_token_scorer(model: str = "default", *,
                      n_threads: int | None = None) -> Callable[[Sequence[str]], list[tuple[list[int], list[float]]]]:
    """:func:`text_token_logprobs` on a loaded model; used by the fluency filter's ``shared-drop`` statistic."""
    return functools.partial(text_token_logprobs, LlamaBackend.load(model, n_threads=n_threads))


def text_scorer(model: str = "default", *, n_threads: int | None = None) -> Callable[[Sequence[str]], list[float]]:
    """:func:`text_logprobs` on a loaded model (``default``, ``small`` or a ``.gguf`` path); used by the
    fluency filter."""
    return functools.partial(text_logprobs, LlamaBackend.load(model, n_threads=n_threads))

