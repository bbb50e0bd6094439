"""Writing a trained adapter: peft safetensors, a GGUF LoRA for llama.cpp, and a model card.

The GGUF LoRA is written with the ``gguf`` package in the layout llama.cpp's own
``convert_lora_to_gguf.py`` writes (``general.type = adapter``, ``adapter.lora.alpha``, tensors
``blk.N.attn_q.weight.lora_a`` / ``.lora_b``), with the base file's architecture, so that
``Llama(model_path=BASE, lora_path=ADAPTER)`` applies it.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from pathlib import Path
from typing import Any

from paraspan.errors import TrainError
from paraspan.models.adapters import CARD, GGUF_NAME, PEFT_DIR

__all__ = ["write_adapter", "write_gguf_lora"]

_LAYER = re.compile(r"(?:^|\.)layers\.(\d+)\.(self_attn|mlp)\.(\w+)\.lora_([AB])\.weight$")
#: Hugging Face projection → llama.cpp tensor name (the same for the Qwen2, Llama and Gemma 3 families).
_GGUF_NAMES = {
    "q_proj": "attn_q", "k_proj": "attn_k", "v_proj": "attn_v", "o_proj": "attn_output",
    "gate_proj": "ffn_gate", "up_proj": "ffn_up", "down_proj": "ffn_down",
}


def _base_architecture(base_gguf: str | os.PathLike[str]) -> str:
    import gguf

    reader = gguf.GGUFReader(str(base_gguf))
    field = reader.fields.get("general.architecture")
    if field is None:
        raise TrainError.from_code("E507", path=base_gguf, problem="it names no general.architecture")
    return bytes(field.parts[field.data[0]]).decode("utf-8")


def write_gguf_lora(state: dict[str, Any], alpha: float, base_gguf: str | os.PathLike[str], path: Path) -> int:
    """Write the LoRA tensors of a peft ``state`` dict as a GGUF adapter for ``base_gguf``; the tensor count."""
    import gguf
    import numpy as np

    arch = _base_architecture(base_gguf)
    tensors: list[tuple[str, Any]] = []
    for key, value in state.items():
        match = _LAYER.search(key)
        if match is None:
            raise TrainError.from_code("E507", path=path, problem=f"tensor {key} is not a LoRA of a block projection")
        layer, _, proj, which = match.groups()
        if proj not in _GGUF_NAMES:
            raise TrainError.from_code("E507", path=path, problem=f"no llama.cpp name for projection {proj}")
        name = f"blk.{layer}.{_GGUF_NAMES[proj]}.weight.lora_{which.lower()}"
        tensors.append((name, value.detach().float().cpu().numpy().astype(np.float16)))
    tmp = path.with_name(path.name + ".tmp")
    writer = gguf.GGUFWriter(str(tmp), arch)
    writer.add_string("general.type", "adapter")
    writer.add_string("adapter.type", "lora")
    writer.add_float32("adapter.lora.alpha", float(alpha))
    for name, array in sorted(tensors):
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(tmp, path)
    return len(tensors)


def write_adapter(peft_model: Any, folder: Path, card: dict[str, Any], base_gguf: str | None) -> dict[str, Any]:
    """Save ``peft_model``'s adapter (float16) under ``folder``, its GGUF twin when the base is a GGUF
    file, and the model card; returns the card as written."""
    import torch
    from peft import get_peft_model_state_dict
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    # float16 halves the files; peft's own save_pretrained would re-filter an already filtered dict to nothing
    state = {k: v.detach().to(torch.float16).contiguous() for k, v in get_peft_model_state_dict(peft_model).items()}
    peft_dir = folder / PEFT_DIR
    peft_dir.mkdir(exist_ok=True)
    config = peft_model.peft_config["default"]
    config.base_model_name_or_path = card.get("base", {}).get("name")  # a name paraspan resolves, not a local path
    save_file(state, str(peft_dir / "adapter_model.safetensors"), metadata={"format": "pt"})
    config.save_pretrained(str(peft_dir))
    files = [f"{PEFT_DIR}/adapter_model.safetensors", f"{PEFT_DIR}/adapter_config.json"]
    if base_gguf is not None:
        write_gguf_lora(state, config.lora_alpha, base_gguf, folder / GGUF_NAME)
        files.append(GGUF_NAME)
    card = dict(card)
    card.update({
        "format": "paraspan-adapter/1",
        "rank": config.r, "alpha": config.lora_alpha, "target_modules": sorted(config.target_modules),
        "files": files,
        "written": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
    })
    (folder / CARD).write_text(json.dumps(card, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(_readme(card), encoding="utf-8")
    return card


def _readme(card: dict[str, Any]) -> str:
    base = card.get("base", {})
    labels = card.get("labels", {})
    lines = [
        f"# paraspan adapter: {card.get('name', 'unnamed')}",
        "",
        "A LoRA that fills masked argument spans and triggers of labelled sentences "
        "(`paraspan train-generator`).",
        "",
        f"- base model: {base.get('name')} (sha256 {base.get('sha256')}, architecture {base.get('architecture')})",
        f"- corpus: {card.get('corpus')} ({card.get('format_in')}), split {card.get('split')}",
        f"- kinds: {', '.join(labels.get('kinds', []))}; {len(labels.get('structures', []))} frames/rolesets, "
        f"{len(labels.get('labels', []))} argument labels",
        f"- examples: {card.get('examples', {}).get('train')} train, {card.get('examples', {}).get('dev')} dev",
        f"- steps: {card.get('steps')}, epochs {card.get('epochs')}; dev loss {card.get('dev_loss')}",
        f"- LoRA rank {card.get('rank')}, alpha {card.get('alpha')}, on {', '.join(card.get('target_modules', []))}",
        f"- trained {card.get('trained_seconds')} s at {card.get('tokens_per_second')} tokens/s "
        f"on {card.get('device')}; written {card.get('written')}",
        "",
    ]
    return "\n".join(lines)
