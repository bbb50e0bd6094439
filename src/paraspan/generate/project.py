"""Projection: where a source sentence's labelled spans went in a candidate rewrite.

One module for every generator (see :class:`~paraspan.generate.base.Candidate`):

- **placed** — the generator placed the structures itself (``candidate.structures``, infill);
  they are checked (offsets inside the text, non-empty) and taken as they are.
- **mapping** — a :class:`~paraspan.generate.base.TokenMapping` (rule rewrites): spans follow
  their tokens, by the policy below.
- **aligner** — free text (paraphrases): the anchor and each argument are aligned into the
  candidate by a span aligner (:mod:`paraspan.align`), every candidate in one batch.

:func:`place` gives, for one structure and a list of candidates, a :class:`Placement` per
candidate in whichever way the candidate allows; :func:`project_mapping` carries whole
structures through a mapping (the ``paraspan rewrite`` path). Generators that write their
candidate by editing the text (the baselines, ``substitute``, sister LUs, infilling) move the
spans with :func:`apply_edits` and :func:`splice`, here too: every span moves in this module.

Mapping policy (what happens to each span):

- **Anchor** (predicate, LU target, entity mention): every source token of the anchor must
  survive, not be replaced by a different word (re-inflection is fine: "ate" → "eaten"), and the
  survivors must stay one contiguous run in the output. Otherwise the structure is dropped.
- **Argument**: it keeps the output run covering its surviving tokens. When some of its tokens
  were deleted it *shrinks* to what survives; when the survivors are no longer contiguous (the
  rewrite moved part of it away) it shrinks to the contiguous run around its head word (the token
  whose syntactic head lies outside the argument). It is *dropped* when its head word is deleted
  (or, for a head-less span, when nothing survives), except where a kept word ``absorbs`` the
  deleted head (a dropped "to" of a recipient: "to Anna" → "Anna"). Inserted words inside the run (the "'s" of a
  genitive) belong to it; inserted words at its edges do not. Inserted words attached to a source
  token go with that token; an attached case marker (the "by" of a new passive agent) joins
  arguments but not anchors.
- A structure keeps its label and its arguments' labels exactly: projection never creates a
  label, so every output label is one the source had.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import Candidate, CharSpan, MappedToken, TokenMapping, require_anchor

#: A span's place in a candidate (None: not placed) and how sure the placement is.
Placed = tuple[CharSpan | None, float]


@dataclass
class Projection:
    """Structures carried through a mapping, with counters and each one's index in the source."""

    structures: list[Structure]
    counts: Counter = field(default_factory=Counter)
    sources: list[int] = field(default_factory=list)


@dataclass
class Placement:
    """One structure placed in one candidate: the anchor first, then each argument, and how."""

    spans: list[Placed]
    via: str  # "placed", "mapping" or "aligner"

    @property
    def anchor(self) -> Placed:
        return self.spans[0]

    @property
    def args(self) -> list[Placed]:
        return self.spans[1:]


def doc_tokens(doc: Any) -> list[CharSpan]:
    """Character offsets of a parsed doc's tokens (spaCy ``Doc``)."""
    return [(t.idx, t.idx + len(t.text)) for t in doc]


def doc_heads(doc: Any) -> list[int]:
    """Each token's syntactic head in a parsed doc (itself for a root)."""
    return [t.head.i for t in doc]


def tokens_in(tokens: Sequence[CharSpan], start: int, end: int) -> list[int]:
    """Indices of the ``tokens`` overlapping the character span ``[start, end)``."""
    return [i for i, (s, e) in enumerate(tokens) if s < end and e > start]


def head_of(heads: Sequence[int], ids: Sequence[int]) -> int | None:
    """The first token of ``ids`` whose syntactic head lies outside ``ids`` (or is itself)."""
    inside = set(ids)
    for i in ids:
        head = heads[i]
        if head == i or head not in inside:
            return i
    return ids[0] if ids else None


# ----------------------------------------------------------------------------- mapping


