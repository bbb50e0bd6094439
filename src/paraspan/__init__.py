"""paraspan: grow span-annotated corpora by rewriting sentences and carrying their labels over.

Importing the package does no work: models, readers and the CLI load on first use. The Python
API (:mod:`paraspan.api`) is reached from here and loaded when first touched::

    import paraspan

    corpus = paraspan.read("train.conll", "bio")
    augmented = list(paraspan.augment(corpus, store="run.db"))
    paraspan.write(augmented, "augmented.jsonl")
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

__all__ = ["Augmentation", "Corpus", "Sentence", "Span", "Structure", "__version__", "augment", "demo_corpus", "read",
           "write"]

#: name → the module that defines it, imported on first access (PEP 562; through importlib, not an
#: import statement: the modules import ``paraspan.__version__``, and the package imports none of them)
_LAZY = {
    "read": "paraspan.api",
    "write": "paraspan.api",
    "augment": "paraspan.api",
    "Augmentation": "paraspan.api",
    "Corpus": "paraspan.api",
    "demo_corpus": "paraspan.api",
    "Sentence": "paraspan.corpus.schema",
    "Span": "paraspan.corpus.schema",
    "Structure": "paraspan.corpus.schema",
}


def __getattr__(name: str) -> Any:
    """``paraspan.read`` and the rest of the API, imported when first asked for."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'paraspan' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
