"""Checks on a text written into an argument slot, shared by the generators that fill slots.

The word lists are data (``generate/data/fillers.json``), each with the reason it exists.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from importlib.resources import files
from typing import Any

__all__ = ["dangling_fillers", "opener", "reflexive_fillers", "shape_differs", "stutters", "unknown_words"]


@functools.lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    """``generate/data/fillers.json``: the word lists, each with its reason."""
    return dict(json.loads(files("paraspan.generate").joinpath("data", "fillers.json").read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=1)
def dangling_fillers() -> frozenset[str]:
    """Words that cannot fill an argument slot alone."""
    return frozenset(_data()["dangling_fillers"]["words"])


@functools.lru_cache(maxsize=1)
def reflexive_fillers() -> frozenset[str]:
    """Reflexive pronouns, which cannot fill an argument slot alone."""
    return frozenset(_data()["reflexive_fillers"]["words"])


_LETTERS = re.compile(r"[A-Za-z]+")


def unknown_words(filler: str, source: str, pieces: Callable[[str], int] | None = None) -> list[str]:
    """The lowercase words of ``filler`` that are neither in LemmInflect's lexicon, nor English stop
    words, nor words of ``source``, nor (given ``pieces``, a word's token count in the base model's
    vocabulary) one token of the vocabulary. Names, numbers and short words are not checked."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from paraspan.models.inflect import known

    shortest = int(_data()["known_words"]["min_length"])
    seen = {w.lower() for w in _LETTERS.findall(source)}
    out = []
    for token in filler.split():
        if any(ch.isdigit() for ch in token):
            continue
        for word in re.split(r"[-/]", token.strip(".,;:!?\"'()[]")):
            if (len(word) < shortest or not word.isalpha() or not word.islower() or word in STOP_WORDS
                    or word in seen or known(word) or (pieces is not None and pieces(word) == 1)):
                continue
            out.append(word)
    return out


@functools.lru_cache(maxsize=1)
def _openers() -> frozenset[str]:
    return frozenset(_data()["openers"]["words"])


def opener(text: str) -> str:
    """The preposition or subordinator ``text`` opens with (lowercase), or ``-``."""
    first = text.split()[:1]
    return first[0].lower() if first and first[0].lower() in _openers() else "-"


def shape_differs(original: str, filler: str) -> bool:
    """Whether ``filler`` opens with another preposition than ``original`` (or one where it has none,
    or none where it has one): the word that governs the slot selects its opener."""
    return opener(original) != opener(filler)


def stutters(text: str, start: int, end: int, filler: str) -> bool:
    """Whether ``filler``, written over ``text[start:end]``, repeats the word just before or just after
    it at its edge ("agents agents", "so-called so-called")."""
    words = filler.lower().split()
    if not words:
        return False
    before = text[:start].lower().split()[-1:]
    after = text[end:].lower().split()[:1]
    return (before == words[:1]) or (after == words[-1:])