@dataclass
class _Mapped:
    """A token mapping indexed for projection: where each source token went and what was put in."""

    mapping: TokenMapping
    out_of: dict[int, int] = field(default_factory=dict)  # a source token → its output token
    attached: dict[int, list[int]] = field(default_factory=dict)  # a source token → words inserted with it
    markers: set[int] = field(default_factory=set)  # inserted case markers (they join arguments only)
    changed: set[int] = field(default_factory=set)  # source tokens replaced by a different word
    absorbed: dict[int, int] = field(default_factory=dict)  # a deleted case marker → the output token for it
    part: list[int] = field(default_factory=list)  # which output sentence each output token is in

    @classmethod
    def of(cls, mapping: TokenMapping) -> _Mapped:
        pieces = mapping.tokens
        m = cls(mapping)
        for j, piece in enumerate(pieces):
            if piece.absorbs is not None:
                m.absorbed[piece.absorbs] = j
            if piece.src is not None:
                m.out_of[piece.src] = j
                if piece.changed:
                    m.changed.add(piece.src)
            elif piece.attach is not None:
                m.attached.setdefault(piece.attach, []).append(j)
                if piece.marker:
                    m.markers.add(j)
        # each output token's sentence, counting the full stops a rule put in (MappedToken.stop)
        m.part = [0] * len(pieces)
        for j in range(1, len(pieces)):
            m.part[j] = m.part[j - 1] + int(pieces[j - 1].stop)
        return m

    @property
    def pieces(self) -> Sequence[MappedToken]:
        return self.mapping.tokens

    def source_ids(self, span: Span) -> list[int]:
        return tokens_in(self.mapping.source_tokens, span.start, span.end)

    def positions(self, ids: Sequence[int], *, anchor: bool = False) -> set[int]:
        found = {self.out_of[i] for i in ids if i in self.out_of}
        if not anchor:
            found.update(self.absorbed[i] for i in ids if i in self.absorbed and i not in self.out_of)
        for i in ids:
            found.update(j for j in self.attached.get(i, ()) if not (anchor and j in self.markers))
        return found

    def owned(self, j: int, ids: set[int]) -> bool:
        piece = self.pieces[j]
        return (piece.src in ids) or (piece.src is None and piece.attach in ids)

    def foreign(self, j: int, ids: set[int]) -> bool:
        piece = self.pieces[j]
        if piece.src is not None:
            return piece.src not in ids
        if piece.stop:
            return True  # see MappedToken.stop
        return piece.attach is not None and piece.attach not in ids

    def to_span(self, first: int, last: int, old: Span) -> Span:
        # A span may start or end inside a parser token: a corpus tokenized "NC St" "." has the
        # mention "NC St", spaCy's token is "St.". Carried over at the same length, the token keeps
        # the span's edge inside it, or the mention would take the full stop (WNUT17).
        start, end = self.pieces[first].start, self.pieces[last].end
        head, tail = self.pieces[first], self.pieces[last]
        if head.src is not None:
            s0, e0 = self.mapping.source_tokens[head.src]
            if s0 < old.start < e0 and head.end - head.start == e0 - s0:
                start += old.start - s0
        if tail.src is not None:
            s1, e1 = self.mapping.source_tokens[tail.src]
            if s1 < old.end < e1 and tail.end - tail.start == e1 - s1:
                end -= e1 - old.end
        return Span(start, end, old.label, dict(old.extra))

    def anchor(self, old: Span, counts: Counter) -> tuple[Span, int] | None:
        """The anchor carried over and the output sentence it is in; None (counted why) when it is lost."""
        ids = self.source_ids(old)
        if not ids or any(i not in self.out_of or i in self.changed for i in ids):
            counts["structure_dropped_anchor_lost"] += 1
            return None
        where = self.positions(ids, anchor=True)
        lo, hi = min(where), max(where)
        if any(self.foreign(j, set(ids)) for j in range(lo, hi + 1)):
            counts["structure_dropped_anchor_split"] += 1
            return None
        return self.to_span(lo, hi, old), self.part[lo]

    def arg(self, old: Span, anchor_part: int | None, counts: Counter) -> Span | None:
        """An argument carried over (shrunk or moved to a copy where need be); None (counted why) when dropped."""
        ids = self.source_ids(old)
        inside = set(ids)
        where = self.positions(ids)
        if not where:
            counts["arg_dropped"] += 1
            return None
        head = head_of(self.mapping.source_heads, ids)
        if head is not None and head not in self.out_of and head in self.absorbed:
            head = self.pieces[self.absorbed[head]].src  # the case marker's object heads what is left
        lo, hi = min(where), max(where)
        if any(self.foreign(j, inside) for j in range(lo, hi + 1)):
            if head is None or head not in self.out_of:
                counts["arg_dropped"] += 1
                return None
            lo, hi = self._around(self.out_of[head], inside)
            counts["arg_shrunk_split"] += 1
        elif head is not None and head not in self.out_of:
            counts["arg_dropped"] += 1
            return None
        elif any(i not in self.out_of for i in ids):
            counts["arg_shrunk_deleted"] += 1
        if anchor_part is not None and self.part[lo] != anchor_part:
            copied = self._copy_in(anchor_part, inside, counts)
            if copied is None:
                return None
            lo, hi = copied
        return self.to_span(lo, hi, old)

    def _around(self, at: int, inside: set[int]) -> tuple[int, int]:
        """The contiguous run of the argument's own output tokens around its head word at ``at``."""
        lo = hi = at
        while lo > 0 and not self.foreign(lo - 1, inside):
            lo -= 1
        while hi + 1 < len(self.pieces) and not self.foreign(hi + 1, inside):
            hi += 1
        while not self.owned(lo, inside):
            lo += 1
        while not self.owned(hi, inside):
            hi -= 1
        return lo, hi

    def _copy_in(self, anchor_part: int, inside: set[int], counts: Counter) -> tuple[int, int] | None:
        # a split left the argument in the other sentence: its copy there stands for it ("we booked the
        # room and liked it" → "… . We liked it": ARG0 "We"); without one it is dropped, the "So" of
        # "So we booked the room. We liked it." is no longer the second's (EWT dev, made up)
        copies = [j for j, piece in enumerate(self.pieces)
                  if piece.copy is not None and piece.copy in inside and self.part[j] == anchor_part]
        if not copies or any(self.foreign(j, inside) for j in range(min(copies), max(copies) + 1)):
            counts["arg_dropped_other_sentence"] += 1
            return None
        counts["arg_to_copy"] += 1
        return min(copies), max(copies)


