"""Trained generator adapters: shipped ones by name, a user's by folder; checked against their base.

An adapter folder (written by ``paraspan train-generator``) holds a model card
(``paraspan-adapter.json``), a GGUF LoRA for llama.cpp and a peft adapter for transformers. An
adapter only fits the base it was trained on: the card names the base and its sha256, and a base
with another sha256 is refused.
"""

from __future__ import annotations

import json
import os
from importlib.resources import files
from pathlib import Path
from typing import Any

from paraspan.errors import TrainError

__all__ = ["CARD", "FOR_KIND", "GGUF_NAME", "PEFT_DIR", "SHIPPED", "adapter_folder", "check_base", "check_labels",
           "file_sha256", "read_card", "shipped_names"]

#: File names inside an adapter folder.
CARD = "paraspan-adapter.json"
GGUF_NAME = "adapter.gguf"
PEFT_DIR = "peft"
#: Shipped adapters: name → folder under ``paraspan/models/data/adapters``.
SHIPPED = {"framenet": "framenet", "wikiann": "wikiann", "ewt-up": "ewt-up"}
#: The shipped adapter for each structure kind (what ``--generator trained`` uses unless told).
FOR_KIND = {"frame": "framenet", "entity": "wikiann", "srl": "ewt-up"}


def shipped_names() -> list[str]:
    """The shipped adapters that are present in this installation."""
    root = Path(str(files("paraspan.models").joinpath("data", "adapters")))
    return sorted(name for name, folder in SHIPPED.items() if (root / folder / "paraspan-adapter.json").is_file())


def adapter_folder(adapter: str | os.PathLike[str]) -> Path:
    """The folder of a shipped adapter name or a user's adapter path (E508 when it is neither)."""
    text = str(adapter)
    if text in SHIPPED and not Path(text).exists():
        folder = Path(str(files("paraspan.models").joinpath("data", "adapters", SHIPPED[text])))
    else:
        folder = Path(text).expanduser()
    if not (folder / CARD).is_file():
        raise TrainError.from_code("E508", path=folder, exc=f"no {CARD} there",
                                   names=", ".join(shipped_names()) or "none in this installation")
    return folder


def read_card(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """The model card of an adapter folder (E508 when there is none or it is not ours)."""
    path = Path(folder) / CARD
    names = ", ".join(shipped_names()) or "none in this installation"
    try:
        card = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrainError.from_code("E508", path=path, exc=f"{type(exc).__name__}: {exc}", names=names) from None
    if not isinstance(card, dict) or card.get("format") != "paraspan-adapter/1":
        raise TrainError.from_code("E508", path=path, exc="not a paraspan adapter card", names=names)
    return card


def file_sha256(path: Path) -> str:
    """The sha256 of a file, read in blocks."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_base(card: dict[str, Any], adapter: str, name: str, sha256: str | None) -> None:
    """E509 unless the base ``name``/``sha256`` is the one the adapter was trained on."""
    need = card.get("base", {})
    if need.get("sha256") and sha256 and need["sha256"] != sha256:
        raise TrainError.from_code("E509", adapter=adapter, need=need.get("name"), need_sha=need["sha256"],
                                   have=name, have_sha=sha256)


def check_labels(card: dict[str, Any], adapter: str, kinds: set[str], labels: set[str]) -> None:
    """E510 when a corpus asks for structure kinds or labels the adapter was not trained on."""
    known = card.get("labels", {})
    missing_kinds = sorted(kinds - set(known.get("kinds", [])))
    if missing_kinds:
        raise TrainError.from_code("E510", adapter=adapter, what="these structure kinds",
                                   missing=", ".join(missing_kinds))
    missing = sorted(labels - set(known.get("labels", [])))
    if missing and len(missing) == len(labels):
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise TrainError.from_code("E510", adapter=adapter, what="any of the corpus's labels", missing=shown)
