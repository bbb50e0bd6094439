"""Readers and writers, registered by format name.

A reader is ``read(path, **options) -> Iterator[Sentence]``; a writer is
``write(sentences, path, **options) -> int`` (sentences written). Both are registered here as
``"module:function"`` strings, so nothing heavy (lxml, spaCy) is imported until a format is used.
Other packages can add formats through the ``paraspan.readers`` / ``paraspan.writers`` entry points.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from paraspan.corpus.schema import Sentence
from paraspan.errors import FormatError
from paraspan.registry import Registry

Reader = Callable[..., Iterator[Sentence]]
Writer = Callable[..., int]


READERS: Registry[Reader] = Registry("readers")
READERS.register("jsonl", "paraspan.corpus.jsonl:read_jsonl", "paraspan's own JSONL (the corpus schema)")
READERS.register("framenet", "paraspan.corpus.framenet:read_framenet",
                 "FrameNet XML release (folder or .tar.gz): full text, --split/--splits, --exemplars")
READERS.register("opensesame", "paraspan.corpus.opensesame:read_opensesame",
                 "open-sesame CoNLL (FrameNet 1.7; token, LU, frame, BIO frame elements)")
READERS.register("conllu-srl", "paraspan.corpus.conllu_srl:read_conllu_srl",
                 "CoNLL-U with PropBank columns (Universal PropBank)")
READERS.register("conll2009", "paraspan.corpus.conll2009:read_conll2009", "CoNLL-2009 SRL")
READERS.register("bio", "paraspan.corpus.bio:read_bio", "CoNLL NER (IOB/IOB2/IOBES), tab or space separated")
READERS.register("docbin", "paraspan.corpus.docbin:read_docbin", "spaCy DocBin written by paraspan (lossless)")
READERS.register("hf", "paraspan.corpus.hf:read_hf",
                 "Hugging Face datasets folder (save_to_disk): tokens, ner_tags, role rows; needs paraspan[hf]")


def readers() -> Registry[Reader]:
    """The registry (built once; entry points are scanned on first use)."""
    return READERS


WRITERS: Registry[Writer] = Registry("writers")
WRITERS.register("jsonl", "paraspan.corpus.jsonl:write_jsonl", "paraspan's own JSONL (the corpus schema)")
WRITERS.register("bio", "paraspan.corpus.bio:write_bio", "CoNLL NER, IOB2 tags of entity structures")
WRITERS.register("opensesame", "paraspan.corpus.opensesame:write_opensesame",
                 "open-sesame CoNLL, one block per frame/srl structure")
WRITERS.register("docbin", "paraspan.corpus.docbin:write_docbin",
                 "spaCy DocBin (entities in doc.ents, all spans in doc.spans)")
WRITERS.register("hf", "paraspan.corpus.hf:write_hf",
                 "Hugging Face datasets folder: a row per sentence (NER) or per frame/predicate; needs paraspan[hf]")


def writers() -> Registry[Writer]:
    """The registry (built once; entry points are scanned on first use)."""
    return WRITERS


def _call(func: Callable[..., Any], fmt: str, role: str, args: tuple[Any, ...], options: dict[str, Any]) -> Any:
    options = {k: v for k, v in options.items() if v is not None and v is not False}
    params = inspect.signature(func).parameters
    accepts_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    unknown = [k for k in options if k not in params and not accepts_any]
    if unknown:
        flags = ", ".join("--" + k.replace("_", "-") for k in unknown)
        raise FormatError.from_code("E020", flags=flags, role=role, fmt=fmt)
    return func(*args, **options)


def read_corpus(path: str | Path, fmt: str = "jsonl", **options: Any) -> Iterator[Sentence]:
    """Stream sentences from ``path`` in format ``fmt``."""
    reader = readers().get(fmt)
    return _call(reader, fmt, "reader", (path,), options)


def write_corpus(sentences: Iterable[Sentence], path: str | Path, fmt: str = "jsonl", **options: Any) -> int:
    """Write sentences to ``path`` in format ``fmt``; return the number written."""
    writer = writers().get(fmt)
    return _call(writer, fmt, "writer", (sentences, path), options)


#: File-name endings of the token and XML formats: such a file is never read as JSONL by default.
_NOT_JSONL = (".conll", ".conllx", ".conll09", ".conll2009", ".tsv", ".xml", ".tar", ".tgz", ".tar.gz",
              ".tar.bz2", ".tar.xz", ".zip", ".spacy", ".gz")


def not_jsonl(path: str | Path) -> bool:
    """Whether the name of ``path`` says it holds something other than JSONL (``demo.conll``)."""
    name = Path(path).name.lower()
    return name.endswith(_NOT_JSONL) and not name.endswith((".jsonl.gz", ".ndjson.gz"))


#: The structure kinds each built-in writer can hold (a writer not listed holds every kind).
KINDS_HELD: dict[str, frozenset[str]] = {
    "bio": frozenset({"entity"}),
    "opensesame": frozenset({"frame", "srl"}),
}


def kinds_held(fmt: str) -> frozenset[str] | None:
    """The structure kinds writer ``fmt`` can hold; None when it holds them all."""
    return KINDS_HELD.get(fmt)


def guess_format(path: str | Path) -> str | None:
    """A format name from the file name, or None when it cannot be told."""
    location = Path(path)
    name = location.name.lower()
    if location.is_dir():  # a FrameNet release folder (or the folder it was unpacked into)
        inner = [location, *(p for p in location.iterdir() if p.is_dir())] if str(path) != "-" else []
        release = any((p / sub).is_dir() for p in inner for sub in ("fulltext", "lu", "frame"))
        return "framenet" if release else None
    if name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
        return "jsonl"
    if name.endswith((".spacy", ".docbin")):
        return "docbin"
    if name.endswith(".conllu"):
        return "conllu-srl"
    if name.endswith((".tar.gz", ".tgz", ".tar", ".tar.bz2", ".tar.xz")) and "fndata" in name:
        return "framenet"
    if name.endswith((".bio", ".iob", ".iob2", ".bioes")):
        return "bio"
    return None
