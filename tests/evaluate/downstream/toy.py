"""A tiny hand-written corpus for the downstream tests (no shared data)."""

from __future__ import annotations

import hashlib

import numpy as np

from paraspan.corpus.schema import Sentence, Span, Structure

PEOPLE = ["Anna", "Boris", "Chen", "Dana", "Emil", "Fatima", "Goran", "Hiro"]
THINGS = ["a car", "the bread", "two books", "a house", "some apples", "the tickets"]
VERBS = {"bought": ("Commerce_buy", "buy.v"), "sold": ("Commerce_sell", "sell.v"), "stole": ("Theft", "steal.v")}


def frame_sentence(i: int, person: str, verb: str, thing: str, *, kind: str = "frame") -> Sentence:
    text = f"{person} {verb} {thing} yesterday ."
    frame, lu = VERBS[verb]
    v0 = len(person) + 1
    t0 = v0 + len(verb) + 1
    roles = ("Agent", "Theme") if kind == "frame" else ("ARG0", "ARG1")
    structure = Structure(kind, frame if kind == "frame" else lu, Span(v0, v0 + len(verb), lu),
                          [Span(0, len(person), roles[0]), Span(t0, t0 + len(thing), roles[1])])
    return Sentence(f"toy:{i}", text, [structure], {"doc": f"doc{i % 5}"})


def frame_corpus(n: int = 48, *, kind: str = "frame", offset: int = 0) -> list[Sentence]:
    out = []
    verbs = list(VERBS)
    for i in range(n):
        k = i + offset
        out.append(frame_sentence(k, PEOPLE[k % len(PEOPLE)], verbs[k % len(verbs)], THINGS[(k // 3) % len(THINGS)],
                                  kind=kind))
    return out


def fake_encode(batch: list[list[str]]) -> list[np.ndarray]:
    """Deterministic 32-d word vectors from a hash of the word (no model needed)."""
    out = []
    for words in batch:
        rows = []
        for w in words:
            seed = int(hashlib.md5(w.lower().encode()).hexdigest()[:8], 16)
            rows.append(np.random.default_rng(seed).normal(size=32).astype(np.float32))
        out.append(np.stack(rows) if rows else np.zeros((0, 32), np.float32))
    return out