def project_mapping(sentence: Sentence, mapping: TokenMapping, which: Sequence[int] | None = None, *,
                    label_copies: bool = False) -> Projection:
    """``sentence``'s structures (or those at ``which``) carried through ``mapping`` (module policy).

    ``label_copies``: an entity mention a rule wrote again (the subject a split repeats,
    :attr:`MappedToken.copy`) is labelled there too, as another structure from the same source: NER
    labels every mention, and the copy left unlabelled taught a tagger that the name is none ("Anna
    Berg sings in Oslo. Anna Berg plays …"; WNUT17 and WikiANN dev, example made up). The pipeline
    labels them through :func:`carry_entities`."""
    mapped = _Mapped.of(mapping)
    counts: Counter = Counter()
    result: list[Structure] = []
    sources: list[int] = []
    indices = range(len(sentence.structures)) if which is None else which
    for index in indices:
        structure = sentence.structures[index]
        anchor, anchor_part = None, None
        if structure.anchor is not None:
            carried = mapped.anchor(structure.anchor, counts)
            if carried is None:
                continue
            anchor, anchor_part = carried
        args = [span for arg in structure.args if (span := mapped.arg(arg, anchor_part, counts)) is not None]
        counts["structure_kept"] += 1
        result.append(Structure(structure.kind, structure.label, anchor, args, dict(structure.extra)))
        sources.append(index)
        if label_copies and structure.kind == "entity" and structure.anchor is not None and not structure.args:
            for lo, hi in _copy_runs(mapped.pieces, mapped.source_ids(structure.anchor)):
                result.append(Structure(structure.kind, structure.label, mapped.to_span(lo, hi, structure.anchor),
                                        [], dict(structure.extra)))
                sources.append(index)
                counts["mention_copy_labelled"] += 1
    return Projection(result, counts, sources)


def _copy_runs(pieces: Sequence[MappedToken], ids: Sequence[int]) -> list[tuple[int, int]]:
    """Each run of output tokens that copies the tokens ``ids`` in order, whole (first, last)."""
    if not ids:
        return []
    want = list(ids)
    runs = []
    j = 0
    while j < len(pieces):
        if pieces[j].copy == want[0]:
            k = 0
            while k < len(want) and j + k < len(pieces) and pieces[j + k].copy == want[k]:
                k += 1
            if k == len(want):
                runs.append((j, j + k - 1))
                j += k
                continue
        j += 1
    return runs


