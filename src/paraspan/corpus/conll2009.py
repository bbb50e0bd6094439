"""CoNLL-2009 SRL (dependency-based PropBank/NomBank).

Columns: ID FORM LEMMA PLEMMA POS PPOS FEAT PFEAT HEAD PHEAD DEPREL PDEPREL FILLPRED PRED
APRED1..APREDn, one APRED column per predicate (rows with FILLPRED = Y), in order. Arguments
are marked on head words; spans are head subtrees as for CoNLL-U (see
:meth:`paraspan.corpus.conll.DepTree.arg_hull`). Gold columns are used, the predicted ones
(PLEMMA, PPOS, PHEAD, PDEPREL) only where the gold cell is ``_``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
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

_FIXED = 14  # columns before the APRED columns
# Penn Treebank punctuation tags, for trim_punct (CoNLL-2009 English has no UPOS).
_PTB_PUNCT = {",", ".", ":", "``", "''", "-LRB-", "-RRB-", "(", ")", "#", "HYPH", "NFP"}


@dataclass(slots=True)
class _Word:
    line: int
    form: str
    lemma: str
    pos: str
    head: int
    deprel: str
    is_pred: bool
    sense: str
    args: list[str]


def _gold(gold: str, predicted: str) -> str:
    return predicted if gold == "_" else gold


def _parse_word(cols: list[str], line: int, expected: int, file: str) -> _Word:
    index = parse_int(cols[0], file=file, line=line, what="the token ID")
    if index != expected:
        fail(f"token ID {index} out of sequence (expected {expected})",
             "number the tokens of a sentence 1, 2, 3, ... without gaps", file, line, E_INDEX)
    if not cols[1]:
        fail("empty FORM column", "every token needs a form", file, line, E_EMPTY)
    head_cell = _gold(cols[8], cols[9])
    head = parse_int(head_cell, file=file, line=line, what="HEAD (or PHEAD)", code=E_HEAD)
    fillpred = cols[12]
    if fillpred not in ("Y", "_", ""):
        fail(f"FILLPRED must be 'Y' or '_', got {fillpred!r}", "check that the columns are not shifted",
             file, line, E_COLUMNS)
    return _Word(line, cols[1], _gold(cols[2], cols[3]), _gold(cols[4], cols[5]), head,
                 _gold(cols[10], cols[11]), fillpred == "Y" or cols[13] != "_", cols[13], cols[_FIXED:])


def _parse_block(block: Block, file: str) -> list[_Word]:
    words: list[_Word] = []
    width: int | None = None
    for row in block.rows:
        if len(row.cols) < _FIXED:
            fail(f"expected at least {_FIXED} columns (ID ... FILLPRED PRED) + one APRED per predicate, "
                 f"got {len(row.cols)}", "CoNLL-2009 rows are tab-separated with 14 fixed columns",
                 file, row.line, E_COLUMNS)
        if width is None:
            width = len(row.cols)
        elif len(row.cols) != width:
            fail(f"expected {width} columns like the sentence's first token, got {len(row.cols)}",
                 "every token needs one APRED column per predicate", file, row.line, E_ARGCOLS)
        words.append(_parse_word(row.cols, row.line, len(words) + 1, file))
    check_heads([w.head for w in words], [w.line for w in words], file, "token")
    return words


def _predicates(words: Sequence[_Word], file: str) -> list[int]:
    preds = [i for i, w in enumerate(words) if w.is_pred]
    ncols = len(words[0].args)
    if ncols == len(preds):
        return preds
    if len(preds) > ncols:
        extra = words[preds[ncols]]
        fail(f"predicate {ncols + 1} ({extra.form!r}) has no APRED column: the sentence has {ncols}",
             "add one APRED column per predicate (FILLPRED = Y)", file, extra.line, E_ARGCOLS)
    fail(f"{ncols} APRED columns but {len(preds)} predicate(s) (FILLPRED = Y)",
         "keep exactly one APRED column per predicate, in order", file, words[0].line, E_ARGCOLS)


def _structures(words: Sequence[_Word], preds: Sequence[int], offsets: Sequence[tuple[int, int]],
                trim: bool) -> list[Structure]:
    tree = DepTree.from_conll_heads([w.head for w in words])
    punct = ["PUNCT" if w.pos in _PTB_PUNCT else w.pos for w in words] if trim else None
    out: list[Structure] = []
    for k, p in enumerate(preds):
        pred = words[p]
        lemma = pred.lemma if pred.lemma != "_" else pred.form
        label = pred.sense if pred.sense != "_" else lemma  # test sets may leave PRED empty
        args = head_arg_spans([w.args[k] for w in words], p, tree, offsets, punct, ("_", ""))
        out.append(Structure("srl", label, Span(offsets[p][0], offsets[p][1], lemma), args))
    return out


def _meta(words: Sequence[_Word], offsets: Sequence[tuple[int, int]]) -> dict[str, Any]:
    # Same layout as the CoNLL-U reader's (no UPOS here: POS is the treebank tag).
    return conllu_meta(offsets, lemma=[w.lemma for w in words], xpos=[w.pos for w in words],
                       head=[w.head for w in words], deprel=[w.deprel for w in words])


def read_conll2009(path: str | Path, *, trim_punct: bool = False) -> Iterator[Sentence]:
    """Stream sentences with one ``srl`` structure per predicate."""
    name = str(path)
    stem = file_stem(path)
    for n, block in enumerate(iter_blocks(path, sep="\t", what="CoNLL-2009"), start=1):
        words = _parse_block(block, name)
        preds = _predicates(words, name)
        text, offsets = detokenize([w.form for w in words])
        yield Sentence(f"{stem}:{n}", text, _structures(words, preds, offsets, trim_punct), _meta(words, offsets))
