"""Lemmas and inflections of English words, via LemmInflect.

Thin wrappers that return plain, de-duplicated lists so callers need not know LemmInflect's
dict-of-tuples shapes. LemmInflect loads its tables on the first call.
"""

from __future__ import annotations

import functools
from types import ModuleType

from paraspan.errors import ModelError
from paraspan.models.resolve import resolve

# Universal POS tags LemmInflect understands (it maps AUX to VERB itself).
UPOS = ("NOUN", "VERB", "ADJ", "ADV", "AUX", "PROPN")


@functools.lru_cache(maxsize=1)
def load_lemminflect() -> ModuleType:
    """The ``lemminflect`` module, after checking that the package is installed."""
    resolve("lemminflect")  # a missing package → ModelError with the pip command
    try:
        import lemminflect
    except ImportError as exc:  # installed but broken (e.g. a missing dependency)
        raise ModelError.from_code("E340", exc=exc) from None
    return lemminflect


def _flat(table: dict[str, tuple[str, ...]]) -> list[str]:
    seen: dict[str, None] = {}
    for forms in table.values():
        for form in forms:
            seen.setdefault(form, None)
    return list(seen)


def lemmas(word: str, upos: str | None = None) -> list[str]:
    """Lemmas of ``word`` (any POS, or just ``upos``), most common reading first."""
    lem = load_lemminflect()
    table = lem.getAllLemmas(word, upos=upos) if upos else lem.getAllLemmas(word)
    if not table:  # unknown word: fall back to the rule-based lemmatizer
        table = lem.getAllLemmasOOV(word, upos=upos or "NOUN")
    return _flat(table)


def known(word: str) -> bool:
    """Whether LemmInflect's dictionary has ``word`` (an open-class English word), without its rules for
    unknown words."""
    return bool(load_lemminflect().getAllLemmas(word))


def inflections(lemma: str, upos: str | None = None) -> dict[str, list[str]]:
    """Penn tag → forms of ``lemma``, e.g. ``{"VBD": ["sold"], "VBZ": ["sells"], …}``."""
    lem = load_lemminflect()
    table = lem.getAllInflections(lemma, upos=upos) if upos else lem.getAllInflections(lemma)
    if not table and upos:
        table = lem.getAllInflectionsOOV(lemma, upos=upos)
    return {tag: list(forms) for tag, forms in table.items()}


def inflect(lemma: str, tag: str) -> str | None:
    """The form of ``lemma`` for Penn tag ``tag`` (e.g. ``("sell", "VBD") → "sold"``)."""
    lem = load_lemminflect()
    forms = lem.getInflection(lemma, tag=tag)
    return forms[0] if forms else None
