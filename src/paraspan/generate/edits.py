"""Edits of a sentence's text that carry its structures along: the baselines' and the
``substitute`` generator's way of writing a candidate whose spans are known exactly (nothing to
align): each :class:`Edit` replaces a stretch of text, every span of every structure moves with
the text around it, and a structure whose predicate an edit replaced or cut is lost."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import cast

from paraspan.corpus.schema import Span, Structure
from paraspan.generate.base import CharSpan
from paraspan.generate.sister_lu import splice

__all__ = ["PREDICATE_KINDS", "Edit", "apply_edits", "article_edits", "indefinite", "span_relation"]

#: Kinds whose anchor is a predicate or target: a structure whose anchor an edit hits is lost.
PREDICATE_KINDS = frozenset({"frame", "srl", "event"})
_WORD = re.compile(r"[\w'’-]+")


def indefinite(word: str) -> str | None:
    """"a" or "an" before ``word`` (by its spelling; None for digits and acronyms: left alone)."""
    low = word.lower()
    if not low or not low[0].isalpha() or (len(word) > 1 and word.isupper()):
        return None
    if low.startswith(("hour", "honest", "honor", "honour", "heir")):
        return "an"
    if low.startswith(("uni", "use", "usu", "uti", "eu", "one", "once", "ubiq", "ura", "uro")):
        return "a"
    return "an" if low[0] in "aeiou" else "a"



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


def article_edits(text: str, tokens: Sequence[CharSpan], edits: Sequence[Edit],
                   frozen: Iterable[CharSpan]) -> list[Edit]:
    """"a"/"an" fixed before each edit whose new first word needs the other one ("a apple")."""
    taken = [(e.start, e.end) for e in edits]
    frozen = list(frozen)
    out: list[Edit] = []
    for e in edits:
        before = [t for t in tokens if t[1] <= e.start]
        if not before:
            continue
        s, t_end = before[-1]
        word = text[s:t_end]
        if word.lower() not in ("a", "an") or text[t_end:e.start].strip():
            continue
        if any(a < t_end and s < b for a, b in [*taken, *frozen]):
            continue
        first = _WORD.search(e.new)
        wanted = indefinite(first.group(0)) if first and first.start() == 0 else None
        if wanted is None or wanted == word.lower():
            continue
        out.append(Edit(s, t_end, wanted.capitalize() if word[:1].isupper() else wanted, changed=False))
    return out


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
