"""Rewrite rules that move words without changing any (family ``reorder``).

Two pairs that move one phrase commenting on the whole clause, and one rule for coordinated names:

- ``lower-connective`` / ``raise-connective``: "However, the plant closed." ↔ "The plant, however,
  closed." (however, therefore, nevertheless, nonetheless, meanwhile, moreover, consequently,
  furthermore: the connectives that read naturally after a subject).
- ``move-attribution`` / ``front-attribution``: "According to the ministry, the plant closed." ↔
  "The plant closed, according to the ministry."
- ``swap-conjuncts``: "Iran and Iraq signed the treaty." → "Iraq and Iran signed the treaty." (two
  whole names of one kind, where nothing makes their order mean something).

Where they apply: a look at the FrameNet train sentences the default cascade wrote nothing for
(fn-cascade-train-g..m: 1,141 sentences) found a leading connective in about 30, an "according
to" in 21 and two coordinated names in more, the commonest patterns the other rules leave alone;
together they give 3% of those structures a candidate (benchmarks/README.md, the exemplar runs).

Spans: every word keeps its token, so a labelled span moves with its words. A connective or an
attribution that is a structure's anchor stays where it is: moved into its clause, the connective
would land inside its own frame element ("[Main_assertion the plant, however, closed]").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paraspan.generate.rewrite.core import (
    Piece,
    Rule,
    RuleContext,
    contiguous,
    final_punct,
    holds_full_stop,
    keep,
    rest_of_doc,
    subtree,
    tidy,
)

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

#: connectives that read naturally both before the clause and after its subject ("thus", "instead",
#: "also" do not: "The plant, thus, closed")
CONNECTIVES = frozenset({"however", "therefore", "nevertheless", "nonetheless", "meanwhile", "moreover",
                         "consequently", "furthermore"})
_SUBJECTS = ("nsubj", "nsubjpass")
#: a subject longer than this puts the connective too far from the start to read as one
_MAX_SUBJECT = 8


def _subject(v: Token) -> Token | None:
    return next((c for c in v.children if c.dep_ in _SUBJECTS), None)


def _plain(doc: Doc, ids: list[int]) -> bool:
    """No punctuation that a move would have to re-balance (commas of an apposition, quotation
    marks, brackets, dashes)."""
    return not any(doc[i].is_punct or doc[i].is_quote or doc[i].is_bracket for i in ids)


def _movable_subject(doc: Doc, ids: list[int], start: int) -> bool:
    """Whether a subject's tokens start at ``start`` and are short and plain enough for a
    connective to stand right after them."""
    return ids[0] == start and contiguous(ids) and len(ids) <= _MAX_SUBJECT and _plain(doc, ids)


def _verb_group_starts(doc: Doc, v: Token, i: int) -> bool:
    """Whether token ``i`` is ``v`` or one of its auxiliaries, negation or adverbs before it: the
    subject is followed by its verb ("The plant, however, had closed")."""
    t = doc[i]
    return t.i == v.i or (t.head.i == v.i and t.i < v.i and t.dep_ in {"aux", "auxpass", "neg", "advmod"})


def _declarative(sent: Span) -> bool:
    stop = final_punct(sent.root)
    return stop is not None and sent.doc[stop].text == "."


def lower_connective(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"However, the plant closed." → "The plant, however, closed." """
    out = []
    for sent in doc.sents:
        v, first = sent.root, doc[sent.start]
        if (first.lower_ not in CONNECTIVES or first.dep_ != "advmod" or first.head.i != v.i
                or first.i in ctx.protected or not _declarative(sent)):
            continue
        subj = _subject(v)
        if subj is None or first.i + 2 >= sent.end or doc[first.i + 1].text != ",":
            continue
        if subj.lower_ in {"it", "this", "that"}:
            continue  # "It, however, is not clear whether …": an extraposed or vague subject reads stilted
        ids = subtree(subj)
        if not _movable_subject(doc, ids, first.i + 2):
            continue
        after = ids[-1] + 1
        if after >= sent.end or not _verb_group_starts(doc, v, after):
            continue
        body = (keep(doc, ids) + [Piece(",", first.i + 1), Piece(first.text, first.i), Piece(",")]
                + keep(doc, range(after, sent.end)))
        out.append(tidy(doc, rest_of_doc(doc, body, sent.root)))
    return out


