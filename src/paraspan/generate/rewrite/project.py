"""Carry a sentence's structures through a rewrite's token mapping.

Policy (what happens to each span):

- **Anchor** (predicate, LU target, entity mention): every source token of the anchor must
  survive, not be replaced by a different word (re-inflection is fine: "ate" → "eaten"), and the
  survivors must stay one contiguous run in the output. Otherwise the structure is dropped.
- **Argument**: it keeps the output run covering its surviving tokens. When some of its tokens
  were deleted it *shrinks* to what survives; when the survivors are no longer contiguous (the
  rewrite moved part of it away) it shrinks to the contiguous run around its head word (the token
  whose syntactic head lies outside the argument). It is *dropped* when its head word is deleted
  (or, for a head-less span, when nothing survives). Inserted words inside the run (the "'s" of a
  genitive) belong to it; inserted words at its edges do not. Pieces attached to a source token
  (a copied noun phrase standing in for a relative pronoun) go with that token; an attached case
  marker (the "by" of a new passive agent) joins arguments but not anchors.
- A structure keeps its label and its arguments' labels exactly: projection never creates a
  label, so every output label is one the source had.
- A rewrite in which every structure was dropped is not emitted (see
  :func:`paraspan.generate.rewrite.generator.rewrite_sentence`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.rewrite.core import Piece

if TYPE_CHECKING:
    from spacy.tokens import Doc


@dataclass
class Projection:
    structures: list[Structure]
    counts: Counter = field(default_factory=Counter)
    sources: list[int] = field(default_factory=list)  # index of each kept structure in the source


def span_tokens(doc: Doc, start: int, end: int) -> list[int]:
    """spaCy tokens overlapping the character span ``[start, end)``."""
    return [t.i for t in doc if t.idx < end and t.idx + len(t.text) > start]


def span_head(doc: Doc, ids: Sequence[int]) -> int | None:
    """The first token of ``ids`` whose syntactic head lies outside ``ids`` (or is itself)."""
    inside = set(ids)
    for i in ids:
        head = doc[i].head.i
        if head == i or head not in inside:
            return i
    return ids[0] if ids else None


def project(
    sentence: Sentence, doc: Doc, pieces: Sequence[Piece], offsets: Sequence[tuple[int, int]]
) -> Projection:
    """Project ``sentence``'s structures onto the output tokens ``pieces`` (rendered at ``offsets``)."""
    out_of: dict[int, int] = {}
    attached: dict[int, list[int]] = {}
    markers: set[int] = set()
    changed: set[int] = set()
    for j, piece in enumerate(pieces):
        if piece.src is not None:
            out_of[piece.src] = j
            if piece.changed:
                changed.add(piece.src)
        elif piece.attach is not None:
            attached.setdefault(piece.attach, []).append(j)
            if piece.marker:
                markers.add(j)
    counts: Counter = Counter()
    result: list[Structure] = []

    def positions(ids: Sequence[int], *, anchor: bool = False) -> set[int]:
        found = {out_of[i] for i in ids if i in out_of}
        for i in ids:
            found.update(j for j in attached.get(i, ()) if not (anchor and j in markers))
        return found

    def owned(j: int, ids: set[int]) -> bool:
        piece = pieces[j]
        return (piece.src in ids) or (piece.src is None and piece.attach in ids)

    def foreign(j: int, ids: set[int]) -> bool:
        piece = pieces[j]
        if piece.src is not None:
            return piece.src not in ids
        return piece.attach is not None and piece.attach not in ids

    def to_span(first: int, last: int, old: Span) -> Span:
        return Span(offsets[first][0], offsets[last][1], old.label, dict(old.extra))

    sources: list[int] = []
    for index, structure in enumerate(sentence.structures):
        anchor = None
        if structure.anchor is not None:
            ids = span_tokens(doc, structure.anchor.start, structure.anchor.end)
            if not ids or any(i not in out_of or i in changed for i in ids):
                counts["structure_dropped_anchor_lost"] += 1
                continue
            where = positions(ids, anchor=True)
            lo, hi = min(where), max(where)
            if any(foreign(j, set(ids)) for j in range(lo, hi + 1)):
                counts["structure_dropped_anchor_split"] += 1
                continue
            anchor = to_span(lo, hi, structure.anchor)
        args: list[Span] = []
        for arg in structure.args:
            ids = span_tokens(doc, arg.start, arg.end)
            inside = set(ids)
            where = positions(ids)
            if not where:
                counts["arg_dropped"] += 1
                continue
            head = span_head(doc, ids)
            lo, hi = min(where), max(where)
            if any(foreign(j, inside) for j in range(lo, hi + 1)):
                if head is None or head not in out_of:
                    counts["arg_dropped"] += 1
                    continue
                lo = hi = out_of[head]
                while lo > 0 and not foreign(lo - 1, inside):
                    lo -= 1
                while hi + 1 < len(pieces) and not foreign(hi + 1, inside):
                    hi += 1
                while not owned(lo, inside):
                    lo += 1
                while not owned(hi, inside):
                    hi -= 1
                counts["arg_shrunk_split"] += 1
            elif head is not None and head not in out_of:
                counts["arg_dropped"] += 1
                continue
            elif any(i not in out_of for i in ids):
                counts["arg_shrunk_deleted"] += 1
            args.append(to_span(lo, hi, arg))
        counts["structure_kept"] += 1
        result.append(Structure(structure.kind, structure.label, anchor, args, dict(structure.extra)))
        sources.append(index)
    return Projection(result, counts, sources)
