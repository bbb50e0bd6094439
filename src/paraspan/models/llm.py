"""Local GGUF generators run with llama.cpp (``llama-cpp-python``), CPU only.

"default" is Qwen2.5-Coder-1.5B-Instruct (assembled once from 22 chunk packages), "small" is
SmolLM2-135M-Instruct for fast tests; a local ``.gguf`` path works too.
"""

from __future__ import annotations

import atexit
import functools
import os
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from paraspan.errors import ModelError
from paraspan.models.resolve import ResolvedModel, resolve

LLAMA_PIN = "llama-cpp-python==0.3.36"


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float
    finish_reason: str | None = None

    @property
    def tokens_per_second(self) -> float:
        return self.completion_tokens / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class Sampling:
    """How to sample: the options :meth:`LocalLLM.chat` and :meth:`LocalLLM.complete` share."""

    max_tokens: int = 128
    temperature: float = 0.0
    top_k: int = 40
    top_p: float = 0.95
    seed: int | None = None
    stop: Sequence[str] | None = None

    def with_options(self, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(llama.cpp sampling keywords, the other options): ``options`` naming a field override it."""
        own = {f.name for f in fields(self)}
        chosen = replace(self, **{k: v for k, v in options.items() if k in own})
        sampling = {f.name: getattr(chosen, f.name) for f in fields(chosen)}
        sampling["stop"] = list(chosen.stop) if chosen.stop else None
        return sampling, {k: v for k, v in options.items() if k not in own}


@dataclass
class LocalLLM:
    """A loaded GGUF model. ``llama`` is the ``llama_cpp.Llama`` for anything not wrapped here."""

    llama: Any
    resolved: ResolvedModel
    n_ctx: int
    n_threads: int

    def chat(self, messages: Sequence[dict[str, str]], sampling: Sampling | None = None,
             **options: Any) -> Completion:
        """Chat with the model's own chat template (read from the GGUF).

        ``options`` naming a :class:`Sampling` field (``max_tokens=8``) override ``sampling``; the
        others go to llama.cpp's ``create_chat_completion`` as they are.
        """
        start = time.perf_counter()
        chosen, extra = (sampling or Sampling()).with_options(options)
        out = self.llama.create_chat_completion(messages=list(messages), **chosen, **extra)
        return _completion(out, out["choices"][0]["message"]["content"] or "", start)

    def complete(self, prompt: str, sampling: Sampling | None = None, **options: Any) -> Completion:
        """Plain text continuation of ``prompt`` (no chat template); ``options`` as for :meth:`chat`."""
        start = time.perf_counter()
        chosen, extra = (sampling or Sampling()).with_options(options)
        out = self.llama.create_completion(prompt, **chosen, **extra)
        return _completion(out, out["choices"][0]["text"], start)


def _completion(out: dict[str, Any], text: str, start: float) -> Completion:
    usage = out.get("usage") or {}
    return Completion(
        text=text,
        prompt_tokens=int(usage.get("prompt_tokens", 0)),
        completion_tokens=int(usage.get("completion_tokens", 0)),
        seconds=time.perf_counter() - start,
        finish_reason=out["choices"][0].get("finish_reason"),
    )


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_threads() -> int:
    """All cores this process may use but one.

    llama.cpp's worker threads spin while they wait for each other, so when another busy
    thread or process takes one of their cores, generation slows down 10-40x (measured on a
    2-core machine: 2 threads 0.3-2 tok/s vs 1 thread ~9 tok/s for the 1.5B model while one
    other process ran). Leaving a core free costs far less than that when the machine is idle.
    """
    return max(1, available_cores() - 1)


def load_llm(
    name: str | os.PathLike[str] | None = None,
    *,
    n_ctx: int = 2048,
    n_threads: int | None = None,
    seed: int = 0,
) -> LocalLLM:
    """Load GGUF model ``name`` ("default", "small", or a path). Cached per settings.

    ``n_threads`` defaults to :func:`default_threads` (all cores but one). The first load of
    "default" assembles its 1.1 GB file into the cache (about 6 s).
    """
    resolved = resolve("llm", name)
    threads = n_threads or default_threads()
    llama = _load(resolved.path, int(n_ctx), int(threads), int(seed))
    return LocalLLM(llama, resolved, int(n_ctx), int(threads))


def check_gguf(path: Path) -> None:
    """A clear error for a file that is not GGUF (llama.cpp only says 'failed to load')."""
    if path.is_dir():
        raise ModelError.from_code("E370", problem=f"{path} is a folder, not a .gguf file")
    with open(path, "rb") as handle:
        magic = handle.read(4)
    if magic != b"GGUF":
        raise ModelError.from_code("E371", path=path)


@functools.lru_cache(maxsize=2)
def _load(path: Path, n_ctx: int, n_threads: int, seed: int) -> Any:
    check_gguf(path)
    try:
        import llama_cpp
    except ImportError:
        raise ModelError.from_code("E372", llama_pin=LLAMA_PIN) from None
    try:
        llama = llama_cpp.Llama(
            model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_threads_batch=n_threads,
            seed=seed, verbose=False,
        )
    except (ValueError, RuntimeError) as exc:
        raise ModelError.from_code("E373", path=path, exc=exc, llama_pin=LLAMA_PIN) from None
    # a cached model outlives the interpreter's exit handlers; freed later, in module teardown, its
    # finalizer finds llama.cpp's bindings gone and prints a TypeError. Close it while they are there
    # (a weak reference, so the exit hook keeps no evicted model alive)
    atexit.register(_close_at_exit, weakref.ref(llama))
    return llama


def _close_at_exit(ref: weakref.ref[Any]) -> None:
    model = ref()
    if model is not None:
        model.close()