def raise_connective(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"The plant, however, closed." → "However, the plant closed." """
    out = []
    for sent in doc.sents:
        v = sent.root
        subj = _subject(v)
        if subj is None or not _declarative(sent):
            continue
        ids = subtree(subj)
        if not _movable_subject(doc, ids, sent.start):
            continue
        c = ids[-1] + 1
        if c + 3 >= sent.end or doc[c].text != "," or doc[c + 2].text != ",":
            continue
        conn = doc[c + 1]
        if conn.lower_ not in CONNECTIVES or conn.dep_ != "advmod" or conn.head.i != v.i or conn.i in ctx.protected:
            continue
        if not _verb_group_starts(doc, v, c + 3):
            continue
        body = [Piece(conn.text, conn.i), Piece(",", c)] + keep(doc, ids) + keep(doc, range(c + 3, sent.end))
        out.append(tidy(doc, rest_of_doc(doc, body, sent.root)))
    return out


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


#: punctuation that joins a second clause: the attribution would then cover one clause before the
#: move and another after it ("According to X, A; B." → "A; B, according to X.")
_CLAUSE_JOINS = frozenset({";", ":", "--", "---", "-", "—", "–"})  # and a dateline's dash ("LONDON (AP) ---")


def _movable_clause(doc: Doc, ids: list[int], rest: list[int]) -> bool:
    """Whether the clause (``rest``) can change places with the attribution (``ids``)."""
    inside = set(rest)
    if any(doc[i].head.i not in inside for i in rest):
        return False  # a word of the clause hangs on the attribution or its comma: a misparse (an apposition)
    return not (any(doc[i].is_quote or doc[i].is_bracket for i in [*rest, *ids])
                or any(doc[i].text in _CLAUSE_JOINS for i in rest)
                or doc[rest[-1]].is_punct)  # a quotation's closing mark before the new comma


def _attribution_moves(doc: Doc, leading: bool) -> list[list[Piece]]:
    """The attribution and its clause change places: a ``leading`` one goes to the end, a closing one
    to the front."""
    out = []
    for sent in doc.sents:
        ids = _attribution(doc, sent)
        stop = final_punct(sent.root)
        if ids is None or stop is None:
            continue
        if leading:
            comma, rest = ids[-1] + 1, list(range(ids[-1] + 2, stop))
            placed = ids[0] == sent.start and bool(rest) and doc[comma].text == ","
        else:
            comma, rest = ids[0] - 1, list(range(sent.start, ids[0] - 1))
            placed = ids[-1] == stop - 1 and bool(rest) and doc[comma].text == ","
        if not placed or not _movable_clause(doc, ids, rest):
            continue
        if leading and doc[rest[0]].tag_ in {"VBN", "VBG"}:
            continue  # a participle the parser left outside the attribution ("According to a report, cited by …")
        if not leading and _subject(sent.root) is None:
            continue  # a fragment ("Up 5 percent, according to …") reads as a heading once fronted
        first, second = (rest, ids) if leading else (ids, rest)
        body = keep(doc, first) + [Piece(",", comma)] + keep(doc, second) + keep(doc, range(stop, sent.end))
        out.append(tidy(doc, rest_of_doc(doc, body, sent.root)))
    return out


def move_attribution(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"According to the ministry, the plant closed." → "The plant closed, according to the ministry." """
    return _attribution_moves(doc, leading=True)


def front_attribution(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"The plant closed, according to the ministry." → "According to the ministry, the plant closed." """
    return _attribution_moves(doc, leading=False)


LOWER_CONNECTIVE = Rule("lower-connective", "reorder", "hand", lower_connective,
                        description="a clause-initial connective (however, therefore, …) → after the subject",
                        example="However, the plant closed. → The plant, however, closed.")
RAISE_CONNECTIVE = Rule("raise-connective", "reorder", "hand", raise_connective,
                        description="a connective after the subject → the start of the clause",
                        example="The plant, however, closed. → However, the plant closed.")
MOVE_ATTRIBUTION = Rule("move-attribution", "reorder", "hand", move_attribution,
                        description='a leading "according to X" → the end of the sentence',
                        example="According to the ministry, the plant closed. → The plant closed, according to the "
                                "ministry.",
                        # v2: no dash of a dateline in the clause (fn-cascade-exemplars-connective, refused)
                        version="2")
FRONT_ATTRIBUTION = Rule("front-attribution", "reorder", "hand", front_attribution,
                         description='a closing "according to X" → the start of the sentence',
                         example="The plant closed, according to the ministry. → According to the ministry, the plant "
                                 "closed.",
                         version="2")  # v2 as move-attribution v2


# --------------------------------------------------------------------------- coordinated names

#: two-part names of one thing: "Bosnia and Herzegovina" is one country
_PAIRED_NAMES = frozenset({("bosnia", "herzegovina"), ("trinidad", "tobago"), ("antigua", "barbuda"),
                           ("nevis", "kitts"), ("tome", "principe"), ("marks", "spencer"), ("johnson", "johnson"),
                           ("procter", "gamble"), ("turks", "caicos"), ("heard", "mcdonald"), ("wallis", "futuna"),
                           ("saint", "pierre"), ("pierre", "miquelon"), ("ashmore", "cartier")})
#: words that make the order of the conjuncts mean something
_ORDER_WORDS = frozenset({"respectively", "former", "latter", "vice", "first", "then", "later", "before", "after",
                          "versus", "vs", "vs.", "v.", "from", "through", "via"})  # a route's stops are in order
_COMPASS = frozenset({"north", "south", "east", "west", "midlands", "northeast", "northwest", "southeast",
                      "southwest"})
_NAME_TAGS = frozenset({"NNP", "NNPS"})
#: spaCy entity types whose coordination is symmetric (people, groups, places), unlike dates or amounts
_SWAPPABLE = frozenset({"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC"})


def _one_entity(doc: Doc, ids: list[int]) -> bool:
    """Whether the tokens are one named entity of spaCy's, whole ("the" may stand before it)."""
    ent = next((e for e in doc.ents if e.start <= ids[-1] < e.end), None)
    if ent is None or ent.end - 1 != ids[-1]:
        return False
    return ent.start == ids[0] or (ent.start == ids[0] + 1 and doc[ids[0]].lower_ == "the")


def _inside_name(doc: Doc, first: int, last: int) -> bool:
    """Whether the coordination sits inside a longer name: a name word right before or after it
    ("Boston and Maine Railroad"), or a name's own preposition before it ("Committee on Education
    and Labor", "Diocese of Britain and Scandinavia")."""
    before = doc[first - 1] if first > 0 else None
    after = doc[last + 1] if last + 1 < len(doc) else None
    if (before is not None and before.tag_ in _NAME_TAGS) or (after is not None and after.tag_ in _NAME_TAGS):
        return True
    return before is not None and before.pos_ == "ADP" and before.head.tag_ in _NAME_TAGS


def _title_like(doc: Doc, sent: Span, inside: list[int]) -> bool:
    """A title in title case ("The Moon and Stars Are Singing Over Me"): most words outside the
    coordination are capitalised too, so the whole may be one name."""
    skip = set(inside) | {sent.start}
    words = [t for t in sent if t.i not in skip and t.is_alpha]
    return len([t for t in words if t.text[:1].isupper()]) >= max(2, 0.6 * len(words))


def swap_conjuncts(doc: Doc, ctx: RuleContext) -> list[list[Piece]]:
    """"Iran and Iraq signed the treaty." → "Iraq and Iran signed the treaty." (two names only)"""
    out = []
    for b in doc:
        a = b.head
        if b.dep_ != "conj" or b.tag_ not in _NAME_TAGS or a.tag_ not in _NAME_TAGS or a.i >= b.i:
            continue
        if (a.dep_ == "conj" or [c for c in a.children if c.dep_ == "conj"] != [b]
                or any(c.dep_ == "conj" for c in b.children)):
            continue  # a list of three or more ("China, Japan and Korea")
        ccs = [c for c in a.children if c.dep_ == "cc"]
        if len(ccs) != 1 or ccs[0].lower_ not in {"and", "or"}:
            continue
        cc = ccs[0]
        b_ids = subtree(b)
        a_ids = [i for i in subtree(a) if i not in set(b_ids) and i != cc.i]
        if not (contiguous(a_ids) and contiguous(b_ids)) or a_ids[-1] + 1 != cc.i or b_ids[0] != cc.i + 1:
            continue
        if not all(doc[i].tag_ in _NAME_TAGS or doc[i].lower_ == "the" for i in [*a_ids, *b_ids]):
            continue  # a common noun, a possessive or a pronoun: shared modifiers and reference break
        if cc.ent_iob_ == "I" or (doc[a_ids[-1]].lower_, doc[b_ids[0]].lower_) in _PAIRED_NAMES:
            continue  # one name ("Bosnia and Herzegovina", "Procter and Gamble")
        if cc.i in ctx.protected:
            continue  # inside the anchor: an entity mention "Bosnia and Herzegovina" keeps its words
        if a.ent_type_ not in _SWAPPABLE or a.ent_type_ != b.ent_type_:
            continue  # dates and numbers keep their order ("in July and August")
        if a.ent_type_ == "PERSON" and len(a_ids) == 1 and len(b_ids) > 1:
            continue  # a shared surname: "Colin and Jacqui Hawkins" is no "Jacqui Hawkins and Colin"
        if doc[a_ids[0]].lower_ == "the" and doc[b_ids[0]].lower_ != "the" and (
                b.ent_type_ in {"NORP", "LOC"} or b.lower_ in _COMPASS):
            continue  # a shared article: "the South and East" is no "East and the South"
        if not (_one_entity(doc, a_ids) and _one_entity(doc, b_ids)):
            continue  # two names of one kind, each a whole name ("David and Lucile Packard Foundation" is one)
        if _inside_name(doc, a_ids[0], b_ids[-1]) or _title_like(doc, a.sent, [*a_ids, cc.i, *b_ids]):
            continue
        if any(t.lower_ in _ORDER_WORDS for t in a.sent):
            continue
        if not any(t.pos_ in {"VERB", "AUX"} for t in a.sent):
            continue  # a heading or list item ("Albany and West Stockbridge Railroad") may be one name
        if a_ids[0] > a.sent.start and doc[a_ids[0] - 1].is_quote and a_ids[0] - 1 == a.sent.start:
            continue  # after an opening quotation mark the new first word would stay in lower case
        if holds_full_stop(doc[b_ids[-1]]):
            continue  # the tokenizer kept the full stop on the last name ("… Ann Lee and Tom Jones Jr."): swapped, it
            # would stand mid-sentence and the sentence end without one (WikiANN train, made up)
        pieces = (keep(doc, range(0, a_ids[0])) + keep(doc, b_ids) + [Piece(cc.text, cc.i)] + keep(doc, a_ids)
                  + keep(doc, range(b_ids[-1] + 1, len(doc))))
        out.append(tidy(doc, pieces))
    return out


SWAP_CONJUNCTS = Rule("swap-conjuncts", "reorder", "hand", swap_conjuncts,
                      description="two coordinated names change places",
                      example="Iran and Iraq signed the treaty. → Iraq and Iran signed the treaty.",
                      # v2: no shared surname or article, no route (fn-cascade-exemplars-swap)
                      # v3: not when the sentence's full stop is part of the last name's token (WikiANN train)
                      version="3")
