"""A small-model backend shared by the LLM runtime and generation tests (SmolLM2-135M: fast, low quality)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from paraspan.llm.llama_backend import LlamaBackend


@pytest.fixture(scope="session")
def small_backend() -> Iterator[LlamaBackend]:
    backend = LlamaBackend.load("small", n_ctx=2048, max_parallel=8, n_threads=1)
    yield backend
    backend.close()
