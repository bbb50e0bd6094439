"""Vetoes and renderers of the rules that move a phrase commenting on the whole clause, or swap two names.

- ``lower-connective`` / ``raise-connective``: "However, the plant closed." ↔ "The plant, however,
  closed." (the connectives of the word list ``connectives``, which read naturally after a subject).
- ``move-attribution`` / ``front-attribution``: "According to the ministry, the plant closed." ↔
  "The plant closed, according to the ministry."
- ``swap-conjuncts``: "Iran and Iraq signed the treaty." → "Iraq and Iran signed the treaty." (two
  whole names of one kind, where nothing makes their order mean something).

Spans: every word keeps its token, so a labelled span moves with its words. A connective or an
attribution that is a structure's anchor stays where it is: moved into its clause, the connective
would land inside its own frame element ("[Main_assertion the plant, however, closed]").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paraspan.generate.rewrite.core import (
    Piece,
    contiguous,
    final_punct,
    holds_full_stop,
    keep,
    rest_of_doc,
    subtree,
    tidy,
)
from paraspan.generate.rewrite.spec import Site, renderer, veto
from paraspan.generate.rewrite.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

_SUBJECTS = ("nsubj", "nsubjpass")
#: a subject longer than this puts the connective too far from the start to read as one
_MAX_SUBJECT = 8


def _subject(v: Token) -> Token | None:
    return next((c for c in v.children if c.dep_ in _SUBJECTS), None)


def _subject_ids(s: Site) -> list[int]:
    return s.cached("s_ids", lambda: subtree(s["subj"]))


def _movable_subject(doc: Doc, ids: list[int], start: int) -> bool:
    """A subject that starts at ``start``, short and plain enough for a connective to stand after it (no
    punctuation a move would have to re-balance: an apposition's commas, quotation marks, brackets)."""
    plain = not any(doc[i].is_punct or doc[i].is_quote or doc[i].is_bracket for i in ids)
    return ids[0] == start and contiguous(ids) and len(ids) <= _MAX_SUBJECT and plain


def _verb_group_starts(doc: Doc, v: Token, i: int) -> bool:
    """Whether token ``i`` is ``v`` or one of its auxiliaries, negation or adverbs before it."""
    t = doc[i]
    return t.i == v.i or (t.head.i == v.i and t.i < v.i and t.dep_ in {"aux", "auxpass", "neg", "advmod"})


@veto("not-declarative")
def _not_declarative(s: Site) -> bool:
    """A question or an exclamation: the connective's place there is not free."""
    stop = final_punct(s["v"])
    return stop is None or s.doc[stop].text != "."


# --------------------------------------------------------------------------- lower-connective, raise-connective


@veto("no-leading-connective")
def _no_leading(s: Site) -> bool:
    first, v = s.doc[s["sent"].start], s["v"]
    return first.lower_ not in words("connectives") or first.dep_ != "advmod" or first.head.i != v.i


@veto("protected-leading-connective")
def _protected_leading(s: Site) -> bool:
    """An anchor stays where it is."""
    return s["sent"].start in s.ctx.protected


@veto("no-comma-after-connective")
def _no_comma(s: Site) -> bool:
    i = s["sent"].start
    return i + 2 >= s["sent"].end or s.doc[i + 1].text != ","


@veto("vague-subject")
def _vague(s: Site) -> bool:
    """"It, however, is not clear whether …": an extraposed or vague subject reads stilted."""
    return s["subj"].lower_ in {"it", "this", "that"}


@veto("subject-not-right-after-connective")
def _subject_after_connective(s: Site) -> bool:
    return not _movable_subject(s.doc, _subject_ids(s), s["sent"].start + 2)


@veto("verb-not-after-subject")
def _verb_not_after(s: Site) -> bool:
    after = _subject_ids(s)[-1] + 1
    return after >= s["sent"].end or not _verb_group_starts(s.doc, s["v"], after)


@renderer("lower-connective")
def render_lower_connective(s: Site) -> list[Piece] | None:
    doc, sent, ids = s.doc, s["sent"], _subject_ids(s)
    first, after = doc[sent.start], ids[-1] + 1
    body = (keep(doc, ids) + [Piece(",", first.i + 1), Piece(first.text, first.i), Piece(",")]
            + keep(doc, range(after, sent.end)))
    return tidy(doc, rest_of_doc(doc, body, sent.root))


@veto("subject-not-leading-or-not-plain")
def _subject_not_leading(s: Site) -> bool:
    return not _movable_subject(s.doc, _subject_ids(s), s["sent"].start)


def _comma(s: Site) -> int:
    return _subject_ids(s)[-1] + 1


@veto("no-connective-between-commas")
def _no_connective(s: Site) -> bool:
    doc, c, v = s.doc, _comma(s), s["v"]
    if c + 3 >= s["sent"].end or doc[c].text != "," or doc[c + 2].text != ",":
        return True
    conn = doc[c + 1]
    return conn.lower_ not in words("connectives") or conn.dep_ != "advmod" or conn.head.i != v.i


@veto("protected-connective-after-subject")
def _protected_after(s: Site) -> bool:
    return _comma(s) + 1 in s.ctx.protected


@veto("verb-not-after-connective")
def _verb_not_after_connective(s: Site) -> bool:
    return not _verb_group_starts(s.doc, s["v"], _comma(s) + 3)


@renderer("raise-connective")
def render_raise_connective(s: Site) -> list[Piece] | None:
    doc, sent, ids, c = s.doc, s["sent"], _subject_ids(s), _comma(s)
    conn = doc[c + 1]
    body = [Piece(conn.text, conn.i), Piece(",", c)] + keep(doc, ids) + keep(doc, range(c + 3, sent.end))
    return tidy(doc, rest_of_doc(doc, body, sent.root))


# --------------------------------------------------------------------------- move-attribution, front-attribution

#: punctuation that joins a second clause: the attribution would then cover one clause before the
#: move and another after it ("According to X, A; B." → "A; B, according to X."), and a dateline's dash
_CLAUSE_JOINS = frozenset({";", ":", "--", "---", "-", "—", "–"})


def _attribution(doc: Doc, sent: Span) -> list[int] | None:
    """The tokens of the sentence's "according to X" on its main verb, if it has exactly one (and
    the sentence is not the rest of a line the parser cut, as after a dateline "LEEDS (AP) ---")."""
    if sent.start > 0 and doc[sent.start - 1].text not in {".", "!", "?", "''", '"', "”"}:
        return None
    found = [t for t in sent if t.lower_ == "according" and t.dep_ == "prep" and t.head.i == sent.root.i]
    if len(found) != 1 or sum(t.lower_ == "according" for t in sent) != 1:
        return None
    acc = found[0]
    if not any(c.lower_ == "to" and c.dep_ == "prep" for c in acc.children):
        return None
    ids = subtree(acc)
    return ids if contiguous(ids) else None


def _ids(s: Site) -> list[int]:
    return s.cached("attribution", lambda: _attribution(s.doc, s["sent"]))


def _parts(s: Site, leading: bool) -> tuple[int, list[int]]:
    """The comma between the attribution and its clause, and the clause's tokens."""
    ids, stop = _ids(s), final_punct(s["v"])
    if leading:
        return ids[-1] + 1, list(range(ids[-1] + 2, stop))
    return ids[0] - 1, list(range(s["sent"].start, ids[0] - 1))


@veto("no-single-according-to")
def _no_attribution(s: Site) -> bool:
    return _ids(s) is None


@veto("attribution-not-leading")
def _not_leading(s: Site) -> bool:
    comma, rest = _parts(s, True)
    return not (_ids(s)[0] == s["sent"].start and bool(rest) and s.doc[comma].text == ",")


@veto("attribution-not-closing")
def _not_closing(s: Site) -> bool:
    comma, rest = _parts(s, False)
    return not (_ids(s)[-1] == final_punct(s["v"]) - 1 and bool(rest) and s.doc[comma].text == ",")


def _clause_unmovable(doc: Doc, ids: list[int], rest: list[int]) -> bool:
    inside = set(rest)
    if any(doc[i].head.i not in inside for i in rest):
        return True  # a word of the clause hangs on the attribution or its comma: a misparse (an apposition)
    return (any(doc[i].is_quote or doc[i].is_bracket for i in [*rest, *ids])
            or any(doc[i].text in _CLAUSE_JOINS for i in rest)
            or doc[rest[-1]].is_punct)  # a quotation's closing mark before the new comma


@veto("clause-after-attribution-unmovable")
def _leading_clause_unmovable(s: Site) -> bool:
    return _clause_unmovable(s.doc, _ids(s), _parts(s, True)[1])


@veto("clause-before-attribution-unmovable")
def _closing_clause_unmovable(s: Site) -> bool:
    return _clause_unmovable(s.doc, _ids(s), _parts(s, False)[1])


@veto("participle-after-attribution")
def _participle(s: Site) -> bool:
    """"According to a report, cited by …": a participle the parser left outside the attribution."""
    return s.doc[_parts(s, True)[1][0]].tag_ in {"VBN", "VBG"}


@veto("fragment-before-attribution")
def _fragment(s: Site) -> bool:
    """"Up 5 percent, according to …" reads as a heading once fronted."""
    return _subject(s["v"]) is None


def _render_attribution(s: Site, leading: bool) -> list[Piece]:
    doc, sent, ids = s.doc, s["sent"], _ids(s)
    stop = final_punct(s["v"])
    comma, rest = _parts(s, leading)
    first, second = (rest, ids) if leading else (ids, rest)
    body = keep(doc, first) + [Piece(",", comma)] + keep(doc, second) + keep(doc, range(stop, sent.end))
    return tidy(doc, rest_of_doc(doc, body, sent.root))


@renderer("move-attribution")
def render_move_attribution(s: Site) -> list[Piece] | None:
    return _render_attribution(s, True)


@renderer("front-attribution")
def render_front_attribution(s: Site) -> list[Piece] | None:
    return _render_attribution(s, False)


# --------------------------------------------------------------------------- swap-conjuncts

_NAME_TAGS = frozenset({"NNP", "NNPS"})
#: spaCy entity types whose coordination is symmetric (people, groups, places), unlike dates or amounts
_SWAPPABLE = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC"})


def _cc(s: Site) -> Token:
    return next(c for c in s["b"].head.children if c.dep_ == "cc")


def _conjuncts(s: Site) -> tuple[list[int], list[int]]:
    def compute() -> tuple[list[int], list[int]]:
        b, cc = s["b"], _cc(s)
        b_ids = subtree(b)
        return [i for i in subtree(b.head) if i not in set(b_ids) and i != cc.i], b_ids
    return s.cached("conjuncts", compute)


@veto("head-not-a-name-before")
def _head_not_name(s: Site) -> bool:
    a, b = s["b"].head, s["b"]
    return a.tag_ not in _NAME_TAGS or a.i >= b.i


@veto("list-of-three-or-more")
def _list(s: Site) -> bool:
    """"China, Japan and Korea"."""
    a, b = s["b"].head, s["b"]
    return (a.dep_ == "conj" or [c for c in a.children if c.dep_ == "conj"] != [b]
            or any(c.dep_ == "conj" for c in b.children))


@veto("not-one-and-or")
def _not_and_or(s: Site) -> bool:
    ccs = [c for c in s["b"].head.children if c.dep_ == "cc"]
    return len(ccs) != 1 or ccs[0].lower_ not in {"and", "or"}


@veto("conjuncts-not-adjacent")
def _not_adjacent(s: Site) -> bool:
    (a_ids, b_ids), cc = _conjuncts(s), _cc(s)
    return not (contiguous(a_ids) and contiguous(b_ids)) or a_ids[-1] + 1 != cc.i or b_ids[0] != cc.i + 1


@veto("common-noun-in-conjunct")
def _common(s: Site) -> bool:
    """A common noun, a possessive or a pronoun: shared modifiers and reference break."""
    doc = s.doc
    return not all(doc[i].tag_ in _NAME_TAGS or doc[i].lower_ == "the" for ids in _conjuncts(s) for i in ids)


@veto("one-paired-name")
def _paired(s: Site) -> bool:
    """One name ("Bosnia and Herzegovina", "Procter and Gamble")."""
    doc, (a_ids, b_ids), cc = s.doc, _conjuncts(s), _cc(s)
    return cc.ent_iob_ == "I" or f"{doc[a_ids[-1]].lower_} {doc[b_ids[0]].lower_}" in words("paired-names")


@veto("protected-conjunction")
def _protected_cc(s: Site) -> bool:
    """Inside the anchor: an entity mention "Bosnia and Herzegovina" keeps its words."""
    return _cc(s).i in s.ctx.protected


@veto("not-symmetric-entities")
def _asymmetric(s: Site) -> bool:
    """Dates and numbers keep their order ("in July and August")."""
    a, b = s["b"].head, s["b"]
    return a.ent_type_ not in _SWAPPABLE or a.ent_type_ != b.ent_type_


@veto("shared-surname")
def _surname(s: Site) -> bool:
    """"Colin and Jacqui Hawkins" is no "Jacqui Hawkins and Colin"."""
    a_ids, b_ids = _conjuncts(s)
    return s["b"].head.ent_type_ == "PERSON" and len(a_ids) == 1 and len(b_ids) > 1


@veto("shared-article")
def _article(s: Site) -> bool:
    """"the South and East" is no "East and the South"."""
    doc, b, (a_ids, b_ids) = s.doc, s["b"], _conjuncts(s)
    return doc[a_ids[0]].lower_ == "the" and doc[b_ids[0]].lower_ != "the" and (
        b.ent_type_ in {"NORP", "LOC"} or b.lower_ in words("compass-names"))


def _one_entity(doc: Doc, ids: list[int]) -> bool:
    """Whether the tokens are one named entity of spaCy's, whole ("the" may stand before it)."""
    ent = next((e for e in doc.ents if e.start <= ids[-1] < e.end), None)
    if ent is None or ent.end - 1 != ids[-1]:
        return False
    return ent.start == ids[0] or (ent.start == ids[0] + 1 and doc[ids[0]].lower_ == "the")


@veto("not-two-whole-names")
def _not_whole(s: Site) -> bool:
    """"David and Lucile Packard Foundation" is one name."""
    a_ids, b_ids = _conjuncts(s)
    return not (_one_entity(s.doc, a_ids) and _one_entity(s.doc, b_ids))


@veto("inside-longer-name-or-title")
def _inside_name(s: Site) -> bool:
    """"Boston and Maine Railroad", "Committee on Education and Labor", or a title in title case."""
    doc, (a_ids, b_ids), cc = s.doc, _conjuncts(s), _cc(s)
    first, last = a_ids[0], b_ids[-1]
    before = doc[first - 1] if first > 0 else None
    after = doc[last + 1] if last + 1 < len(doc) else None
    if (before is not None and before.tag_ in _NAME_TAGS) or (after is not None and after.tag_ in _NAME_TAGS):
        return True
    if before is not None and before.pos_ == "ADP" and before.head.tag_ in _NAME_TAGS:
        return True
    sent = s["b"].head.sent
    skip = {*a_ids, cc.i, *b_ids, sent.start}
    ws = [t for t in sent if t.i not in skip and t.is_alpha]
    return len([t for t in ws if t.text[:1].isupper()]) >= max(2, 0.6 * len(ws))


@veto("order-word-in-sentence")
def _order_word(s: Site) -> bool:
    """"respectively", "former", a route's "from" and "via": the order means something."""
    return any(t.lower_ in words("order-words") for t in s["b"].head.sent)


@veto("no-verb-in-sentence")
def _no_verb(s: Site) -> bool:
    """A heading or list item ("Albany and West Stockbridge Railroad") may be one name."""
    return not any(t.pos_ in {"VERB", "AUX"} for t in s["b"].head.sent)


@veto("conjunct-after-opening-quote")
def _after_quote(s: Site) -> bool:
    """After an opening quotation mark the new first word would stay in lower case."""
    doc, a_ids, start = s.doc, _conjuncts(s)[0], s["b"].head.sent.start
    return a_ids[0] > start and doc[a_ids[0] - 1].is_quote and a_ids[0] - 1 == start


@veto("last-name-holds-full-stop")
def _full_stop(s: Site) -> bool:
    """"… Ann Lee and Tom Jones Jr.": swapped, the stop would stand mid-sentence."""
    return holds_full_stop(s.doc[_conjuncts(s)[1][-1]])


@renderer("swap-conjuncts")
def render_swap_conjuncts(s: Site) -> list[Piece] | None:
    doc, (a_ids, b_ids), cc = s.doc, _conjuncts(s), _cc(s)
    pieces = (keep(doc, range(0, a_ids[0])) + keep(doc, b_ids) + [Piece(cc.text, cc.i)] + keep(doc, a_ids)
              + keep(doc, range(b_ids[-1] + 1, len(doc))))
    return tidy(doc, pieces)
