"""open-sesame CoNLL (FrameNet 1.7 as used by the open-sesame parser).

One block per frame instance; consecutive blocks over the same tokens are one sentence.
Two layouts are read:

* 5 columns: ``index  token  LU  frame  FE`` (FE = BIO frame-element tag);
* the full 15-column open-sesame layout: LU in column 12, frame in 13, FE in 15.

The target (anchor) is the run of tokens carrying the LU. As in the FrameNet XML reader, a
discontinuous target ("chemical ... weapons" for *chemical weapon.n*) keeps its first contiguous
piece as the anchor and records the further pieces in the structure's ``anchor_rest``
(``[[start, end], ...]``, character offsets).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from paraspan.corpus.conll import (
    E_ANCHOR,
    E_COLUMNS,
    E_EMPTY,
    E_INDEX,
    Block,
    KindsLeftOut,
    TagDecoder,
    clean_cell,
    covering_tokens,
    fail,
    file_stem,
    iob2_tags,
    iter_blocks,
    parse_int,
    tag_spans,
    token_meta,
    warn_counts,
    write_blocks,
)
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.text.detok import detokenize


@dataclass(frozen=True, slots=True)
class _Layout:
    """0-based column positions of one open-sesame layout."""

    width: int
    token: int
    lu: int
    frame: int
    fe: int


_LAYOUTS = {5: _Layout(5, 1, 2, 3, 4), 15: _Layout(15, 1, 11, 12, 14)}


@dataclass(slots=True)
class _FrameBlock:
    """One parsed block: its tokens and one frame over token indices."""

    line: int
    tokens: tuple[str, ...]
    lu: str
    frame: str
    target: list[int]
    fes: list[tuple[int, int, str]]


@dataclass(slots=True)
class _Pending:
    """The sentence being assembled from consecutive blocks."""

    tokens: tuple[str, ...]
    text: str
    offsets: list[tuple[int, int]]
    structures: list[Structure] = field(default_factory=list)


def _layout(width: int, file: str, line: int) -> _Layout:
    layout = _LAYOUTS.get(width)
    if layout is None:
        fail(f"expected 5 or 15 tab-separated columns, got {width}",
             "open-sesame rows are: index, token, LU, frame, FE tag (or the 15-column layout)",
             file, line, E_COLUMNS)
    return layout


def _parse_block(block: Block, layout: _Layout | None, file: str) -> tuple[_FrameBlock, _Layout]:
    first = block.rows[0]
    layout = layout or _layout(len(first.cols), file, first.line)
    tokens: list[str] = []
    decoder = TagDecoder("auto", file)
    target: list[int] = []
    lus: set[str] = set()
    frames: set[str] = set()
    base: int | None = None
    for i, row in enumerate(block.rows):
        cols = row.cols
        if len(cols) != layout.width:
            fail(f"expected {layout.width} tab-separated columns, got {len(cols)}",
                 "every row of the file must have the same columns (token, LU, frame, FE tag)",
                 file, row.line, E_COLUMNS)
        index = parse_int(cols[0], file=file, line=row.line, what="the token index")
        base = index if base is None else base
        if index != base + i or base not in (0, 1):
            fail(f"token index {index} out of sequence (expected {base + i if i else 0})",
                 "number the tokens of a block 0, 1, 2, ... without gaps", file, row.line, E_INDEX)
        token = cols[layout.token]
        if not token.strip():
            fail("empty token", "every row needs a token in column 2", file, row.line, E_EMPTY)
        tokens.append(token)
        if cols[layout.lu] not in ("_", ""):
            target.append(i)
            lus.add(cols[layout.lu])
        if cols[layout.frame] not in ("_", ""):
            frames.add(cols[layout.frame])
        decoder.feed(cols[layout.fe], row.line)
    if not target:
        fail("frame block without a target: no token has an LU",
             "mark the target word(s) with their LU (e.g. 'become.v') and frame", file, block.line, E_ANCHOR)
    if len(lus) > 1 or len(frames) != 1:
        what = f"LUs {sorted(lus)}" if len(lus) > 1 else f"frames {sorted(frames) or 'none'}"
        fail(f"one block must hold exactly one frame instance, found {what}",
             "split frame instances into separate blocks (one LU and one frame each)",
             file, block.line, E_ANCHOR)
    fes = decoder.finish(block.rows[-1].line)
    return _FrameBlock(block.line, tuple(tokens), lus.pop(), frames.pop(), target, fes), layout


def _runs(indices: Sequence[int]) -> list[tuple[int, int]]:
    """Contiguous runs ``(first, last)`` of sorted token indices."""
    runs: list[tuple[int, int]] = []
    for i in indices:
        if runs and runs[-1][1] == i - 1:
            runs[-1] = (runs[-1][0], i)
        else:
            runs.append((i, i))
    return runs


def _structure(fb: _FrameBlock, offsets: Sequence[tuple[int, int]]) -> Structure:
    runs = _runs(fb.target)
    anchor = Span(offsets[runs[0][0]][0], offsets[runs[0][1]][1], fb.lu)
    args = [Span(offsets[a][0], offsets[b][1], label) for a, b, label in fb.fes]
    structure = Structure("frame", fb.frame, anchor, args)
    if len(runs) > 1:  # discontinuous target: the further pieces, as the FrameNet reader keeps them
        structure.extra["anchor_rest"] = [[offsets[a][0], offsets[b][1]] for a, b in runs[1:]]
    return structure


def read_opensesame(path: str | Path) -> Iterator[Sentence]:
    """Stream sentences; every frame block becomes a ``frame`` structure of its sentence."""
    name = str(path)
    stem = file_stem(path)
    layout: _Layout | None = None
    pending: _Pending | None = None
    count = 0
    for block in iter_blocks(path, sep="\t", what="open-sesame CoNLL"):
        fb, layout = _parse_block(block, layout, name)
        if pending is None or pending.tokens != fb.tokens:
            if pending is not None:
                count += 1
                yield _sentence(pending, f"{stem}:{count}")
            text, offsets = detokenize(fb.tokens)
            pending = _Pending(fb.tokens, text, offsets)
        pending.structures.append(_structure(fb, pending.offsets))
    if pending is not None:
        yield _sentence(pending, f"{stem}:{count + 1}")


def _sentence(pending: _Pending, sid: str) -> Sentence:
    return Sentence(sid, pending.text, pending.structures, {"tokens": token_meta(pending.offsets)})


# --------------------------------------------------------------------------- writer


@dataclass(slots=True)
class _WriteStats:
    overlapping_args: int = 0
    unanchored: int = 0
    without_frames: int = 0


def _target_tokens(structure: Structure, tokens: Sequence[tuple[int, int]]) -> list[int]:
    assert structure.anchor is not None
    rest = structure.extra.get("anchor_rest")
    pieces = [[structure.anchor.start, structure.anchor.end]] + (rest if isinstance(rest, list) else [])
    indices: set[int] = set()
    for piece in pieces:
        try:
            start, end = int(piece[0]), int(piece[1])
        except (TypeError, ValueError, IndexError):
            start, end = structure.anchor.start, structure.anchor.end
        cover = covering_tokens(tokens, start, end)
        if cover is not None:
            indices.update(range(cover[0], cover[1] + 1))
    return sorted(indices)


def _block(sentence: Sentence, structure: Structure, tokens: Sequence[tuple[int, int]],
           stats: _WriteStats) -> list[str] | None:
    target = _target_tokens(structure, tokens) if structure.anchor is not None else []
    if not target:
        stats.unanchored += 1
        return None
    assert structure.anchor is not None
    lu = clean_cell(structure.anchor.label or sentence.text[structure.anchor.start : structure.anchor.end].lower())
    frame = clean_cell(structure.label)
    spans, _, overlapping = tag_spans(tokens, ((a.start, a.end, clean_cell(a.label or "_")) for a in structure.args))
    stats.overlapping_args += overlapping
    tags = iob2_tags(len(tokens), spans)
    rows = []
    is_target = set(target)
    for i, (start, end) in enumerate(tokens):
        mark = i in is_target
        rows.append("\t".join([str(i), clean_cell(sentence.text[start:end]),
                               lu if mark else "_", frame if mark else "_", tags[i]]))
    return rows


def write_opensesame(sentences: Iterable[Sentence], path: str | Path, *, strict: bool = False) -> int:
    """Write one block per frame/srl structure; return how many sentences got a block.

    Entity and event structures cannot be written: they are counted in a warning, or, with
    ``strict``, refused (:class:`~paraspan.errors.FormatError`, nothing written)."""
    stats = _WriteStats()
    left_out = KindsLeftOut("open-sesame", {"frame", "srl"}, strict)

    def blocks(sentence: Sentence, tokens: list[tuple[int, int]]) -> list[list[str]]:
        left_out.check(sentence)
        out = [b for s in sentence.structures if s.kind in ("frame", "srl")
               if (b := _block(sentence, s, tokens, stats)) is not None]
        stats.without_frames += not out
        return out

    written, retokenized = write_blocks(sentences, path, blocks)
    warn_counts("open-sesame", [
        (retokenized, "sentence(s) had meta['tokens'] that no longer fit the text; they were re-tokenized"),
        (stats.overlapping_args, "overlapping frame element(s) dropped (BIO tags cannot nest; the first one was "
                                 "kept)"),
        (stats.unanchored, "frame/srl structure(s) without a usable target were not written"),
        (stats.without_frames, "sentence(s) without frame/srl structures were not written (the format has one "
                               "block per frame)"),
        *left_out.warnings(),
    ])
    return written