# ----------------------------------------------------------------------------- one structure, any candidate


def _find(text: str, phrase: str) -> CharSpan | None:
    """Where a kept phrase lies in a candidate (its first capital may have changed)."""
    at = text.find(phrase)
    if at < 0 and phrase[:1].isalpha():
        swapped = (phrase[0].lower() if phrase[0].isupper() else phrase[0].upper()) + phrase[1:]
        at = text.find(swapped)
    return (at, at + len(phrase)) if at >= 0 else None


def _inside(span: Span | None, text: str) -> CharSpan | None:
    if span is None or not 0 <= span.start < span.end <= len(text):
        return None
    return span.start, span.end


def _from_structure(placed: Structure | None, args: Sequence[Span], text: str) -> list[Placed]:
    """The anchor and ``args`` (by label, in order) of a structure the generator placed."""
    if placed is None:
        return [(None, 0.0)] + [(None, 0.0) for _ in args]
    out: list[Placed] = [(_inside(placed.anchor, text), 1.0 if _inside(placed.anchor, text) else 0.0)]
    pool = list(placed.args)
    for arg in args:
        match = next((p for p in pool if p.label == arg.label), None)
        if match is not None:
            pool.remove(match)
        where = _inside(match, text)
        out.append((where, 1.0 if where else 0.0))
    return out


def place(sentence: Sentence, index: int, args: Sequence[Span], candidates: Sequence[Candidate], *,
          aligner: Any = None, keep_args: bool = False) -> list[Placement]:
    """Where structure ``index``'s anchor and ``args`` lie in each candidate.

    Placed structures and mappings are used when a candidate has them; the other candidates go
    to ``aligner`` in one batch (anchor and arguments; with ``keep_args`` the arguments were kept
    verbatim and are found by their text).
    """
    structure = sentence.structures[index]
    anchor = require_anchor(structure, "span projection")
    text = sentence.text
    out: list[Placement | None] = [None] * len(candidates)
    to_align: list[int] = []
    for c, cand in enumerate(candidates):
        if cand.structures is not None:
            placed = cand.structures[index] if index < len(cand.structures) else None
            out[c] = Placement(_from_structure(placed, args, cand.text), "placed")
        elif cand.mapping is not None:
            projected = project_mapping(Sentence(sentence.id, text, [Structure(
                structure.kind, structure.label, anchor, list(args), dict(structure.extra))]), cand.mapping)
            got = projected.structures[0] if projected.structures else None
            out[c] = Placement(_from_structure(got, args, cand.text), "mapping")
        else:
            to_align.append(c)
    if to_align:
        if aligner is None:
            raise ValueError("candidates without placed structures or a mapping need an aligner")
        from paraspan.align import AlignTask

        spans = [anchor] + ([] if keep_args else list(args))
        tasks = [AlignTask(f"{c}:{j}", text, candidates[c].text, (span.start, span.end))
                 for c in to_align for j, span in enumerate(spans)]
        aligned = aligner.align(tasks)
        per = len(spans)
        for k, c in enumerate(to_align):
            got: list[Placed] = [(a.pred, float(a.score)) for a in aligned[k * per:(k + 1) * per]]
            if keep_args:
                got += [(_find(candidates[c].text, text[a.start:a.end]), 1.0) for a in args]
            out[c] = Placement(got, "aligner")
    return [p for p in out if p is not None]


