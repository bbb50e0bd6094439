"""Readings of a spaCy parse that several hand-written rules share (quotation, monotonicity,
finiteness, copies of noun phrases, WordNet senses)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from paraspan.generate.rewrite.core import Piece, RuleContext, sent_range, subtree
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

SUBJ = {"nsubj", "nsubjpass", "csubj", "expl"}
#: tags of a tensed verb or modal
FINITE_TAGS = frozenset({"VBD", "VBZ", "VBP", "MD"})
#: closing quotation marks as the tokenizer leaves them
CLOSING_QUOTES = frozenset({'"', "''", "”"})
#: any quotation mark, BNC's "`" opening ones included
QUOTE_MARKS = CLOSING_QUOTES | {"`", "``", "“", "‘", "’"}
PLACES = {"GPE", "LOC", "FAC"}


def first_sense(ctx: RuleContext, lemma: str, pos: str) -> str | None:
    """The WordNet lexicographer file of ``lemma``'s most frequent sense ("noun.time" for
    "century"), or None without WordNet or the lemma."""
    if ctx.wordnet is None:
        return None
    senses = ctx.wordnet().synsets(lemma, pos)
    return senses[0].lexname() if senses else None


def verb_inflect(ctx: RuleContext, lemma: str, tag: str) -> str | None:
    return ctx.inflect(lemma, tag) if ctx.inflect is not None else None


def sent_ids(token: Token, drop: set[int] | None = None) -> list[int]:
    drop = drop or set()
    return [i for i in sent_range(token) if i not in drop]


def quantified(subj: Token) -> bool:
    """Whether ``subj`` is quantified ("many people", "most", "three men", "everyone", "others")."""
    q = words("quantifiers")
    return (subj.lower_ in q or subj.lower_ in words("quantified-pronouns")
            or any((c.dep_ in {"det", "amod", "predet"} and c.lower_ in q) or c.dep_ == "nummod"
                   for c in subj.children))


def leaves_quote_open(tokens: Iterable[Token]) -> bool:
    """Whether ``tokens`` hold an odd number of quotation marks (a possessive's apostrophe, "Zeus' son",
    is none): a quotation opened and not closed."""
    return sum(1 for t in tokens if t.is_quote and t.dep_ != "case") % 2 == 1


def relative_clause(verb: Token) -> bool:
    """A relative clause the parse can be trusted on: with a relative word, or with its own subject."""
    return verb.dep_ == "relcl" and any(c.dep_ in {"nsubj", "nsubjpass"} or c.tag_ in {"WDT", "WP", "WP$"}
                                        for c in verb.children)


def strip_stop(doc: Doc, ids: list[int]) -> list[int]:
    """A subtree without the sentence-final stop that the parser may have hung inside it."""
    while ids and doc[ids[-1]].text in {".", "!", "?"} and doc[ids[-1]].i == doc[ids[-1]].sent.end - 1:
        ids = ids[:-1]
    return ids


def comma_offset(doc: Doc, ids: list[int]) -> tuple[int, int | None] | None:
    """(comma before, comma after or None when the phrase ends the sentence) around ``ids``."""
    if not ids:
        return None
    lo, hi = min(ids), max(ids)
    if lo == 0 or doc[lo - 1].text != ",":
        return None
    if hi + 1 < len(doc) and doc[hi + 1].text == ",":
        return lo - 1, hi + 1
    if hi + 1 < len(doc) and doc[hi + 1].text in {".", "!", "?"} or hi + 1 == len(doc):
        return lo - 1, None
    return None


def np_copy(doc: Doc, noun: Token, cut: set[int], attach: int | None = None) -> list[Piece]:
    """Inserted copy of the noun phrase headed by ``noun`` without the tokens in ``cut``."""
    ids = [i for i in subtree(noun) if i not in cut and i <= noun.i]
    return copied(doc, without_brackets(doc, ids), attach)


def copied(doc: Doc, ids: list[int], attach: int | None = None) -> list[Piece]:
    """New pieces that copy the tokens ``ids``, neighbours the source wrote without a space kept as
    one word (the copy of "tail-in circle" is not "tail - in circle")."""
    out: list[Piece] = []
    for k, i in enumerate(ids):
        if k and ids[k - 1] == i - 1 and not doc[i - 1].whitespace_:
            out[-1] = Piece(out[-1].text + doc[i].text, None, attach, copy=out[-1].copy)
        else:
            out.append(Piece(doc[i].text, None, attach, copy=i))
    return out


def without_brackets(doc: Doc, ids: list[int]) -> list[int]:
    """``ids`` without bracketed words: the copy of "Santorini ( Thira )" is "Santorini"."""
    out: list[int] = []
    depth = 0
    for i in ids:
        text = doc[i].text
        if text in {"(", "[", "{", "-LRB-", "-LSB-"}:
            depth += 1
        elif text in {")", "]", "}", "-RRB-", "-RSB-"}:
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(i)
    return out


def main_past(token: Token) -> bool:
    """Whether the main clause of ``token``'s sentence is in the past. A main verb tagged as a
    participle with no auxiliary is a past tense misread ("The man, wearing a hat, left/VBN.")."""
    root = token.sent.root
    auxes = [c for c in root.children if c.dep_ in {"aux", "auxpass"}]
    return root.tag_ == "VBD" or (root.tag_ == "VBN" and not auxes) or any(c.tag_ == "VBD" for c in auxes)


def finite(v: Token) -> bool:
    """Whether ``v`` heads a finite clause (a tensed verb, or a tensed auxiliary or modal on it)."""
    return v.tag_ in FINITE_TAGS or any(c.dep_ in ("aux", "auxpass") and c.tag_ in FINITE_TAGS for c in v.children)


def verb_form(word: str, tag: str, *, of_another: bool = False) -> bool:
    """Whether ``word`` is the ``tag`` form (Penn: "VBZ", "VBD", "VBN") of one of its verb lemmas ("echoes",
    "rang", "dissolved"); with ``of_another``, of a lemma other than the word itself ("rang", not "put")."""
    from paraspan.models.inflect import inflect, lemmas

    return any((not of_another or lemma.lower() != word) and (inflect(lemma, tag) or "").lower() == word
               for lemma in lemmas(word, "VERB"))


#: WordNet's verb frames with no noun-phrase object ("Somebody ----s", "… ----s PP", "… ----s that CLAUSE",
#: "… ----s to INFINITIVE" …): a verb with one of these in its first sense may stand without an object
NO_OBJECT_FRAMES = frozenset({1, 2, 3, 4, 6, 7, 12, 13, 22, 23, 26, 27, 28, 29, 32, 33, 34, 35})


def lacks_object(verb: Token, ctx: RuleContext) -> bool:
    """Whether ``verb`` stands without the object its most frequent WordNet sense needs (no frame of
    that sense is without one). Auxiliary verbs stand alone by ellipsis; without WordNet, nothing lacks
    one."""
    if verb.pos_ != "VERB" or ctx.wordnet is None:
        return False
    if verb.lemma_.lower() in {"do", "have", "be", "get"} or any(
            c.dep_ in {"dobj", "ccomp", "xcomp", "attr", "acomp", "oprd", "dative", "prt", "auxpass"}
            for c in verb.children):
        return False
    senses = ctx.wordnet().synsets(verb.lemma_.lower(), pos="v")
    if not senses:
        return False
    lemma = next((lm for lm in senses[0].lemmas() if lm.name().lower() == verb.lemma_.lower()), None)
    frames = set(lemma.frame_ids() if lemma is not None else senses[0].frame_ids())
    return bool(frames) and not frames & NO_OBJECT_FRAMES


def numeric(token: Token) -> bool:
    """Whether ``token`` is a number or a score ("6–3", "1:0", "12.5"), which no apposition renames."""
    return token.like_num or (any(ch.isdigit() for ch in token.text)
                              and all(ch.isdigit() or ch in ".,:/–-" for ch in token.text))


def quoted(t: Token) -> bool:
    """Whether ``t`` is inside quotation marks (``…'', "…", “…”, '…', ‘…’) in its sentence."""
    inside, single, prev = False, False, None
    for w in t.sent:
        if w.i == t.i:
            return inside or single
        # the parser splits a PTB opening quote into two backticks
        if w.text in ("``", "“") or (w.text == "`" and prev is not None and prev.text == "`") or (
                w.text == '"' and not inside):
            inside = True
        elif w.text in ("''", "”") or (w.text == '"' and inside):
            inside = False
        elif w.text == "‘" or (w.text == "'" and not single and not w.whitespace_
                               and (prev is None or prev.whitespace_)):
            single = True  # an opening single quote: after a space, before a word (not "players' union")
        elif w.text in ("’", "'") and single:
            single = False
        prev = w
    return False


def downward(t: Token) -> bool:
    """Whether ``t`` is under a negation, a negative or universal determiner, "without" or a condition
    (natural-logic monotonicity, read from the heads above it and their dependents)."""
    down, heads, conditional = words("downward"), words("downward-heads"), words("conditional")
    below = t
    for a in [t, *t.ancestors]:
        if a.i != t.i and (a.lower_ in down or a.lemma_.lower() in heads):
            return True
        if a.dep_ == "pobj" and a.head.lower_ == "of" and (
                a.head.head.lemma_.lower() in words("proportions")
                or (a.head.head.like_num and any(c.dep_ == "nummod" for c in a.children))):
            return True  # a share, or a count out of a counted whole ("two of his aides")
        # a verb's negation does not reach into its subject ("the new tool has never been used")
        subject = a.i != t.i and below.dep_ in ("nsubj", "nsubjpass", "csubj", "expl")
        for c in a.children:
            if c.dep_ == "det" and c.lower_ in down and c.i != t.i:
                return True
            if c.dep_ == "acomp" and c.lemma_.lower() in heads and a.i != t.i:
                return True  # "it is difficult to …"
            if c.dep_ in ("neg", "advmod", "preconj") and c.lower_ in down and c.i != t.i and not subject:
                return True
            if c.dep_ == "mark" and a.i != t.i and (c.lower_ in conditional or condition_lead(c)):
                return True
        below = a
    return focus_scope(t)


def focus_scope(t: Token) -> bool:
    """Whether ``t`` is where an exclusive focus word ("only") makes dropping it not entailed."""
    for o in t.sent:
        if o.lower_ not in words("exclusive") or o.i == t.i or o.dep_ not in ("advmod", "amod", "preconj"):
            continue
        h = o.head
        if h.pos_ in ("VERB", "AUX"):
            # on the verb: its clause, not its subject ("the new tool is only used on Sundays")
            if under(t, h) and not any(under(t, c) for c in h.children if c.dep_ in ("nsubj", "nsubjpass")):
                return True
            continue
        exact = o.dep_ == "amod" or h.like_num or h.dep_ == "nummod"
        clause = next((a for a in h.ancestors if a.pos_ in ("VERB", "AUX")), h.sent.root)
        if under(t, clause) and (exact or not under(t, h)):
            return True
    return False


def under(t: Token, head: Token) -> bool:
    """Whether ``t`` is in the subtree of ``head``."""
    return t.i == head.i or head.is_ancestor(t)


def condition_lead(mark: Token) -> bool:
    """Whether the two words before ``mark`` make its clause a condition ("as long as", "to the extent that")."""
    doc = mark.doc
    return mark.i >= 2 and f"{doc[mark.i - 2].lower_} {doc[mark.i - 1].lower_}" in words("condition-leads")


def has_child(token: Token, *deps: str) -> bool:
    return _child(token, *deps) is not None
