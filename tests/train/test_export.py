"""The GGUF LoRA writer and the adapter card: what llama.cpp reads, and what is refused."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paraspan.errors import ParaspanError
from paraspan.models.adapters import adapter_folder, check_base, check_labels, read_card


def _small_gguf() -> Path:
    from paraspan.models.resolve import resolve

    try:
        return resolve("llm", "small").path
    except ParaspanError:
        pytest.skip("the small model package is not installed")


def test_gguf_lora_has_llama_cpp_layout(tmp_path: Path) -> None:
    gguf = pytest.importorskip("gguf")
    torch = pytest.importorskip("torch")
    from paraspan.train.export import write_gguf_lora

    state = {
        "base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight": torch.randn(4, 576),
        "base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight": torch.randn(576, 4),
        "base_model.model.model.layers.1.mlp.down_proj.lora_A.weight": torch.randn(4, 1536),
        "base_model.model.model.layers.1.mlp.down_proj.lora_B.weight": torch.randn(576, 4),
    }
    out = tmp_path / "adapter.gguf"
    assert write_gguf_lora(state, 8.0, _small_gguf(), out) == 4
    reader = gguf.GGUFReader(str(out))
    def text(key: str) -> str:
        field = reader.fields[key]
        return bytes(field.parts[field.data[0]]).decode()
    assert text("general.type") == "adapter" and text("adapter.type") == "lora"
    assert text("general.architecture") == "llama"
    assert float(reader.fields["adapter.lora.alpha"].parts[-1][0]) == 8.0
    shapes = {t.name: tuple(int(x) for x in t.shape) for t in reader.tensors}
    # ggml lists dimensions innermost first: lora_a is (in, r), lora_b (r, out)
    assert shapes["blk.0.attn_q.weight.lora_a"] == (576, 4)
    assert shapes["blk.1.ffn_down.weight.lora_b"] == (4, 576)
    data = {t.name: np.asarray(t.data) for t in reader.tensors}
    np.testing.assert_allclose(data["blk.0.attn_q.weight.lora_a"],
                               state["base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight"].numpy(),
                               rtol=1e-2, atol=1e-2)


def test_a_tensor_that_is_not_a_block_lora_is_refused(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from paraspan.train.export import write_gguf_lora

    with pytest.raises(ParaspanError) as caught:
        write_gguf_lora({"base_model.model.lm_head.lora_A.weight": torch.zeros(2, 2)}, 4.0, _small_gguf(),
                        tmp_path / "a.gguf")
    assert caught.value.code == "E507"


def _card(tmp_path: Path, **changes: object) -> Path:
    card = {"format": "paraspan-adapter/1", "name": "t", "base": {"name": "small", "sha256": "aa"},
            "labels": {"kinds": ["frame"], "structures": ["Commerce_sell"], "labels": ["Goods", "Seller"]}}
    card.update(changes)
    (tmp_path / "paraspan-adapter.json").write_text(json.dumps(card))
    return tmp_path


def test_card_errors_name_the_folder(tmp_path: Path) -> None:
    with pytest.raises(ParaspanError) as caught:
        adapter_folder(tmp_path / "nothing")
    assert caught.value.code == "E508"
    (tmp_path / "paraspan-adapter.json").write_text("{not json")
    with pytest.raises(ParaspanError) as caught:
        read_card(tmp_path)
    assert caught.value.code == "E508"


def test_an_adapter_for_another_base_is_refused_naming_it(tmp_path: Path) -> None:
    card = read_card(_card(tmp_path))
    check_base(card, "t", "small", "aa")
    with pytest.raises(ParaspanError) as caught:
        check_base(card, "t", "default", "bb")
    assert caught.value.code == "E509"
    assert "small" in str(caught.value) and "aa" in str(caught.value)


def test_labels_the_adapter_lacks_are_refused(tmp_path: Path) -> None:
    card = read_card(_card(tmp_path))
    check_labels(card, "t", {"frame"}, {"Goods", "Recipient"})  # some known: fine
    with pytest.raises(ParaspanError) as caught:
        check_labels(card, "t", {"entity"}, {"PER"})
    assert caught.value.code == "E510" and "entity" in str(caught.value)
    with pytest.raises(ParaspanError) as caught:
        check_labels(card, "t", {"frame"}, {"Victim", "Killer"})
    assert "Killer" in str(caught.value)
