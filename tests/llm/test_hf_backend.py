"""The transformers backend on the packaged small GGUF (SmolLM2-135M, dequantised), on the CPU.

Bans never leak, a sample depends on its seed and not on its batch, the forward and backward
scores are the model's full-distribution log-probabilities, and loading fails helpfully.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("gguf")

from paraspan.errors import ModelError  # noqa: E402
from paraspan.llm.backend import Backend, Prompt, SampleGroup  # noqa: E402
from paraspan.llm.hf_backend import TransformersBackend, hf_cache_folder, pick_backend  # noqa: E402
from paraspan.llm.llama_backend import ContextTooSmall, text_logprobs, text_token_logprobs  # noqa: E402
from paraspan.text.constraints import BanSet, expand_bans  # noqa: E402

SYSTEM = "You are a helpful assistant."


@pytest.fixture(scope="module")
def backend() -> Iterator[TransformersBackend]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # transformers' notes on legacy GGUF tokenizers
        loaded = TransformersBackend.load("small", device="cpu", n_ctx=2048, max_batch=16, n_threads=1)
    yield loaded
    loaded.close()


def _copy_prompt(backend: TransformersBackend, sentence: str) -> Prompt:
    # Asking for a copy makes the banned words the most likely continuation.
    return backend.chat_prompt(SYSTEM, f"Repeat this sentence exactly.\nSentence: {sentence}", split_at="Sentence:")


def _direct(backend: TransformersBackend, context: Sequence[int], continuation: Sequence[int]) -> list[float]:
    """Log-probabilities of ``continuation`` from one plain forward over the whole sequence."""
    ids = torch.tensor([list(context) + list(continuation)])
    with torch.inference_mode():
        logits = backend.model(ids).logits[0].float()
    table = torch.log_softmax(logits, dim=-1)
    return [float(table[len(context) - 1 + j, token]) for j, token in enumerate(continuation)]


def test_it_is_a_backend_and_round_trips_text(backend: TransformersBackend) -> None:
    assert isinstance(backend, Backend)
    assert len(backend.vocab) == 49152
    for text in ("The cat sold it.", "Naïve café — 日本語, twice:\n\n  indented", " leading space"):
        tokens = backend.tokenize(text)
        assert backend.detokenize(tokens) == text
        # the sampler assembles text from the pieces: they must add up to the same text
        assert b"".join(backend._pieces[t] for t in tokens).decode("utf-8") == text  # type: ignore[index]
    marker = "<|im_end|>"
    assert backend.tokenize(marker, special=True) == backend.end_of_turn()
    assert len(backend.tokenize(marker)) > 1  # in user text it is text, not the control token


def test_chat_prompt_splits_off_a_cacheable_prefix(backend: TransformersBackend) -> None:
    a = _copy_prompt(backend, "One sentence.")
    b = _copy_prompt(backend, "Another, longer sentence here.")
    assert a.prefix == b.prefix and a.suffix != b.suffix
    rendered = backend.detokenize(a.tokens)
    assert "Repeat this sentence exactly." in rendered and rendered.rstrip().endswith("assistant")


def test_banned_forms_are_never_sampled(backend: TransformersBackend) -> None:
    prompt = _copy_prompt(backend, "The company sold its factory and is selling more.")
    bans = expand_bans(["sold", "factory"])
    free = backend.sample(prompt, 3, top_k=10, seed=3, banned=BanSet(), max_tokens=12)
    assert any(bans.find_leaks(s.text) for s in free)  # unconstrained, it copies them
    constrained = backend.sample_groups(
        prompt, [SampleGroup(3, 3, bans), SampleGroup(3, 4, bans | BanSet.exact(["company"]))],
        top_k=10, max_tokens=12)
    assert len(constrained) == 6 and {s.group for s in constrained} == {0, 1}
    for sample in constrained:
        assert bans.find_leaks(sample.text) == [], sample.text
        assert sample.finish in ("stop", "newline", "length", "blocked")
        assert len(sample.logprobs) == len(sample.tokens) and all(lp <= 0 for lp in sample.logprobs)
    assert not any(BanSet.exact(["company"]).find_leaks(s.text) for s in constrained if s.group == 1)


def test_a_sample_depends_on_its_seed_not_on_its_batch(backend: TransformersBackend) -> None:
    prompt = _copy_prompt(backend, "Anna lives in Oslo with her two dogs.")
    group = SampleGroup(3, 7, expand_bans(["lives"]))
    alone = backend.sample_groups(prompt, [group], top_k=10, max_tokens=10)
    others = [SampleGroup(3, 1), group, SampleGroup(2, 9, expand_bans(["dogs"]))]
    saved = backend.max_batch
    backend.max_batch = 4  # several waves, and rows dropped from the batch as they finish
    try:
        batched = [s for s in backend.sample_groups(prompt, others, top_k=10, max_tokens=10) if s.group == 1]
    finally:
        backend.max_batch = saved
    assert [s.tokens for s in batched] == [s.tokens for s in alone]
    assert [s.index for s in batched] == [0, 1, 2]
    for a, b in zip(alone, batched, strict=True):
        assert b.logprobs == pytest.approx(a.logprobs, abs=1e-3)
    other_seed = backend.sample_groups(prompt, [SampleGroup(3, 8, group.bans)], top_k=10, max_tokens=10)
    assert [s.tokens for s in other_seed] != [s.tokens for s in alone]


def test_sampled_logprobs_are_the_full_distribution(backend: TransformersBackend) -> None:
    prompt = _copy_prompt(backend, "The river flows to the sea.")
    group = SampleGroup(2, 5, expand_bans(["river"]), keep=("the sea",), keep_start=2.0, keep_continue=6.0)
    for sample in backend.sample_groups(prompt, [group], top_k=10, max_tokens=10, temperature=0.7):
        # unconstrained, temperature 1: bans, boosts and temperature change the draw, not the score
        assert sample.logprobs == pytest.approx(_direct(backend, prompt.tokens, sample.tokens), abs=2e-3)


def test_fields_constraint(backend: TransformersBackend) -> None:
    prompt = backend.chat_prompt(SYSTEM, "Write a name and a city, separated by |.\nSentence: Anna, Oslo",
                                 split_at="Sentence:")
    for sample in backend.sample_groups(prompt, [SampleGroup(3, 2, fields=2)], top_k=10, max_tokens=10):
        assert sample.text.count("|") <= 1
        if sample.finish in ("stop", "newline"):
            assert sample.text.count("|") == 1, sample.text


def test_logprobs_agree_with_a_full_forward(backend: TransformersBackend) -> None:
    short = _copy_prompt(backend, "Hi.")
    long = _copy_prompt(backend, "A much longer sentence, so that rows have different lengths.")
    items = [(short, backend.tokenize("Hi there.") + backend.end_of_turn()),
             (long, backend.tokenize("A longer sentence.")),
             (list(short.tokens), backend.tokenize("Hello")),  # a token list: nothing cached
             (Prompt(short.tokens, ()), backend.tokenize("Hi"))]  # no suffix: the prefix's last token moves
    per_token = backend.token_logprobs(items)
    means = backend.logprobs(items)
    for (prompt, continuation), values, mean in zip(items, per_token, means, strict=True):
        context = prompt.tokens if isinstance(prompt, Prompt) else prompt
        assert values == pytest.approx(_direct(backend, context, continuation), abs=2e-3)
        assert mean == pytest.approx(sum(values) / len(values))
    assert backend.logprob(*items[0]) == pytest.approx(means[0], abs=1e-4)
    # the fluency filter's helpers take any backend
    assert [lp for _, lps in text_token_logprobs(backend, ["The cat sat."]) for lp in lps] == pytest.approx(
        per_token_of(backend, "The cat sat."), abs=1e-4)
    good, bad = text_logprobs(backend, ["The cat sat on the mat.", "Mat the on sat cat the."])
    assert good > bad
    with pytest.raises(ValueError):
        backend.logprobs([(short, [])])
    with pytest.raises(ContextTooSmall):
        backend.logprobs([(short, [1] * 3000)])


def per_token_of(backend: TransformersBackend, text: str) -> list[float]:
    from paraspan.llm.llama_backend import start_tokens

    return backend.token_logprobs([(start_tokens(backend), backend.tokenize(text))])[0]


def test_an_hf_id_missing_from_the_cache_is_a_clear_error() -> None:
    with pytest.raises(ModelError) as caught:
        TransformersBackend.load("hf:paraspan-tests/no-such-model", device="cpu")
    assert caught.value.code == "E870"
    assert hf_cache_folder() in str(caught.value) and "local folder" in str(caught.value)


def test_a_folder_without_chat_template_warns(backend: TransformersBackend, tmp_path: Path) -> None:
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer = copy.deepcopy(backend.tokenizer)
    tokenizer.chat_template = None
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512)
    LlamaForCausalLM(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    tiny = TransformersBackend.load(tmp_path, device="cpu")
    assert tiny.n_ctx == 512
    with pytest.warns(UserWarning, match="no chat template"):
        prompt = tiny.chat_prompt(SYSTEM, "Say hi.\nSentence: hello", split_at="Sentence:")
    assert tiny.detokenize(prompt.tokens).endswith(f"{SYSTEM}\nSay hi.\nSentence: hello\n")
    assert len(tiny.sample(prompt, 2, seed=0, max_tokens=3)) == 2
    with pytest.raises(ModelError) as caught:
        TransformersBackend.load(tmp_path / "nothing-here", device="cpu")
    assert caught.value.code == "E301"  # no such file or folder


def test_backend_choice() -> None:
    assert pick_backend("hf:Qwen/Qwen2.5-1.5B-Instruct") == "transformers"
    assert pick_backend(".") == "transformers"  # a folder
    assert pick_backend("default") == "llama" and pick_backend("model.gguf") == "llama"
    assert pick_backend("small", "transformers") == "transformers"
    assert pick_backend("small", device="cuda") == "transformers"  # llama.cpp runs on the CPU
    for model, backend, device, code in ((".", "llama", "auto", "E874"), ("small", "vllm", "auto", "E872"),
                                         ("small", "llama", "cuda", "E874")):
        with pytest.raises(ModelError) as caught:
            pick_backend(model, backend, device)
        assert caught.value.code == code
    with pytest.raises(ModelError) as caught:
        TransformersBackend.load("small", device="tpu")
    assert caught.value.code == "E872"


def test_paraphraser_runs_on_it(backend: TransformersBackend) -> None:
    from paraspan.generate.base import GenerationRequest
    from paraspan.generate.paraphrase import Paraphraser

    paraphraser = Paraphraser(backend, samples=2, constraint_sets=2, faithful_examples=False)
    text = "The company sold its old factory."
    result = paraphraser.generate(GenerationRequest("s1", text, ban=((12, 16),)))
    assert result.stats["sampled"] == 4
    assert not any(expand_bans(["sold"]).find_leaks(c.text) for c in result.candidates)
