"""The generation tests share the small-model backend of the LLM runtime's tests."""

from __future__ import annotations

from tests.llm.conftest import small_backend

__all__ = ["small_backend"]
