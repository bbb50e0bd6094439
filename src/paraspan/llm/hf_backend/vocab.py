"""A transformers tokenizer's vocabulary as byte pieces, the form the sampling guard reads."""


from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

_BYTE_TOKEN_RE = re.compile(r"<0x([0-9A-Fa-f]{2})>")



def _unicode_to_bytes() -> dict[str, int]:
    """The inverse of GPT-2's byte ↔ printable-character table (byte-level BPE vocabularies)."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1))
                 + list(range(ord("®"), ord("ÿ") + 1)))
    chars = list(printable)
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            chars.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, chars, strict=True)}


def _decoder_kinds(tokenizer: Any) -> set[str]:
    """The decoder types of a fast tokenizer (``ByteLevel``, ``ByteFallback``, ``Metaspace``, …)."""
    decoder = getattr(getattr(tokenizer, "backend_tokenizer", None), "decoder", None)
    if decoder is None:
        return set()
    try:
        data = json.loads(decoder.__getstate__())
    except Exception:  # an unusual decoder: its class name is all we know
        return {type(decoder).__name__}
    kinds: set[str] = set()
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            kinds.add(str(item.get("type")))
            stack.extend(item.get("decoders") or [])
    return kinds


def token_pieces(tokenizer: Any, n_vocab: int) -> tuple[list[bytes], np.ndarray]:
    """Each token id's bytes (``b""`` for special tokens), and which ids are special.

    Bytes, not text: a byte-level token may hold half a UTF-8 character, and the sampler
    assembles text from pieces as llama.cpp does. Ids past the tokenizer (model vocabularies are
    often padded) count as special: they are never sampled.
    """
    size = min(len(tokenizer), n_vocab)
    tokens = tokenizer.convert_ids_to_tokens(list(range(size)))
    kinds = _decoder_kinds(tokenizer)
    table = _unicode_to_bytes() if "ByteLevel" in kinds else None
    metaspace = table is None and ("Metaspace" in kinds or "Replace" in kinds
                                   or (not kinds and any(t and t.startswith("\u2581") for t in tokens[:1000])))
    added = getattr(tokenizer, "added_tokens_decoder", {}) or {}
    special = np.zeros(n_vocab, dtype=bool)
    special[size:] = True
    pieces: list[bytes] = [b""] * n_vocab
    unknown: list[int] = []
    for token, text in enumerate(tokens):
        extra = added.get(token)
        if text is None:
            special[token] = True
        elif extra is not None:
            if getattr(extra, "special", False):
                special[token] = True
            else:
                pieces[token] = str(extra.content).encode("utf-8")
        elif "ByteFallback" in kinds and _BYTE_TOKEN_RE.fullmatch(text):
            pieces[token] = bytes([int(text[3:5], 16)])
        elif table is not None and all(c in table for c in text):
            pieces[token] = bytes(table[c] for c in text)
        elif metaspace:
            pieces[token] = text.replace("\u2581", " ").encode("utf-8")
        else:
            unknown.append(token)
    if unknown:  # a vocabulary we cannot map ourselves (word-level, …): ask the tokenizer
        texts = tokenizer.batch_decode([[t] for t in unknown], skip_special_tokens=False,
                                       clean_up_tokenization_spaces=False)
        for token, text in zip(unknown, texts, strict=True):
            pieces[token] = text.encode("utf-8")
    return pieces, special


def _ids(value: Any) -> list[int]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value if v is not None]
    return [int(value)]


def _dtype_kwarg() -> str:
    """transformers 4.56 renamed ``torch_dtype`` to ``dtype`` (the old name warns)."""
    import transformers

    major, minor = (int(part) for part in re.findall(r"\d+", transformers.__version__)[:2])
    return "dtype" if (major, minor) >= (4, 56) else "torch_dtype"

