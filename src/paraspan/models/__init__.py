"""Local models: resolve a name to a verified path inside an installed package, then load it.

Every model comes from a PyPI package (no hub at run time). ``resolve(kind, name)`` finds the
files; the loaders (``load_spacy``, ``load_wordnet``, ``load_encoder``, ``load_llm``) import
their heavy library only when called, so ``import paraspan.models`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

# resolve.py needs only the standard library, so it is imported eagerly. That also makes
# `paraspan.models.resolve` the function (not the submodule of the same name); code that
# wants the module uses `importlib.import_module("paraspan.models.resolve")`.
from paraspan.models.resolve import KINDS, SPECS, ModelSpec, ResolvedModel, resolve

# name → submodule; resolved on first attribute access (PEP 562) to keep imports light
_EXPORTS = {
    "cache_dir": "cache",
    "assemble": "cache",
    "load_spacy": "nlp",
    "load_wordnet": "wordnet",
    "lemmas": "inflect",
    "inflections": "inflect",
    "Encoder": "encoder",
    "load_encoder": "encoder",
    "LocalLLM": "llm",
    "load_llm": "llm",
    "CheckResult": "doctor",
    "CHECKS": "doctor",
    "run_doctor": "doctor",
}

__all__ = [
    "CHECKS", "KINDS", "SPECS", "CheckResult", "Encoder", "LocalLLM", "ModelSpec", "ResolvedModel",
    "assemble", "cache_dir", "inflections", "lemmas", "load_encoder", "load_llm", "load_spacy",
    "load_wordnet", "resolve", "run_doctor",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'paraspan.models' has no attribute {name!r}")
    return getattr(importlib.import_module(f"paraspan.models.{module}"), name)
