"""GGUF generators through llama.cpp: SmolLM2-135M for unit tests, Qwen 1.5B once (slow)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraspan.errors import ModelError
from paraspan.models import cache
from paraspan.models.llm import LocalLLM, check_gguf, default_threads, load_llm
from paraspan.models.resolve import QWEN_1_5B_SHA256

HELLO = [{"role": "user", "content": "Say hello in one word."}]


@pytest.fixture(scope="module")
def small() -> LocalLLM:
    # default threads (all cores but one), the same settings the doctor uses: loaded once
    return load_llm("small", n_ctx=512)


def test_small_model_chats(small: LocalLLM) -> None:
    out = small.chat(HELLO, max_tokens=6)
    assert 0 < out.completion_tokens <= 6 and out.text.strip()
    assert out.prompt_tokens > 5 and out.seconds > 0 and out.tokens_per_second > 0


def test_greedy_generation_is_deterministic(small: LocalLLM) -> None:
    a = small.complete("The capital of France is", max_tokens=5)
    b = small.complete("The capital of France is", max_tokens=5)
    assert a.text == b.text and "Paris" in a.text


def test_loads_are_cached_per_settings(small: LocalLLM) -> None:
    again = load_llm("smollm2", n_ctx=512)
    assert again.llama is small.llama
    assert again.resolved.path == small.resolved.path
    assert again.n_threads == default_threads() and again.n_ctx == 512


def test_a_loaded_model_is_closed_at_exit_while_llama_cpp_is_still_there() -> None:
    """Each new load registers an exit hook that closes it (a cached model freed later, in module
    teardown, printed a TypeError from llama.cpp's finalizer after the test run); the hook holds the
    model weakly and closing twice is harmless."""
    import atexit
    import gc
    import weakref

    from paraspan.models.llm import _close_at_exit

    before = atexit._ncallbacks()
    model = load_llm("small", n_ctx=256, seed=4242)  # settings no other test loads: a new model
    assert atexit._ncallbacks() == before + 1
    ref = weakref.ref(model.llama)
    _close_at_exit(ref)
    _close_at_exit(ref)
    del model
    load_llm.__globals__["_load"].cache_clear()
    gc.collect()
    assert ref() is None  # the exit hook did not keep it alive
    _close_at_exit(ref)  # a model gone already: nothing to do


def test_a_local_gguf_path_loads(small: LocalLLM) -> None:
    model = load_llm(str(small.resolved.path), n_ctx=512)
    assert model.resolved.source_package is None
    assert model.resolved.path == small.resolved.path


def test_not_a_gguf_file(tmp_path: Path) -> None:
    bogus = tmp_path / "model.gguf"
    bogus.write_bytes(b"PK\x03\x04 definitely a zip")
    with pytest.raises(ModelError) as err:
        load_llm(str(bogus))
    assert err.value.code == "E371"
    with pytest.raises(ModelError) as err:
        check_gguf(tmp_path)
    assert err.value.code == "E370"


def test_unknown_llm_name() -> None:
    with pytest.raises(ModelError) as err:
        load_llm("gpt-17")
    assert err.value.code == "E302" and "small" in err.value.problem.hint


@pytest.mark.slow
def test_default_model_generates() -> None:
    # The 1.5B model: assembled once into the cache from 22 packages, then verified.
    model = load_llm("default", n_ctx=512)
    assert model.resolved.sha256 == QWEN_1_5B_SHA256
    assert model.resolved.size_bytes == 1_117_320_768
    assert cache.verified_sha256(model.resolved.path, QWEN_1_5B_SHA256) == QWEN_1_5B_SHA256
    out = model.chat(HELLO, max_tokens=4)
    assert out.completion_tokens > 0 and out.text.strip()


def test_default_threads_leave_a_core_free() -> None:
    from paraspan.models.llm import available_cores

    cores = available_cores()
    assert default_threads() == max(1, cores - 1)


def test_chat_and_complete_share_the_sampling_options() -> None:
    from types import SimpleNamespace

    from paraspan.models.llm import Sampling

    calls: list[tuple[str, dict]] = []
    reply = {"choices": [{"message": {"content": "hi"}, "text": "hi", "finish_reason": "stop"}],
             "usage": {"prompt_tokens": 3, "completion_tokens": 1}}
    llama = SimpleNamespace(create_chat_completion=lambda **kw: calls.append(("chat", kw)) or reply,
                            create_completion=lambda prompt, **kw: calls.append(("complete", kw)) or reply)
    model = LocalLLM(llama, None, 512, 1)  # type: ignore[arg-type]
    assert model.chat(HELLO, max_tokens=6, stop=("\n",), grammar="g").text == "hi"
    assert model.complete("Hi", Sampling(temperature=0.7), seed=3).completion_tokens == 1
    assert calls[0] == ("chat", {"messages": HELLO, "max_tokens": 6, "temperature": 0.0, "top_k": 40, "top_p": 0.95,
                                 "seed": None, "stop": ["\n"], "grammar": "g"})
    assert calls[1] == ("complete", {"max_tokens": 128, "temperature": 0.7, "top_k": 40, "top_p": 0.95, "seed": 3,
                                     "stop": None})
