"""The llama.cpp backend: banned tokens never sampled, seeds, scores, context limits."""

from __future__ import annotations

import pytest

from paraspan.llm.backend import Backend, Prompt, SampleGroup
from paraspan.llm.llama_backend import ContextTooSmall, LlamaBackend, _decode_partial, _Seq
from paraspan.text.constraints import BanSet, expand_ban

SYSTEM = "You are a helpful assistant."


def _copy_prompt(backend: LlamaBackend, sentence: str) -> Prompt:
    # Asking for a copy makes the banned word the most likely continuation.
    return backend.chat_prompt(SYSTEM, f"Repeat this sentence exactly.\nSentence: {sentence}", split_at="Sentence:")


def test_it_is_a_backend(small_backend: LlamaBackend) -> None:
    assert isinstance(small_backend, Backend)
    assert len(small_backend.vocab) == 49152
    assert small_backend.detokenize(small_backend.tokenize("The cat sold it.")) == "The cat sold it."


def test_banned_forms_are_never_sampled(small_backend: LlamaBackend) -> None:
    prompt = _copy_prompt(small_backend, "The company sold its shares and is selling more.")
    bans = expand_ban("sold")
    free = small_backend.sample(prompt, 4, top_k=10, seed=3, banned=BanSet(), max_tokens=24)
    assert any(bans.find_leaks(s.text) for s in free)  # unconstrained, it copies "sold"
    constrained = small_backend.sample_groups(
        prompt, [SampleGroup(4, 3, bans), SampleGroup(4, 4, bans | BanSet.exact(["company"]))],
        top_k=10, max_tokens=24)
    assert len(constrained) == 8 and {s.group for s in constrained} == {0, 1}
    for sample in constrained:
        assert bans.find_leaks(sample.text) == [], sample.text
        assert sample.finish in ("stop", "newline", "length", "blocked")
        assert len(sample.logprobs) == len(sample.tokens) and all(lp <= 0 for lp in sample.logprobs)
    assert not any(BanSet.exact(["company"]).find_leaks(s.text) for s in constrained if s.group == 1)


def test_sampling_is_deterministic_per_seed(small_backend: LlamaBackend) -> None:
    prompt = _copy_prompt(small_backend, "Anna lives in Oslo.")
    first = [s.text for s in small_backend.sample(prompt, 3, top_k=10, seed=7, banned=BanSet(), max_tokens=16)]
    again = [s.text for s in small_backend.sample(prompt, 3, top_k=10, seed=7, banned=BanSet(), max_tokens=16)]
    other = [s.text for s in small_backend.sample(prompt, 3, top_k=10, seed=8, banned=BanSet(), max_tokens=16)]
    assert first == again
    assert first != other


def test_forward_logprob_agrees_with_scoring(small_backend: LlamaBackend) -> None:
    prompt = _copy_prompt(small_backend, "The river flows to the sea.")
    sample = small_backend.sample(prompt, 1, top_k=10, seed=1, banned=BanSet(), max_tokens=16)[0]
    scored = small_backend.logprob(prompt, sample.tokens)
    assert scored == pytest.approx(sample.mean_logprob, abs=0.1)
    single = small_backend.logprob(prompt, small_backend.tokenize("The river flows."))
    plain = small_backend.logprob(list(prompt.tokens), small_backend.tokenize("The river flows."))
    assert plain == pytest.approx(single, abs=0.1)  # a token list works too (nothing cached)
    batched = small_backend.logprobs([(prompt, small_backend.tokenize("The river flows."))] * 3)
    assert batched == pytest.approx([single] * 3, abs=0.1)  # batch size changes kernels, slightly


def test_prefix_is_evaluated_once(small_backend: LlamaBackend) -> None:
    a = _copy_prompt(small_backend, "One sentence.")
    b = _copy_prompt(small_backend, "Another, longer sentence here.")
    assert a.prefix == b.prefix and a.suffix != b.suffix
    small_backend.sample(a, 1, top_k=5, seed=0, banned=BanSet(), max_tokens=4)
    cached = small_backend.counters["cached_prefix_tokens"]
    small_backend.sample(b, 1, top_k=5, seed=0, banned=BanSet(), max_tokens=4)
    assert small_backend.counters["cached_prefix_tokens"] == cached + len(b.prefix)


