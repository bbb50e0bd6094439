"""spaCy DocBin output, so that spaCy trainers can consume (augmented) corpora directly.

* entity structures → ``doc.ents`` (non-overlapping; the first of overlapping ones wins);
* every structure's anchor → ``doc.spans[kind]`` (label = structure label), its arguments →
  ``doc.spans[kind + "_args"]`` (label = argument label);
* the whole sentence dict → ``doc.user_data["paraspan"]``, so nothing is lost
  (DocBin's msgpack hands lists back as tuples: :func:`sentence_from_doc` undoes that).

Tokens come from ``meta["tokens"]`` when they fit the text, else from ``spacy.blank("en")``.
spaCy is imported only when this writer runs.
"""

from __future__ import annotations

import contextlib
import re
import sys
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paraspan.corpus.conll import valid_token_offsets
from paraspan.corpus.jsonl import atomic_write
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from spacy.tokens import Doc
    from spacy.vocab import Vocab

_PIECE = re.compile(r"\S+|\s+")


@contextlib.contextmanager
def fast_msgpack() -> Iterator[None]:
    """Serialize and read spaCy ``Doc`` objects without re-scanning every installed package.

    srsly looks up its msgpack en/decoders anew for every packed or unpacked object
    (``catalogue.Registry.get_all``: a pass over all installed entry points and over every
    registered function), about 1 ms each; with one ``DocBin`` entry per short sentence that was
    two thirds of a spaCy NER training run here. Inside this block the lookup is done once and
    its result reused; nothing registers en/decoders meanwhile, so the result is the same.
    """
    import srsly.msgpack as smp

    registries = [smp.msgpack_encoders, smp.msgpack_decoders]
    saved = [reg.__dict__.get("get_all") for reg in registries]
    for reg in registries:
        found = reg.get_all()
        reg.get_all = lambda found=found: dict(found)  # type: ignore[method-assign]
    try:
        yield
    finally:
        for reg, old in zip(registries, saved, strict=True):
            if old is None:
                del reg.get_all
            else:
                reg.get_all = old  # type: ignore[method-assign]


@dataclass(slots=True)
class _Stats:
    overlapping_ents: int = 0
    unaligned: int = 0


def _words_and_spaces(text: str, tokens: Sequence[tuple[int, int]]) -> tuple[list[str], list[bool]]:
    """spaCy words/spaces that spell ``text`` exactly, using ``tokens`` as the word boundaries.

    A single space after a word becomes its ``whitespace_``; other gaps become whitespace
    tokens (as spaCy's own tokenizer does), and uncovered non-space text becomes words.
    """
    pieces: list[str] = []
    pos = 0
    for start, end in tokens:
        if start > pos:
            pieces.extend(_PIECE.findall(text[pos:start]))
        pieces.append(text[start:end])
        pos = end
    if pos < len(text):
        pieces.extend(_PIECE.findall(text[pos:]))
    words: list[str] = []
    spaces: list[bool] = []
    for piece in pieces:
        if words and not spaces[-1] and not words[-1].isspace() and piece[0] == " ":
            spaces[-1] = True  # one space after a word is that word's trailing whitespace
            piece = piece[1:]
            if not piece:
                continue
        words.append(piece)
        spaces.append(False)
    return words, spaces


def _doc(nlp: Any, vocab: Vocab, sentence: Sentence) -> Doc:
    from spacy.tokens import Doc

    tokens = valid_token_offsets(sentence.meta.get("tokens"), sentence.text)
    if tokens is None:
        return nlp.make_doc(sentence.text)
    words, spaces = _words_and_spaces(sentence.text, tokens)
    doc = Doc(vocab, words=words, spaces=spaces)
    assert doc.text == sentence.text  # the pieces cover the text exactly
    return doc


def _char_span(doc: Doc, span: Span, label: str, stats: _Stats) -> Any:
    result = doc.char_span(span.start, span.end, label=label, alignment_mode="expand")
    if result is None or len(result) == 0:
        stats.unaligned += 1
        return None
    return result


def _set_ents(doc: Doc, structures: Sequence[Structure], stats: _Stats) -> None:
    ents: list[Any] = []
    taken: list[tuple[int, int]] = []
    for structure in structures:
        if structure.kind != "entity" or structure.anchor is None:
            continue
        ent = _char_span(doc, structure.anchor, structure.label, stats)
        if ent is None:
            continue
        if any(ent.start < e and s < ent.end for s, e in taken):
            stats.overlapping_ents += 1
            continue
        taken.append((ent.start, ent.end))
        ents.append(ent)
    doc.ents = sorted(ents, key=lambda e: e.start)


