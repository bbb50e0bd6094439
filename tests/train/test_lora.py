"""Training encodes with the GGUF file's own tokenizer, the one llama.cpp generates with."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from paraspan.errors import ParaspanError
from paraspan.train.examples import Example
from paraspan.train.lora import GGUFTokenizer, encode


def test_training_tokens_are_llama_cpps_and_labels_cover_the_answer_only() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    from paraspan.models.resolve import resolve

    try:
        path = resolve("llm", "small").path
    except ParaspanError:
        pytest.skip("the small model package is not installed")
    hf = SimpleNamespace(bos_token_id=1, eos_token_id=2, pad_token_id=None, add_bos_token=True)
    tokenizer = GGUFTokenizer.wrap(path, hf)
    prompt = "### frame Commerce_sell, sell.v\n<Seller> sold his old tractor.\n=> "
    llama = llama_cpp.Llama(model_path=str(path), vocab_only=True, verbose=False)
    assert tokenizer.encode(prompt) == llama.tokenize(prompt.encode(), add_bos=False, special=False)
    assert tokenizer.pad_token_id == 2  # the end-of-text token pads when the model names no pad token
    rows = encode([Example(prompt, "The farmer", "span", "frame", ("Seller",))], tokenizer, 160)
    ids, labels = rows[0]["input_ids"], rows[0]["labels"]
    assert ids[0] == 1 and ids[-1] == 2  # begin-of-text first (the card says so), end-of-text last
    answer = [t for t in labels if t != -100]
    assert answer == tokenizer.encode("The farmer") + [2]
    llama.close()


def test_the_lora_weights_are_drawn_from_the_seed_and_leave_torchs_state_alone() -> None:
    pytest.importorskip("peft")
    import copy

    import torch
    from peft import LoraConfig
    from transformers import LlamaConfig, LlamaForCausalLM

    from paraspan.train.lora import TARGET_MODULES, _seeded_lora

    torch.manual_seed(1)
    base = LlamaForCausalLM(LlamaConfig(vocab_size=32, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                        num_attention_heads=2, num_key_value_heads=2))

    def lora_a(seed: int) -> torch.Tensor:
        lora = LoraConfig(r=2, lora_alpha=4, target_modules=list(TARGET_MODULES), task_type="CAUSAL_LM")
        wrapped = _seeded_lora(copy.deepcopy(base), lora, seed)
        return torch.cat([p.detach().flatten() for n, p in wrapped.named_parameters() if "lora_A" in n])

    state = torch.random.get_rng_state()
    first, again, other = lora_a(0), lora_a(0), lora_a(1)
    assert torch.equal(first, again) and not torch.equal(first, other)
    assert torch.equal(torch.random.get_rng_state(), state)