def carry_entities(sentence: Sentence, index: int, candidate: Candidate) -> tuple[list[Structure], int]:
    """When structure ``index`` is an entity: the sentence's other entity mentions in
    ``candidate``, and how many could not be carried (else nothing to carry).

    NER annotates every mention of a sentence: an output that keeps one entity and drops the
    others teaches a tagger that the dropped names are no entities. (Frames and predicates are
    learned one structure at a time, so their outputs carry only their own.) A generator's
    placed structures or token mapping carry them; a free-text candidate (aligned, one
    structure at a time) carries none. A mention a rule wrote again whole (the subject a split
    repeats, the noun phrase an extraction copies; :attr:`MappedToken.copy`) is labelled there
    too, the copy of structure ``index`` included, as :func:`project_mapping` does with
    ``label_copies``; a mention's words written anew without being its copy count as not carried.
    """
    if sentence.structures[index].kind != "entity":
        return [], 0
    entities = [i for i, s in enumerate(sentence.structures) if s.kind == "entity" and s.anchor is not None]
    others = [i for i in entities if i != index]
    if candidate.mapping is not None:
        projection = project_mapping(sentence, candidate.mapping, which=entities, label_copies=True)
        got: list[Structure] = []
        copies: list[Structure] = []
        seen: set[int] = set()
        for structure, source in zip(projection.structures, projection.sources, strict=True):
            copy = source in seen  # a source's first structure is the mention, any later one its copy
            seen.add(source)
            if copy:
                copies.append(structure)
            if copy or source != index:  # the mention ``index`` itself is placed by the caller
                got.append(structure)
        carried = len([i for i in others if i in seen])
        return got, len(others) - carried + _copied_mentions(sentence, candidate.text, candidate.mapping, copies)
    # without a mapping no word is known to be new, so only the placed structures count
    got = []
    if candidate.structures is not None:
        got = [candidate.structures[i] for i in others
               if i < len(candidate.structures) and candidate.structures[i] is not None]
    return got, len(others) - len(got)


def _copied_mentions(sentence: Sentence, text: str, mapping: TokenMapping, labelled: Sequence[Structure]) -> int:
    """Words of an entity mention that a rewrite wrote again as new words outside the ``labelled``
    copies (a copy of part of a mention, or words the rule wrote without marking them a copy): they
    carry no label, and NER labels every mention, so each counts as a mention not carried (judged
    wrong on WikiANN, wikiann-cascade-f: "His grandfather was the X leader. The X leader was …"
    before a copy was labelled)."""
    names = {sentence.text[s:e] for st in sentence.structures if st.kind == "entity" and st.anchor is not None
             for s, e in mapping.source_tokens if st.anchor.start <= s and e <= st.anchor.end}
    names = {n for n in names if n[:1].isupper() and any(ch.isalpha() for ch in n)}
    spans = [(c.anchor.start, c.anchor.end) for c in labelled if c.anchor is not None]
    return sum(1 for t in mapping.tokens if t.src is None and t.attach is None
               and text[t.start:t.end] in names
               and not any(lo <= t.start and t.end <= hi for lo, hi in spans))


# -- moving spans with edits of the text (the baselines', substitute's, sister LUs' and infill's way)

#: Kinds whose anchor is a predicate or target: a structure whose anchor an edit hits is lost.
PREDICATE_KINDS = frozenset({"frame", "srl", "event"})


@dataclass(frozen=True)
class Edit:
    """``text[start:end]`` becomes ``new``. ``changed``: a different word (not an article fix)."""

    start: int
    end: int
    new: str
    label: str | None = None
    changed: bool = True


def span_relation(span: Span, edits: Sequence[Edit]) -> str:
    """``clear`` (no edit touches the span), ``contains`` (it holds whole edits) or ``broken``
    (an edit cuts it, or replaces it together with text around it)."""
    out = "clear"
    for e in edits:
        if span.end <= e.start or e.end <= span.start:
            continue
        if span.start <= e.start and e.end <= span.end:
            out = "contains"
            continue
        return "broken"
    return out


def splice(text: str, spans: Sequence[Span], edits: Sequence[tuple[Span, str]]) -> tuple[str, list[Span]]:
    """Replace each edited span's text; every span gets its new offsets (edits must not overlap)."""
    edited = {id(span): new for span, new in edits}
    order = sorted(edits, key=lambda e: e[0].start)
    pieces: list[str] = []
    pos = 0
    new_bounds: dict[int, tuple[int, int]] = {}
    shifts: list[tuple[int, int]] = []  # (old position, cumulative delta after it)
    delta = 0
    for span, new in order:
        pieces.append(text[pos:span.start])
        start = span.start + delta
        pieces.append(new)
        new_bounds[id(span)] = (start, start + len(new))
        delta += len(new) - (span.end - span.start)
        shifts.append((span.end, delta))
        pos = span.end
    pieces.append(text[pos:])

    def moved(offset: int) -> int:
        d = 0
        for at, after in shifts:
            if offset >= at:
                d = after
        return offset + d

    out = []
    for span in spans:
        if id(span) in edited:
            s, e = new_bounds[id(span)]
        else:
            s, e = moved(span.start), moved(span.end)
        out.append(Span(s, e, span.label, dict(span.extra)))
    return "".join(pieces), out


