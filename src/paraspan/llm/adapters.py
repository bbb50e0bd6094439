"""A generation backend with a trained adapter applied: the GGUF LoRA on llama.cpp, peft on transformers."""

from __future__ import annotations

import os
from typing import Any

from paraspan.errors import TrainError

__all__ = ["load_adapter_backend"]


def load_adapter_backend(adapter: str | os.PathLike[str], *, model: str | None = None, backend: str = "auto",
                         device: str = "auto", n_threads: int | None = None, seed: int = 0, n_ctx: int = 4096,
                         parallel: int = 32) -> tuple[Any, dict[str, Any]]:
    """A generation backend with the adapter applied, and the adapter's card.

    llama.cpp applies the GGUF LoRA on the CPU; transformers loads the peft adapter (the GPU path).
    ``seed``, ``n_ctx`` and ``parallel`` (samples decoded together) as for
    :func:`~paraspan.llm.hf_backend.load_backend`.
    """
    from paraspan.llm.hf_backend import TransformersBackend, locate_model, pick_backend
    from paraspan.models.adapters import GGUF_NAME, PEFT_DIR, adapter_folder, check_base, file_sha256, read_card
    from paraspan.models.resolve import resolve
    folder = adapter_folder(adapter)
    card = read_card(folder)
    base = model or card.get("base", {}).get("name") or "default"
    runtime = pick_backend(base, backend, device)
    if runtime == "llama":
        from paraspan.llm.llama_backend import LlamaBackend

        resolved = resolve("llm", base)
        check_base(card, str(adapter), resolved.name, resolved.sha256)
        gguf = folder / GGUF_NAME
        if not gguf.is_file():
            raise TrainError.from_code("E508", path=folder, exc=f"no {GGUF_NAME} for llama.cpp (try --backend "
                                       "transformers)", names=str(adapter))
        return LlamaBackend.load(str(base), n_threads=n_threads, seed=seed, n_ctx=n_ctx, max_parallel=parallel,
                                 lora_path=str(gguf)), card
    source = locate_model(base)
    if source.gguf_file:
        check_base(card, str(adapter), source.name, file_sha256(source.folder / source.gguf_file))
    loaded = TransformersBackend.load(base, device=device, seed=seed, n_ctx=n_ctx, max_batch=max(parallel, 1),
                                      n_threads=n_threads)
    from peft import PeftModel

    loaded.model = PeftModel.from_pretrained(loaded.model, str(folder / PEFT_DIR))
    loaded.model.eval()
    return loaded, card
