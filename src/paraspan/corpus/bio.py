"""CoNLL-style NER files: one token per line, token first and tag last, blank line between
sentences; tab- or space-separated; IOB1, IOB2 or IOBES tags.

WikiANN prefixes tokens with their language (``en:Sioux``): when every token of a sentence
carries the same 2-3 letter prefix it is stripped and kept in ``meta["lang"]`` (and written
back by :func:`write_bio`). ``-DOCSTART-`` lines are skipped.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.corpus.conll import (
    E_COLUMNS,
    SCHEMES,
    KindsLeftOut,
    TagDecoder,
    clean_cell,
    fail,
    file_stem,
    iob2_tags,
    is_blank,
    iter_raw_lines,
    split_columns,
    tag_spans,
    token_meta,
    warn_counts,
    write_blocks,
)
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import FormatError
from paraspan.text.detok import detokenize

_LANG = re.compile(r"([a-z]{2,3}):(.+)", re.DOTALL)


@dataclass(slots=True)
class _Rows:
    """The token lines of the sentence being read."""

    lines: list[int] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


def _check_scheme(scheme: str) -> str:
    value = scheme.lower()
    if value not in SCHEMES:
        raise FormatError.from_code("E023", scheme=scheme, choices=", ".join(SCHEMES))
    return value


def _strip_lang(tokens: Sequence[str]) -> tuple[list[str], str | None]:
    """Remove a language prefix shared by all tokens (``en:Sioux`` → ``Sioux``)."""
    matches = [_LANG.fullmatch(t) for t in tokens]
    if not all(matches):
        return list(tokens), None
    langs = {m.group(1) for m in matches if m}
    if len(langs) != 1:
        return list(tokens), None
    return [m.group(2) for m in matches if m], langs.pop()


@dataclass(slots=True)
class _Evidence:
    """What the tags of a file have shown so far (for the IOB2 warning)."""

    b_opens: bool = False
    orphans: int = 0
    first_orphans: list[int] = field(default_factory=list)  # a few line numbers (bounded memory)

    def add(self, decoder: TagDecoder) -> None:
        self.b_opens = self.b_opens or decoder.b_opens
        self.orphans += len(decoder.orphans)
        self.first_orphans.extend(decoder.orphans[: 5 - len(self.first_orphans)])

    def warn(self, file: str) -> None:
        # A B- tag that opens a span means IOB2; then an I- that opens one is an annotation
        # error. It is read as a new span (as conlleval does), but the user should know.
        if self.b_opens and self.orphans:
            where = ", ".join(map(str, self.first_orphans)) + (" ..." if self.orphans > 5 else "")
            warnings.warn(f"{file}: {self.orphans} I- tag(s) start a span in an IOB2 file "
                          f"(line {where}); read as new spans — use --scheme iob2 to reject them",
                          stacklevel=3)


def _sentence(rows: _Rows, sid: str, scheme: str, file: str, evidence: _Evidence) -> Sentence:
    decoder = TagDecoder(scheme, file)
    for tag, line in zip(rows.tags, rows.lines, strict=True):
        decoder.feed(tag, line)
    spans = decoder.finish(rows.lines[-1])
    evidence.add(decoder)
    tokens, lang = _strip_lang(rows.tokens)
    text, offsets = detokenize(tokens)
    structures = [
        Structure("entity", label, Span(offsets[first][0], offsets[last][1], None), [])
        for first, last, label in spans
    ]
    meta: dict[str, Any] = {"tokens": token_meta(offsets)}
    if lang is not None:
        meta["lang"] = lang
    return Sentence(sid, text, structures, meta)


def read_bio(path: str | Path, *, scheme: str = "auto") -> Iterator[Sentence]:
    """Stream sentences with one ``entity`` structure per tagged mention.

    ``scheme``: ``auto`` (default) reads IOB1, IOB2 and IOBES alike; ``iob1``, ``iob2`` or
    ``iobes`` also reject tag sequences that break that scheme.
    """
    scheme = _check_scheme(scheme)
    name = str(path)
    stem = file_stem(path)
    sep: str | None = None
    width: int | None = None
    rows = _Rows()
    evidence = _Evidence()
    count = 0
    for number, raw in iter_raw_lines(path, "BIO"):
        if is_blank(raw) or raw.lstrip().startswith("-DOCSTART-"):
            if rows.tokens:
                count += 1
                yield _sentence(rows, f"{stem}:{count}", scheme, name, evidence)
                rows = _Rows()
            continue
        if width is None:  # the first token line fixes the separator and the column count
            sep = "\t" if "\t" in raw else None
        cols = split_columns(raw, sep)
        if len(cols) < 2:
            fail(f"expected a token and a tag, got {len(cols)} column(s): {raw!r}",
                 "write 'token<TAB>tag' (or space-separated); separate sentences by blank lines",
                 name, number, E_COLUMNS)
        if width is None:
            width = len(cols)
        elif len(cols) != width:
            fail(f"expected {width} columns like the file's first token line, got {len(cols)}",
                 "every token line needs the same columns (token first, tag last)", name, number, E_COLUMNS)
        if not cols[0].strip():
            fail("empty token", "the first column holds the token", name, number, E_COLUMNS)
        rows.lines.append(number)
        rows.tokens.append(cols[0])
        rows.tags.append(cols[-1].strip())
    if rows.tokens:
        yield _sentence(rows, f"{stem}:{count + 1}", scheme, name, evidence)
    evidence.warn(name)


# --------------------------------------------------------------------------- writer


def write_bio(sentences: Iterable[Sentence], path: str | Path, *, strict: bool = False) -> int:
    """Write ``token<TAB>tag`` lines with IOB2 tags; return the number of sentences written.

    Structures of other kinds than ``entity`` cannot be written: they are counted in a warning, or,
    with ``strict``, refused (:class:`~paraspan.errors.FormatError`, nothing written)."""
    dropped = {"uncovered": 0, "overlapping": 0}
    left_out = KindsLeftOut("bio", {"entity"}, strict)

    def rows(sentence: Sentence, tokens: list[tuple[int, int]]) -> list[list[str]]:
        left_out.check(sentence)
        if not tokens:
            return []
        spans, uncovered, overlapping = tag_spans(tokens, (
            (s.anchor.start, s.anchor.end, clean_cell(s.label).replace(" ", "_"))
            for s in sentence.structures if s.kind == "entity" and s.anchor is not None))
        dropped["uncovered"] += uncovered
        dropped["overlapping"] += overlapping
        tags = iob2_tags(len(tokens), spans)
        lang = sentence.meta.get("lang")
        prefix = f"{lang}:" if isinstance(lang, str) and lang else ""
        return [[f"{prefix}{clean_cell(sentence.text[s:e])}\t{tag}" for (s, e), tag in zip(tokens, tags, strict=True)]]

    written, retokenized = write_blocks(sentences, path, rows)
    warn_counts("bio", [
        (dropped["overlapping"], "overlapping entit(y/ies) dropped (BIO tags cannot nest; the first one was kept)"),
        (dropped["uncovered"], "entit(y/ies) covering no token were dropped"),
        (retokenized, "sentence(s) had meta['tokens'] that no longer fit the text; they were re-tokenized"),
        *left_out.warnings(),
    ])
    return written