def test_context_limits() -> None:
    backend = LlamaBackend.load("small", n_ctx=256, max_parallel=2, n_threads=1)
    try:
        long = _copy_prompt(backend, "word " * 300)
        with pytest.raises(ContextTooSmall):
            backend.sample(long, 1, top_k=5, seed=0, banned=BanSet(), max_tokens=8)
        short = _copy_prompt(backend, "Hi.")
        assert backend.parallel_capacity(len(short), 150) == 1  # the KV cache bounds parallelism
        assert len(backend.sample(short, 2, top_k=5, seed=0, banned=BanSet(), max_tokens=150)) == 2
        # scoring packs items into batches that fit beside the prefix, splitting long ones
        items = [(_copy_prompt(backend, f"Item {i} is here."), backend.tokenize("word " * (20 + 40 * i)))
                 for i in range(4)]
        packed = backend.logprobs(items)
        # not bit-identical: llama.cpp picks other matmul kernels for bigger batches
        assert packed == pytest.approx([backend.logprob(p, c) for p, c in items], abs=0.1)
    finally:
        backend.close()


def test_partial_utf8_is_held_back() -> None:
    assert _decode_partial("é".encode()) == ("é", b"")
    assert _decode_partial("aé".encode()[:2]) == ("a", b"\xc3")


def test_a_sample_stops_past_max_words() -> None:
    """A sample whose line holds more words than the caller can use stops there; a word is a run
    of non-space characters with a letter or digit, so quotes and a lone colon do not count."""
    import numpy as np

    def run(pieces: list[str], max_words: int) -> tuple[str, str | None, int]:
        seq = _Seq(2, 0, 0, np.random.default_rng(0), None, np.array([], dtype=np.int64),  # type: ignore[arg-type]
                   max_words=max_words)  # no guard: advance() does not consult it
        for k, piece in enumerate(pieces):
            seq.advance(k, piece.encode(), False, 20)
        return seq.text, seq.finish, len(seq.tokens)

    answer = ["Synonym", " :", " \"", "hand", " over", "\"", ".", " It", " means", " giving"]
    assert run(answer, 3) == ('Synonym : "hand over". It', "words", 8)  # stopped at the 4th word
    assert run(answer, 0)[1:] == (None, 10)  # no limit: it runs on
    assert run(["passed", "\n", "more"], 1) == ("passed", "newline", 2)  # a line break still ends it first


def test_max_words_stops_samples_in_a_wave(small_backend: LlamaBackend) -> None:
    prompt = _copy_prompt(small_backend, "The farmer sold his old tractor to a neighbour last spring.")
    limited = small_backend.sample_groups(prompt, [SampleGroup(4, 5, max_words=2)], top_k=5, max_tokens=24)
    assert len(limited) == 4 and all(s.finish == "words" for s in limited)
    assert all(len(s.text.split()) == 3 for s in limited)  # stopped as the third word began


def test_kept_phrases_are_boosted_and_completed(small_backend: LlamaBackend) -> None:
    prompt = small_backend.chat_prompt(SYSTEM, "Write one short sentence about the weather.\nSentence:",
                                       split_at="Sentence:")
    plain = small_backend.sample_groups(prompt, [SampleGroup(4, 5)], top_k=10, max_tokens=24)
    assert not any("purple elephant" in s.text for s in plain)
    forced = small_backend.sample_groups(
        prompt, [SampleGroup(4, 5, keep=("purple elephant",), keep_start=50.0, keep_continue=50.0)],
        top_k=10, max_tokens=24)
    for sample in forced:
        assert "purple elephant" in sample.text.lower()
        assert all(lp <= 0 for lp in sample.logprobs)  # the model's own probabilities, not the boosted ones


def test_fields_constraint_fixes_the_number_of_separators(small_backend: LlamaBackend) -> None:
    prompt = small_backend.chat_prompt("You answer briefly.", "Name three fruits, separated by \" | \".")
    for fields in (1, 3):
        samples = small_backend.sample_groups(prompt, [SampleGroup(6, 11, fields=fields)], top_k=10, max_tokens=24)
        for s in samples:
            assert s.text.count("|") <= fields - 1  # never a separator too many
            if s.finish in ("stop", "newline"):  # it could only end with all of them
                assert s.text.count("|") == fields - 1, s.text


