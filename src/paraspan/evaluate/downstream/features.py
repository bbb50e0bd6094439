"""Frozen encoder features per word, cached on disk keyed by the words.

Every learning-curve point re-trains a small head on the same sentences, so each sentence is
encoded once: word vectors (mean of the word's subword states, last layer of the frozen
encoder) go to an SQLite file under the cache folder, keyed by a hash of the model and words.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

EncodeFn = Callable[[list[list[str]]], list[np.ndarray]]


def _key(model: str, words: Sequence[str]) -> str:
    return hashlib.sha1(("\x1e".join([model, *words])).encode("utf-8")).hexdigest()


class FeatureCache:
    """Word vectors for word lists; misses are encoded in batches and stored (float16)."""

    def __init__(self, encode: EncodeFn, model: str, path: str | Path | None = None) -> None:
        self.encode = encode
        self.model = model
        self.memory: dict[str, np.ndarray] = {}
        self.db: sqlite3.Connection | None = None
        if path is not None:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(str(path))
            self.db.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, dim INTEGER, data BLOB)")
        self.hits = 0
        self.misses = 0

    def get(self, batch: Sequence[Sequence[str]]) -> list[np.ndarray]:
        keys = [_key(self.model, words) for words in batch]
        out: list[np.ndarray | None] = [self.memory.get(k) for k in keys]
        todo = [i for i, v in enumerate(out) if v is None]
        if todo and self.db is not None:
            for i in list(todo):
                row = self.db.execute("SELECT dim, data FROM vec WHERE key = ?", (keys[i],)).fetchone()
                if row is not None:
                    vec = np.frombuffer(row[1], dtype=np.float16).reshape(-1, row[0]).astype(np.float32)
                    out[i] = self.memory[keys[i]] = vec
            todo = [i for i in todo if out[i] is None]
        self.hits += len(batch) - len(todo)
        self.misses += len(todo)
        if todo:
            # Encode only distinct word lists (augmented sets repeat sentences).
            unique = list(dict.fromkeys(keys[i] for i in todo))
            first = {keys[i]: i for i in reversed(todo)}
            vectors = self.encode([list(batch[first[k]]) for k in unique])
            for k, vec in zip(unique, vectors, strict=True):
                vec = np.asarray(vec, dtype=np.float32)
                self.memory[k] = vec
                if self.db is not None:
                    self.db.execute("INSERT OR REPLACE INTO vec VALUES (?, ?, ?)",
                                    (k, int(vec.shape[1]), vec.astype(np.float16).tobytes()))
            if self.db is not None:
                self.db.commit()
            for i in todo:
                out[i] = self.memory[keys[i]]
        return [v for v in out if v is not None]

    def close(self) -> None:
        if self.db is not None:
            self.db.close()
            self.db = None


def encoder_word_vectors(encoder: Any) -> EncodeFn:
    """Word vectors from a :class:`paraspan.models.Encoder`: the mean of each word's subword states.

    Words cut off by the encoder's length limit get zero vectors.
    """

    def encode(batch: list[list[str]]) -> list[np.ndarray]:
        out: list[np.ndarray] = [np.zeros((0, encoder.dim), dtype=np.float32)] * len(batch)
        full = [i for i, words in enumerate(batch) if words]  # a sentence without words has no vectors
        for i, states in zip(full, encoder.encode_tokens([batch[i] for i in full]), strict=True):
            words = batch[i]
            vec = np.zeros((len(words), encoder.dim), dtype=np.float32)
            counts = np.zeros(len(words), dtype=np.float32)
            for row, word in enumerate(states.word_ids or []):
                vec[word] += states.states[row]
                counts[word] += 1
            vec /= np.maximum(counts, 1)[:, None]
            out[i] = vec
        return out

    return encode


def open_cache(cache_dir: str | Path | None, encoder_name: str | None = None) -> FeatureCache:
    """The frozen encoder (``paraspan.models.load_encoder``) behind a disk cache in ``cache_dir``."""
    from paraspan.models import load_encoder

    encoder = load_encoder(encoder_name)
    model = str(encoder.resolved.path)
    path = Path(cache_dir) / "word-vectors.sqlite" if cache_dir is not None else None
    return FeatureCache(encoder_word_vectors(encoder), model, path)