def _set_spans(doc: Doc, structures: Sequence[Structure], stats: _Stats) -> None:
    groups: dict[str, list[Any]] = {}
    for structure in structures:
        if structure.anchor is not None:
            anchor = _char_span(doc, structure.anchor, structure.label, stats)
            if anchor is not None:
                groups.setdefault(structure.kind, []).append(anchor)
        for arg in structure.args:
            span = _char_span(doc, arg, arg.label or "", stats)
            if span is not None:
                groups.setdefault(f"{structure.kind}_args", []).append(span)
    for key, spans in groups.items():
        doc.spans[key] = spans


def sentence_doc(nlp: Any, sentence: Sentence) -> Doc:
    """``sentence`` as a spaCy ``Doc`` of ``nlp``'s vocab, labelled as :func:`write_docbin` labels it
    (entities in ``doc.ents``, every structure's spans in ``doc.spans``); spans covering no token are left out."""
    doc = _doc(nlp, nlp.vocab, sentence)
    stats = _Stats()
    _set_ents(doc, sentence.structures, stats)
    _set_spans(doc, sentence.structures, stats)
    return doc


def write_docbin(sentences: Iterable[Sentence], path: str | Path) -> int:
    """Write a ``.spacy`` DocBin; return the number of sentences (docs) written."""
    import spacy
    from spacy.tokens import DocBin

    nlp = spacy.blank("en")
    nlp.max_length = 10**9  # the limit guards the parser's memory; a blank pipeline only tokenizes
    stats = _Stats()
    docbin = DocBin(store_user_data=True)
    count = 0
    for sentence in sentences:
        doc = _doc(nlp, nlp.vocab, sentence)
        _set_ents(doc, sentence.structures, stats)
        _set_spans(doc, sentence.structures, stats)
        doc.user_data["paraspan"] = sentence.to_dict()
        docbin.add(doc)
        count += 1
    data = docbin.to_bytes()
    if str(path) == "-":
        sys.stdout.buffer.write(data)
    else:
        with atomic_write(path, "wb") as handle:
            handle.write(data)
    if stats.overlapping_ents:
        warnings.warn(f"docbin: {stats.overlapping_ents} overlapping entit(y/ies) left out of doc.ents "
                      "(they are still in doc.spans['entity'])", stacklevel=2)
    if stats.unaligned:
        warnings.warn(f"docbin: {stats.unaligned} span(s) covering no token were left out", stacklevel=2)
    return count


# --------------------------------------------------------------------------- reading back


def _lists(value: Any) -> Any:
    """Undo msgpack's tuples so that the stored dict is the JSON one again."""
    if isinstance(value, (list, tuple)):
        return [_lists(v) for v in value]
    if isinstance(value, dict):
        return {k: _lists(v) for k, v in value.items()}
    return value


def sentence_from_doc(doc: Doc, sid: str) -> Sentence:
    """The stored sentence, or one built from ``doc.ents`` when the doc has none stored."""
    stored = doc.user_data.get("paraspan")
    if isinstance(stored, dict):
        return Sentence.from_dict(_lists(stored))
    structures = [Structure("entity", e.label_, Span(e.start_char, e.end_char)) for e in doc.ents]
    tokens = [[t.idx, t.idx + len(t.text)] for t in doc if not t.is_space]
    return Sentence(sid, doc.text, structures, {"tokens": tokens})


def read_docbin(path: str | Path) -> Iterator[Sentence]:
    """Stream the sentences of a DocBin written by :func:`write_docbin` (or any DocBin: entities)."""
    import spacy
    from spacy.tokens import DocBin

    target = Path(path)
    if not target.is_file():
        raise CorpusError.from_code("E010", file=str(path), what="file", fix="check the path")
    try:
        docbin = DocBin().from_disk(target)
    except Exception as exc:  # zlib/msgpack/spaCy each raise their own kind on a bad file
        raise CorpusError.from_code("E013", file=str(path), exc=exc) from None
    stem = target.name.split(".")[0] or target.name
    for n, doc in enumerate(docbin.get_docs(spacy.blank("en").vocab), start=1):
        try:
            yield sentence_from_doc(doc, f"{stem}:{n}")
        except CorpusError as exc:
            raise CorpusError(f"doc {n}: {exc.problem.message}", exc.problem.hint, file=str(path),
                              code=exc.code) from None