def test_a_batch_of_prompts_gives_each_prompt_its_own_samples(small_backend: LlamaBackend) -> None:
    """Several prompts decode in one wave (and across waves when they do not fit): each prompt
    gets its own samples under its own bans, numbered as if alone, and the same batch gives the
    same samples again. Texts equal the prompt-alone ones only where no near-tie is crossed:
    llama.cpp's kernels round differently for other batch shapes (ggml-org/llama.cpp#4479), so
    a sampled text may differ after a few tokens; greedy decoding shows the prompts do not mix."""
    from paraspan.llm.backend import SampleJob, sample_batch

    sentences = ["The company sold its shares.", "A storm reached the coast on Friday.",
                 "She lent her brother forty dollars."]
    jobs = [SampleJob(_copy_prompt(small_backend, s), (SampleGroup(3, 7 + k, expand_ban(s.split()[1])),
                                                        SampleGroup(2, 20 + k)), 20)
            for k, s in enumerate(sentences)]
    alone = [small_backend.sample_groups(j.prompt, j.groups, top_k=10, max_tokens=j.max_tokens) for j in jobs]
    together = sample_batch(small_backend, jobs, top_k=10)  # 15 samples, 8 at a time: two waves
    again = sample_batch(small_backend, jobs, top_k=10)
    assert [[s.text for s in out] for out in together] == [[s.text for s in out] for out in again]
    assert [[(s.group, s.index) for s in out] for out in together] == \
        [[(s.group, s.index) for s in out] for out in alone]
    for k, out in enumerate(together):
        assert all(expand_ban(sentences[k].split()[1]).find_leaks(s.text) == [] for s in out if s.group == 0)
    greedy = [SampleJob(j.prompt, (SampleGroup(1, 0),), 12) for j in jobs]
    assert [o[0].text for o in sample_batch(small_backend, greedy, top_k=1)] == \
        [small_backend.sample_groups(j.prompt, j.groups, top_k=1, max_tokens=12)[0].text for j in greedy]


def test_waves_of_prompts_with_other_prefixes_and_long_suffixes(small_backend: LlamaBackend) -> None:
    """Prompts with different cached prefixes, one with no prefix at all, and a suffix longer than
    the decode batch, through 4 parallel sequences (waves of prompts of several prefixes): every
    sample comes back in group order, and greedy answers are each prompt's own."""
    from paraspan.llm.backend import SampleJob, sample_batch

    narrow = LlamaBackend(small_backend.llm, n_ctx=1024, n_batch=32, max_parallel=4, n_threads=1)
    try:
        other = narrow.chat_prompt("You answer in one line.", "Say this again.\nSentence: Dogs bark at night.",
                                   split_at="Sentence:")
        long = _copy_prompt(narrow, "The committee, after a long and careful debate that lasted well into the "
                                    "evening, decided to postpone the vote until the following week.")
        assert len(long.suffix) > 32
        plain = narrow.tokenize("The capital of France is")
        prompts: list[Prompt | list[int]] = [_copy_prompt(narrow, "The company sold its shares."), other, long, plain]
        jobs = [SampleJob(p if isinstance(p, Prompt) else Prompt((), tuple(p)),
                          (SampleGroup(2, 3 + k), SampleGroup(1, 9 + k)), 10) for k, p in enumerate(prompts)]
        together = sample_batch(narrow, jobs, top_k=10)
        assert [[(s.group, s.index) for s in out] for out in together] == [[(0, 0), (0, 1), (1, 0)]] * 4
        assert all(s.tokens and len(s.tokens) <= 10 for out in together for s in out)
        greedy = [SampleJob(j.prompt, (SampleGroup(2, 0),), 8) for j in jobs]
        alone = [narrow.sample_groups(j.prompt, j.groups, top_k=1, max_tokens=8)[0].text for j in greedy]
        assert [out[0].text for out in sample_batch(narrow, greedy, top_k=1)] == alone
    finally:
        narrow.close()

