"""Fine-tuned layers shipped as a delta: the tensors that differ from the packaged encoder, saved in
fp16 (safetensors) and applied on top of a private copy of it (``minilm-nli``, the FE classifier).

torch and safetensors are imported when a delta is read or written.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any


def read_delta(path: str | Path) -> dict[str, Any]:
    """The tensors of a delta file, as float32."""
    from safetensors.torch import load_file

    return {k: v.float() for k, v in load_file(str(path)).items()}


def apply_delta(module: Any, path: str | Path, *, exact: Collection[str] | None = None) -> list[str]:
    """Load the delta at ``path`` into ``module`` (a torch module; untouched when it does not fit).

    Returns the keys that do not fit: a tensor ``module`` lacks or has with another shape, and,
    with ``exact`` (the keys the delta must hold, e.g. the layers a recipe trains), a key missing
    from the delta or one it holds besides. The caller raises its own error when the list is not
    empty.
    """
    delta = read_delta(path)
    state = module.state_dict()
    wrong = [k for k in delta if k not in state or state[k].shape != delta[k].shape]
    if exact is not None:
        wrong += sorted(set(exact) - set(delta))
        wrong += [k for k in delta if k not in exact and k not in wrong]
    if not wrong:
        module.load_state_dict(delta, strict=False)
    return wrong


def save_delta(tensors: Mapping[str, Any], path: str | Path, metadata: Mapping[str, str] | None = None) -> Path:
    """Write ``tensors`` as fp16 safetensors at ``path``, through a temporary file beside it."""
    import torch
    from safetensors.torch import save_file

    path = Path(path)
    half = {k: v.detach().to(torch.float16).contiguous() for k, v in tensors.items()}
    tmp = path.with_name(f".{path.name}.tmp")
    save_file(half, str(tmp), metadata=dict(metadata) if metadata else None)
    tmp.replace(path)
    return path