def apply_edits(text: str, structures: Sequence[Structure | None], tokens: Sequence[CharSpan], edits: Sequence[Edit],
           ) -> tuple[str, list[Structure | None], list[CharSpan], list[CharSpan]]:
    """The text with ``edits`` made, every structure placed in it (None where an edit broke it),
    and the new offsets of each token and of each edit."""
    edit_spans = [Span(e.start, e.end) for e in edits]
    token_spans = [Span(s, e) for s, e in tokens]
    owned: list[tuple[int, str]] = []  # (structure, "anchor" | "arg") per structure span
    struct_spans: list[Span] = []
    for k, st in enumerate(structures):
        if st is None:
            continue
        if st.anchor is not None:
            owned.append((k, "anchor"))
            struct_spans.append(st.anchor)
        for arg in st.args:
            owned.append((k, "arg"))
            struct_spans.append(arg)
    new_text, moved = splice(text, [*edit_spans, *token_spans, *struct_spans],
                             [(span, e.new) for span, e in zip(edit_spans, edits, strict=True)])
    n_e, n_t = len(edit_spans), len(token_spans)
    new_edits = [(s.start, s.end) for s in moved[:n_e]]
    new_tokens = [(s.start, s.end) for s in moved[n_e:n_e + n_t]]
    placed_spans = moved[n_e + n_t:]
    anchors: dict[int, Span | None] = {}
    args: dict[int, list[Span]] = {}
    lost: set[int] = set()
    for (k, role), span, new in zip(owned, struct_spans, placed_spans, strict=True):
        st = cast(Structure, structures[k])  # `owned` holds the structures that are not None
        rel = span_relation(span, edits)
        if role == "anchor":
            if rel == "broken" or (rel == "contains" and st.kind in PREDICATE_KINDS):
                lost.add(k)  # the predicate or target was replaced: this structure is not in the output
            anchors[k] = new
        elif rel != "broken":
            args.setdefault(k, []).append(new)
    placed: list[Structure | None] = []
    for k, st in enumerate(structures):
        if st is None or k in lost:
            placed.append(None)
            continue
        placed.append(Structure(st.kind, st.label, anchors.get(k), args.get(k, []), dict(st.extra)))
    return new_text, placed, new_tokens, new_edits


def splice_structures(sentence: Sentence, edits: Sequence[tuple[Span, str]],
                      relabel: dict[int, str] | None = None) -> tuple[str, list[Structure | None]] | None:
    """The text with ``edits`` made and every structure moved with it (None where a span of it
    straddles an edit); None when no structure survives."""
    spans: list[Span] = []
    owners: list[int] = []
    for k, structure in enumerate(sentence.structures):
        for span in structure.spans():
            spans.append(span)
            owners.append(k)
    cuts = [Edit(span.start, span.end, new) for span, new in edits]
    # a span the same as an edit's moves with it; one that an edit cuts loses its structure
    broken = {owners[i] for i, span in enumerate(spans) if span_relation(span, cuts) == "broken"}
    new_text, moved = splice(sentence.text, spans, edits)
    structures: list[Structure | None] = []
    at = 0
    for k, structure in enumerate(sentence.structures):
        count = (1 if structure.anchor is not None else 0) + len(structure.args)
        own = moved[at:at + count]
        at += count
        if k in broken:
            structures.append(None)
            continue
        anchor = own[0] if structure.anchor is not None else None
        args = own[1:] if structure.anchor is not None else own
        if anchor is not None and relabel and k in relabel:
            anchor = Span(anchor.start, anchor.end, relabel[k], dict(anchor.extra))
        structures.append(Structure(structure.kind, structure.label, anchor, list(args), dict(structure.extra)))
    if all(s is None for s in structures):
        return None
    return new_text, structures
