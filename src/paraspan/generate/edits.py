"""Edits of a sentence's text: the article fixes an edit needs ("a apple" → "an apple").

The edits themselves and how every span moves with them (:class:`Edit`, :func:`apply_edits`,
:func:`span_relation`) live in :mod:`paraspan.generate.project`, the one module that moves spans;
they are importable from here too."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from paraspan.generate.base import CharSpan
from paraspan.generate.project import PREDICATE_KINDS, Edit, apply_edits, span_relation

__all__ = ["PREDICATE_KINDS", "Edit", "apply_edits", "article_edits", "indefinite", "span_relation"]

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
