"""CoNLL-U with PropBank columns (Universal PropBank, e.g. English EWT).

Columns 1-10 are CoNLL-U; column 11 is the predicate sense (``come.03`` or ``_``); then one
argument column per predicate, in the order the predicates appear. An argument is marked on
its head word; its span is the head's dependency subtree (contiguous hull), cut at the
predicate when it would cover it (see :meth:`paraspan.corpus.conll.DepTree.arg_hull`).

Multiword-token lines (``1-2``) give the surface form; empty nodes (``8.1``) are skipped.
Sentences that Universal PropBank left unannotated (``# propbank = no-up``) have empty
sense/argument cells and come out with no structures.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paraspan.corpus.conll import (
    E_ARGCOLS,
    E_COLUMNS,
    E_EMPTY,
    E_HEAD,
    E_INDEX,
    Block,
    DepTree,
    align_tokens,
    check_heads,
    conllu_meta,
    fail,
    file_stem,
    head_arg_spans,
    iter_blocks,
    parse_int,
)
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.text.detok import detokenize

_NONE = ("_", "")  # empty cells: '_' in CoNLL-U, '' in the no-up sentences of Universal PropBank


@dataclass(slots=True)
class _Word:
    line: int
    form: str
    lemma: str
    upos: str
    xpos: str
    head: int
    deprel: str
    space_after: bool
    sense: str
    args: list[str]


@dataclass(slots=True)
class _Surface:
    """A surface token: one word, or a multiword token over words ``first..last`` (0-based)."""

    line: int
    form: str
    first: int
    last: int
    space_after: bool


@dataclass(slots=True)
class _Parsed:
    words: list[_Word] = field(default_factory=list)
    surface: list[_Surface] = field(default_factory=list)
    comments: dict[str, str] = field(default_factory=dict)
    text: str | None = None
    sent_id: str | None = None


def _space_after(misc: str) -> bool:
    return "SpaceAfter=No" not in misc.split("|")


def _parse_comments(block: Block, parsed: _Parsed) -> None:
    for _, raw in block.comments:
        body = raw[1:].strip()
        key, eq, value = body.partition("=")
        key, value = key.strip(), value.strip() if eq else ""
        if key == "text" and eq:
            parsed.text = raw.split("=", 1)[1].strip()
        elif key == "sent_id" and eq:
            parsed.sent_id = value
        elif key:
            parsed.comments[key] = value


def _parse_rows(block: Block, file: str) -> _Parsed:
    parsed = _Parsed()
    _parse_comments(block, parsed)
    mwt_until = 0  # last word index (1-based) covered by the current multiword token
    width: int | None = None
    for row in block.rows:
        cols = row.cols
        if len(cols) < 11:
            fail(f"expected at least 11 tab-separated columns (10 CoNLL-U + predicate sense), got {len(cols)}",
                 "rows are ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC SENSE ARG1..ARGn",
                 file, row.line, E_COLUMNS)
        ident = cols[0]
        if "." in ident:  # empty node (enhanced graphs only): not a word of the sentence
            continue
        if "-" in ident:
            first_s, _, last_s = ident.partition("-")
            first = parse_int(first_s, file=file, line=row.line, what="a multiword token range")
            last = parse_int(last_s, file=file, line=row.line, what="a multiword token range")
            if first != len(parsed.words) + 1 or last < first:
                fail(f"multiword token range {ident} out of sequence",
                     f"it should start at word {len(parsed.words) + 1}", file, row.line, E_INDEX)
            parsed.surface.append(_Surface(row.line, cols[1], first - 1, last - 1, _space_after(cols[9])))
            mwt_until = last
            continue
        index = parse_int(ident, file=file, line=row.line, what="the word ID")
        if index != len(parsed.words) + 1:
            fail(f"word ID {index} out of sequence (expected {len(parsed.words) + 1})",
                 "number the words of a sentence 1, 2, 3, ... without gaps", file, row.line, E_INDEX)
        if width is None:
            width = len(cols)
        elif len(cols) != width:
            fail(f"expected {width} columns like the sentence's first word, got {len(cols)}",
                 "every word needs one argument column per predicate", file, row.line, E_ARGCOLS)
        if not cols[1]:
            fail("empty FORM column", "every word needs a form", file, row.line, E_EMPTY)
        head = parse_int(cols[6], file=file, line=row.line, what="HEAD", code=E_HEAD)
        word = _Word(row.line, cols[1], cols[2], cols[3], cols[4], head, cols[7], _space_after(cols[9]),
                     cols[10], cols[11:])
        parsed.words.append(word)
        if index > mwt_until:
            parsed.surface.append(_Surface(row.line, word.form, index - 1, index - 1, word.space_after))
    if mwt_until > len(parsed.words):
        fail(f"multiword token reaches word {mwt_until} but the sentence has {len(parsed.words)} words",
             "fix the range or add the missing words", file, block.rows[-1].line, E_INDEX)
    return parsed


def _predicates(words: Sequence[_Word], file: str) -> list[int]:
    """Indices of the predicate words, checked against the number of argument columns."""
    preds = [i for i, w in enumerate(words) if w.sense not in _NONE]
    ncols = len(words[0].args) if words else 0
    if ncols == len(preds):
        return preds
    # Unannotated sentences keep one trailing, empty argument column.
    if not preds and all(a == "" for w in words for a in w.args):
        return preds
    if len(preds) > ncols:
        extra = words[preds[ncols]]
        fail(f"predicate {extra.sense!r} is predicate {ncols + 1} but the sentence has only {ncols} "
             "argument column(s)", "add one argument column per predicate (or set its sense to '_')",
             file, extra.line, E_ARGCOLS)
    fail(f"{ncols} argument columns but {len(preds)} predicate(s) in the sense column",
         "keep exactly one argument column per predicate, in order", file, words[0].line, E_ARGCOLS)


def _word_offsets(parsed: _Parsed, file: str) -> tuple[str, list[tuple[int, int]]]:
    """The sentence text and one ``(start, end)`` per word."""
    surface = parsed.surface
    if parsed.text is not None:
        text = parsed.text
        spans = align_tokens([s.form for s in surface], text, file=file, lines=[s.line for s in surface])
    else:
        text, spans = detokenize([s.form for s in surface], [s.space_after for s in surface])
    offsets: list[tuple[int, int]] = []
    for token, (start, end) in zip(surface, spans, strict=True):
        forms = [w.form for w in parsed.words[token.first : token.last + 1]]
        offsets.extend(_split_mwt(text, start, end, forms))
    return text, offsets


def _split_mwt(text: str, start: int, end: int, forms: Sequence[str]) -> list[tuple[int, int]]:
    """Offsets of the words of one surface token; words that do not spell it share its span."""
    if len(forms) == 1:
        return [(start, end)]
    out: list[tuple[int, int]] = []
    pos = start
    for form in forms:
        if not text.startswith(form, pos) or pos + len(form) > end:
            return [(start, end)] * len(forms)  # e.g. French "du" = "de" + "le"
        out.append((pos, pos + len(form)))
        pos += len(form)
    return out if pos == end else [(start, end)] * len(forms)


def _structures(
    words: Sequence[_Word], preds: Sequence[int], offsets: Sequence[tuple[int, int]], trim: bool
) -> list[Structure]:
    tree = DepTree.from_conll_heads([w.head for w in words])
    upos = [w.upos for w in words] if trim else None
    out: list[Structure] = []
    for k, p in enumerate(preds):
        pred = words[p]
        anchor = Span(offsets[p][0], offsets[p][1], pred.lemma if pred.lemma not in _NONE else pred.form)
        # V marks the predicate itself, not an argument.
        args = head_arg_spans([w.args[k] for w in words], p, tree, offsets, upos, (*_NONE, "V"))
        out.append(Structure("srl", pred.sense, anchor, args))
    return out


def _meta(words: Sequence[_Word], offsets: Sequence[tuple[int, int]], comments: dict[str, str]) -> dict[str, Any]:
    meta = conllu_meta(offsets, lemma=[w.lemma for w in words], upos=[w.upos for w in words],
                       xpos=[w.xpos for w in words], head=[w.head for w in words], deprel=[w.deprel for w in words])
    if comments:
        meta["comments"] = comments
    return meta


def read_conllu_srl(path: str | Path, *, trim_punct: bool = False) -> Iterator[Sentence]:
    """Stream sentences with one ``srl`` structure per predicate.

    ``trim_punct``: drop punctuation at the edges of argument spans (UD attaches commas and
    quotes to heads, so subtree spans often start or end with them).
    """
    name = str(path)
    stem = file_stem(path)
    for n, block in enumerate(iter_blocks(path, sep="\t", comments=True, what="CoNLL-U"), start=1):
        if not block.rows:
            fail("comment lines without a sentence", "every comment block must be followed by word lines",
                 name, block.line, E_EMPTY)
        parsed = _parse_rows(block, name)
        if not parsed.words:
            fail("sentence without words (only multiword-token or empty-node lines)",
                 "every sentence needs word lines 1, 2, ...", name, block.line, E_EMPTY)
        check_heads([w.head for w in parsed.words], [w.line for w in parsed.words], name, "word")
        preds = _predicates(parsed.words, name)
        text, offsets = _word_offsets(parsed, name)
        yield Sentence(
            parsed.sent_id or f"{stem}:{n}",
            text,
            _structures(parsed.words, preds, offsets, trim_punct),
            _meta(parsed.words, offsets, parsed.comments),
        )
