"""The shape of a placed span: does it hold a whole phrase, and only its own words?

The span-label verifier (:mod:`paraspan.filter.verifier`) judges labels; it rarely notices a
span placed one word off (it rejects 17–62% of shifted spans). The aligner's typical misplacements
are visible in the parse, though, and this filter rejects them:

- **swallows the anchor**: an argument that overlaps the anchor when its source argument did not
  (``Goal='entered Vienna'``, ``Donor='community donated'``);
- **split from its sentence**: an argument that a sentence boundary now crosses, or that now lies
  in another sentence than its anchor, when the source had no boundary there (a rewrite that
  splits "He is kind and took the time to help" keeps an argument spanning both clauses);
- **cut phrase**: an argument that leaves out part of a phrase it began — a word inside it
  modifies a noun outside it (``Goal='to the old'`` of "to the old water mill", ``Patient='the
  disrupted'``), or a preposition inside it lost its object (``Time='late at'`` of "late at
  night").

The parse is the packaged spaCy pipeline's, loaded on the first decision. On gold FrameNet 1.5
dev spans (``benchmarks/verify.py --part spans``) the check keeps what its docstring in
``benchmarks/README.md`` says; a span that the rules cannot judge (no parse) is kept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.filter.base import FilterDecision

_NOUNS = ("NOUN", "PROPN", "NUM")


def span_problem(doc: Any, span: Span, anchor: Span | None, *, source_overlaps: bool = False) -> str | None:
    """Why ``span`` (an argument) of the parsed text ``doc`` is misplaced, or None."""
    if anchor is not None and span.overlaps(anchor) and not source_overlaps:
        return "swallows the anchor"
    inside = [t for t in doc if t.idx >= span.start and t.idx + len(t.text) <= span.end and not t.is_space]
    if not inside:
        return None
    ids = {t.i for t in inside}
    last = max(ids)
    # a modifier of the anchor is a whole FE of a noun target ("our" Possessor of "system")
    anchor_ids = {t.i for t in doc if anchor is not None and t.idx < anchor.end and t.idx + len(t.text) > anchor.start}
    # a phrase the span opens (a determiner, possessive or preposition first) but ends before its noun;
    # bare modifiers ("nuclear", "city") are whole FEs of the noun they modify
    opens = inside[0].pos_ in ("DET", "ADP") or inside[0].tag_ == "PRP$"
    tail = doc[last]
    if (opens and tail.head.i not in ids and tail.head.i not in anchor_ids and tail.head.i > last
            and tail.head.pos_ in _NOUNS and tail.dep_ in ("det", "amod", "compound", "nummod", "poss", "nmod")):
        return f"cut phrase ({tail.text!r} modifies {tail.head.text!r}, outside the span)"
    if tail.pos_ == "ADP" and tail.dep_ in ("prep", "agent", "dative"):
        objects = [c for c in tail.children if c.dep_ in ("pobj", "pcomp")]
        if objects and all(c.i not in ids for c in objects):
            return f"cut phrase (the preposition {tail.text!r} lost its object {objects[0].text!r})"
    return None


#: a sentence boundary: end punctuation (and closing quotes or brackets), space, then a capital
_BOUNDARY = re.compile(r"[.!?][\"')\]]*\s+(?=[\"'(\[]?[A-Z])")


def boundaries(text: str, start: int, end: int) -> int:
    """Sentence boundaries between ``start`` and ``end`` of ``text``."""
    return len(_BOUNDARY.findall(text, start, end))


def sentence_problem(output: Sentence, arg: Span, anchor: Span | None, source: Sentence | None,
                     source_args: list[Span], source_anchor: Span | None) -> str | None:
    """Why ``arg`` now straddles or left its anchor's sentence, or None (see the module docstring)."""
    if source is None or not source_args:
        return None
    inside = boundaries(output.text, arg.start, arg.end)
    if inside > min(boundaries(source.text, a.start, a.end) for a in source_args):
        return "crosses a sentence boundary the source span did not"
    if anchor is None or source_anchor is None:
        return None
    if _between(output.text, arg, anchor) > min(_between(source.text, a, source_anchor) for a in source_args):
        return "lies in another sentence than its anchor"
    return None


def _between(text: str, a: Span, b: Span) -> int:
    """Sentence boundaries in the gap between two spans (none when they overlap)."""
    return 0 if a.overlaps(b) else boundaries(text, min(a.end, b.end), max(a.start, b.start))


class SpanShapeFilter:
    """Keep outputs whose every argument is a whole phrase and leaves the anchor alone."""

    def __init__(self, name: str = "spans", nlp: Any = None) -> None:
        self.name = name
        self._nlp = nlp

    @property
    def nlp(self) -> Any:
        if self._nlp is None:
            from paraspan.models import load_spacy

            self._nlp = load_spacy(exclude=("ner", "lemmatizer"))
        return self._nlp

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        return self.decide_batch([(output, source)])[0]

    def decide_batch(self, pairs: Sequence[tuple[Sentence, Sentence | None]]) -> list[FilterDecision]:
        docs = list(self.nlp.pipe([output.text for output, _ in pairs]))
        out = []
        for (output, source), doc in zip(pairs, docs, strict=True):
            problem = None
            checked = 0
            for k, structure in enumerate(output.structures):
                source_overlap = _source_overlaps(output, source, k)
                src = _source_structure(output, source, k)
                for arg in structure.args:
                    checked += 1
                    why = span_problem(doc, arg, structure.anchor,
                                       source_overlaps=source_overlap.get(arg.label or "", False))
                    if why is None and src is not None:
                        why = sentence_problem(output, arg, structure.anchor, source,
                                               [a for a in src.args if a.label == arg.label], src.anchor)
                    if why is not None:
                        problem = f"{arg.label} {output.text[arg.start:arg.end]!r}: {why}"
                        break
                if problem:
                    break
            out.append(FilterDecision(problem is None, None, problem or f"all {checked} argument spans whole"))
        return out


def _source_structure(output: Sentence, source: Sentence | None, k: int) -> Structure | None:
    """The source structure the output's ``k``-th structure was made from (provenance ``structure``)."""
    index = (output.provenance or {}).get("structure", k)
    if source is None or not isinstance(index, int) or not 0 <= index < len(source.structures):
        return None
    return source.structures[index]


def _source_overlaps(output: Sentence, source: Sentence | None, k: int) -> dict[str, bool]:
    """Per argument label: whether the source's argument overlapped its anchor (then the output's may)."""
    st = _source_structure(output, source, k)
    if st is None:
        return {}
    return {a.label or "": bool(st.anchor is not None and a.overlaps(st.anchor)) for a in st.args}


def spans_filter(record_as: str | None = None) -> SpanShapeFilter:
    """The registered ``spans`` filter (see the module docstring)."""
    return SpanShapeFilter(record_as or "spans")
