"""Vetoes, renderers and site sources of the reordering rules: a leading modifier moved to the end or
deleted, a trailing one fronted."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paraspan.generate.rewrite.core import (
    Piece,
    contiguous,
    final_punct,
    keep,
    lower_first,
    rest_of_doc,
    subtree,
    tidy,
)
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.core import children as _children
from paraspan.generate.rewrite.parse import (
    SUBJ,
    finite,
    first_sense,
)
from paraspan.generate.rewrite.spec import Site, renderer, site_source, veto
from paraspan.generate.rewrite.wordlists import word_map, words

if TYPE_CHECKING:
    from collections.abc import Iterator

    from spacy.tokens import Doc, Token

    from paraspan.generate.rewrite.core import RuleContext


@site_source("root-child")
def root_children(doc: Doc, ctx: RuleContext, child: str = "m") -> Iterator[dict[str, Any]]:
    """Each child of each sentence's root ``v``."""
    for sent in doc.sents:
        v = sent.root
        for c in v.children:
            yield {"v": v, child: c, "sent": sent}


def _ids(s: Site, name: str) -> list[int]:
    return s.cached(f"ids:{name}", lambda: subtree(s[name]))

# --------------------------------------------------------------------------- leading modifiers


@veto("not-leading")
def _not_leading(s: Site) -> bool:
    ids = _ids(s, "m")
    return not contiguous(ids) or ids[0] != s["sent"].start


@veto("clause-read-as-noun-phrase")
def _clause_as_np(s: Site) -> bool:
    """"Ann turned round, the wind pushing her": a clause read as a noun phrase."""
    return s["m"].dep_ == "npadvmod" and any(s.doc[i].tag_ in {"VBD", "VBZ", "VBP", "MD"} for i in _ids(s, "m"))


@veto("noun-phrase-naming-no-time")
def _untimed_np(s: Site) -> bool:
    """A leading noun phrase says when ("Last week, …") or why ("Thanks to X, …"); any other is a vocative
    ("Anna, you are …") or a fragment the parser hung on the clause (a weather line)."""
    m = s["m"]
    return m.dep_ == "npadvmod" and m.lower_ != "thanks" and not any(
        s.doc[i].ent_type_ in {"DATE", "TIME"} for i in _ids(s, "m"))


@veto("absolute-main-clause")
def _absolute_main(s: Site) -> bool:
    """No finite verb: the "main clause" is an absolute phrase."""
    v = s["v"]
    return v.tag_ in {"VBG", "VBN"} and not _children(v, "aux", "auxpass")


@veto("no-comma-before-subject")
def _no_comma_subject(s: Site) -> bool:
    doc, sent, comma = s.doc, s["sent"], _ids(s, "m")[-1] + 1
    subj = _child(s["v"], *SUBJ)
    return not (comma < sent.end and doc[comma].text == "," and subj is not None and subj.i > comma)


@veto("immovable-preposition")
def _immovable(s: Site) -> bool:
    m = s["m"]
    return m.dep_ == "prep" and m.lower_ not in words("movable-preps")


@veto("connective-phrase")
def _connective(s: Site) -> bool:
    """"In sum", "In fact", "In short": a connective, not a time or place."""
    ids = _ids(s, "m")
    return s["m"].dep_ == "prep" and len(ids) == 2 and s.doc[ids[1]].tag_ in ("NN", "JJ", "RB")


@veto("unmarked-adverbial-clause")
def _unmarked(s: Site) -> bool:
    m = s["m"]
    return m.dep_ == "advcl" and not any(c.dep_ == "mark" and c.lower_ in words("adverbial-marks")
                                         for c in m.children)


def _rest(s: Site) -> list[int]:
    comma = _ids(s, "m")[-1] + 1
    stop = final_punct(s["v"])
    return s.cached("rest", lambda: list(range(comma + 1, stop)) if stop is not None else [])


@veto("no-final-stop")
def _no_stop(s: Site) -> bool:
    return final_punct(s["v"]) is None


@veto("correlative-then")
def _then(s: Site) -> bool:
    """"If X, then Y": "then" answers the "if" and would read as a time."""
    rest = _rest(s)
    return bool(rest) and s.doc[rest[0]].lower_ == "then"


@veto("resuming-demonstrative")
def _resuming(s: Site) -> bool:
    """"If X, that is valuable": moved behind, "that" points at nothing."""
    rest, doc = _rest(s), s.doc
    return bool(rest) and doc[rest[0]].lower_ in {"that", "this"} and doc[rest[0]].dep_ in {"nsubj", "nsubjpass"}


@veto("would-attach-to-last-phrase")
def _attach_last(s: Site) -> bool:
    """At the end it would attach to the last phrase ("… for its plan in the 1980s")."""
    doc, v = s.doc, s["v"]
    last = max((i for i in _rest(s) if not doc[i].is_punct), default=None)
    return last is None or (last != v.i and doc[last].head.i != v.i)


@veto("doubled-word-or-stranded-preposition")
def _doubled(s: Site) -> bool:
    """"X is in , and in ." (text lost from the source) would give "in in the …"."""
    doc = s.doc
    last = max(i for i in _rest(s) if not doc[i].is_punct)
    return doc[last].lower_ == doc[_ids(s, "m")[0]].lower_ or (doc[last].pos_ == "ADP"
                                                               and _child(doc[last], "pobj") is None)


def _may_stand_for(kind: str, t: Token, ctx: RuleContext) -> bool:
    """Whether a pronoun of ``kind`` (m, f, n, p) may stand for the noun ``t`` (WordNet's first sense;
    without WordNet, any noun)."""
    if t.pos_ == "PROPN":
        if not t.ent_type_:
            return True
        return kind != "n" if t.ent_type_ == "PERSON" else kind in {"n", "p"}
    if t.pos_ != "NOUN":
        return False
    sense = first_sense(ctx, t.lemma_.lower(), "n")
    if sense is None:
        return True
    person = sense == "noun.person"
    if kind in {"m", "f"}:
        return person
    if kind == "n":
        return not person
    return person or sense == "noun.group" or t.tag_ == "NNS"


@veto("pronoun-before-its-noun")
def _cataphoric(s: Site) -> bool:
    """"If a dog barks, its owner pays" → "Its owner pays, if a dog barks": the pronoun would come first."""
    doc, referent = s.doc, word_map("pronoun-referents")
    phrase = _ids(s, "m")
    kinds = {referent.get(doc[i].lower_) for i in _rest(s)} - {referent.get(doc[i].lower_) for i in phrase} - {None}
    return any(_may_stand_for(kind, doc[i], s.ctx) for kind in kinds if kind for i in phrase)


@renderer("move-leading-adverbial")
def render_move_leading(s: Site) -> list[Piece] | None:
    doc, v, m = s.doc, s["v"], s["m"]
    stop = final_punct(v)
    if stop is None:
        return None
    mid = [Piece(",")] if m.dep_ == "advcl" else []
    body = keep(doc, _rest(s)) + mid + lower_first(doc, keep(doc, _ids(s, "m"))) + keep(doc, range(stop, v.sent.end))
    return tidy(doc, rest_of_doc(doc, body, v))


@veto("exception-after-comma")
def _exception(s: Site) -> bool:
    """"In every year, except 1964, …": the exception is to the leading phrase."""
    return s.doc[_ids(s, "m")[-1] + 2].lower_ in words("exceptions")


@veto("since-of-perfect")
def _measured_since(s: Site) -> bool:
    """"Since March, the index has climbed 20 per cent": the amount is of that period."""
    return s.doc[_ids(s, "m")[0]].lower_ == "since" and any(c.dep_ == "aux" and c.lemma_ == "have"
                                                            for c in s["v"].children)


@renderer("delete-leading-modifier")
def render_delete_leading(s: Site) -> list[Piece] | None:
    doc, v = s.doc, s["v"]
    return tidy(doc, rest_of_doc(doc, keep(doc, range(_ids(s, "m")[-1] + 2, v.sent.end)), v))

# --------------------------------------------------------------------------- front-trailing-adverbial


@veto("subject-after-verb")
def _subject_after(s: Site) -> bool:
    return s["subj"].i > s["v"].i


@veto("words-before-subject-or-particle")
def _before_subject(s: Site) -> bool:
    """Something before the subject would stand between the fronted phrase and its clause; a particle verb
    ("zeroed in on") keeps its preposition."""
    return min(_ids(s, "subj")) != s["sent"].start or bool(_children(s["v"], "prt"))


@veto("verbless-fragment")
def _verbless(s: Site) -> bool:
    return not finite(s["v"])


@veto("locative-complement")
def _locative(s: Site) -> bool:
    """"He lives in Leeds" → "In Leeds, he lives": the verb's only complement."""
    return s["m"].dep_ == "prep" and s["v"].lemma_ in words("locative-complement")


@veto("governed-preposition")
def _governed(s: Site) -> bool:
    """"insist on a rise" → "On a rise, they insist": the verb's own preposition."""
    m, v = s["m"], s["v"]
    return m.dep_ == "prep" and m.lower_ == word_map("governed-preps").get(v.lemma_)


@veto("focus-word-on-phrase")
def _focus(s: Site) -> bool:
    """"found only in Zambia" → "Only in Zambia, it is found" needs inversion."""
    m, v = s["m"], s["v"]
    return any(c.dep_ == "advmod" and c.lower_ in words("focus") and c.i < m.i for c in [*m.children, *v.children])


@veto("not-clause-final")
def _not_final(s: Site) -> bool:
    ids, stop = _ids(s, "m"), final_punct(s["v"])
    return not contiguous(ids) or stop is None or ids[-1] != stop - 1


@veto("after-focus-or-restricting-adverb")
def _after_restricting(s: Site) -> bool:
    """"shown mostly on TV" → "On TV, it was shown mostly"."""
    return s.doc[_ids(s, "m")[0] - 1].lower_ in words("focus") | words("restricting-adverbs")


@veto("coordinated-phrase")
def _coordinated(s: Site) -> bool:
    """"leapt through the glass and into the van": a path, the verb's own."""
    return any(c.dep_ == "conj" for c in s["m"].children)


@veto("verb-before-phrase")
def _verb_between(s: Site) -> bool:
    """Another verb before the phrase may be what it modifies ("a knack for spotting talent before others")."""
    doc = s.doc
    return any(doc[i].pos_ in {"VERB", "AUX"} for i in range(s["v"].i + 1, _ids(s, "m")[0]))


@veto("quote-bracket-or-link-in-phrase")
def _quote_in_phrase(s: Site) -> bool:
    """A source line or a quotation the parser hung on the phrase."""
    doc = s.doc
    return any(doc[i].is_quote or doc[i].is_bracket or doc[i].like_url for i in _ids(s, "m"))


@veto("phrase-with-clause")
def _phrase_clause(s: Site) -> bool:
    """"In Ghana, where it has been seen …, it is found."""
    doc = s.doc
    return s["m"].dep_ == "prep" and any(doc[i].dep_ in {"relcl", "acl"} and doc[i].pos_ in {"VERB", "AUX"}
                                         for i in _ids(s, "m"))


@veto("immovable-or-objectless-preposition")
def _immovable_front(s: Site) -> bool:
    m = s["m"]
    return m.dep_ == "prep" and (m.lower_ not in words("movable-preps") or _child(m, "pobj") is None)


def _temporal(prep: Token) -> bool:
    """Whether a prepositional phrase says when: a preposition of time, or a date or time as its object."""
    obj = _child(prep, "pobj")
    return prep.lower_ in words("time-preps") or (obj is not None and obj.ent_type_ in {"DATE", "TIME"})


@veto("place-or-manner-after-verb-or-noun")
def _place_after(s: Site) -> bool:
    """Right after the verb, its object or any noun, a place or manner may be theirs ("their grip on a
    rail"); a time is neither."""
    doc, m, v, first = s.doc, s["m"], s["v"], _ids(s, "m")[0]
    return m.dep_ == "prep" and not _temporal(m) and (
        first == v.i + 1 or doc[first - 1].dep_ in {"dobj", "attr", "oprd"} or doc[first - 1].pos_ in {"NOUN", "PROPN"})


def _as_marks(s: Site) -> list[Token]:
    m = s["m"]
    return [c for c in m.children if c.dep_ == "mark" and c.lower_ == "as"] if m.dep_ == "advcl" else []


@veto("inverted-clause")
def _inverted(s: Site) -> bool:
    """"…, as are X and Y" follows what it compares with; so does "as have many others"."""
    m = s["m"]
    if m.dep_ == "advcl" and any(c.dep_ in {"nsubj", "nsubjpass"} and c.i > m.i for c in m.children):
        return True
    return (m.lemma_ in {"have", "do", "be"} or m.tag_ == "MD") and any(c.i == m.i - 1 for c in _as_marks(s))


@veto("past-time-of-object-noun")
def _object_time(s: Site) -> bool:
    """A present verb and a past time after its object's own phrase: the time is the noun's."""
    doc, v, obj, ids = s.doc, s["v"], s.get("obj"), _ids(s, "m")
    return (v.tag_ in {"VBZ", "VBP"} and obj is not None and ids[0] - 1 in subtree(obj) and ids[0] - 1 != obj.i
            and any(doc[i].ent_type_ == "DATE" or doc[i].lemma_ in words("period-nouns") for i in ids))


@veto("time-of-happening-verb")
def _when_verb(s: Site) -> bool:
    """"The split came after a row": when it came is what the verb says."""
    return s["v"].lemma_ in words("when-verbs") and s.get("obj") is None


@veto("second-half-of-as-comparison")
def _as_comparison(s: Site) -> bool:
    """The second half of "as much X, as Y"."""
    return bool(_as_marks(s)) and any(t.lower_ == "as" and t.i < min(subtree(s["m"])) for t in s["sent"])


@veto("restricting-as-clause")
def _restricting_as(s: Site) -> bool:
    """"the law as it relates to X" limits the noun before it, not the clause."""
    return bool(_as_marks(s)) and s["m"].lemma_.lower() in words("restricting-as")


@veto("phrase-of-a-complement")
def _in_complement(s: Site) -> bool:
    """The phrase may modify a verb inside the root's complement ("it was X acquired by Y in a sale")."""
    m = s["m"]
    return any(c.dep_ in {"attr", "acomp", "ccomp", "xcomp", "oprd"} and c.i < m.i for c in s["v"].children)


@veto("two-subjects")
def _two_subjects(s: Site) -> bool:
    return len(_children(s["v"], *SUBJ)) > 1


@veto("complement-of-be")
def _be_complement(s: Site) -> bool:
    """"The attack was in response to …": the phrase is what "was" says."""
    v = s["v"]
    return v.lemma_ == "be" and not _children(v, "acomp", "attr")


@veto("another-date-in-sentence")
def _other_date(s: Site) -> bool:
    """"joined X in 1994 and Y in 1995": the last date is Y's alone."""
    ids = set(_ids(s, "m"))
    return any(t.ent_type_ == "DATE" for t in s["sent"] if t.i not in ids)


@veto("second-half-of-with-phrase")
def _with_phrase(s: Site) -> bool:
    """"with Ann at its head": the phrase belongs to the "with" before it."""
    doc, first = s.doc, _ids(s, "m")[0]
    return first >= 2 and doc[first - 1].dep_ == "pobj" and doc[first - 1].head.lower_ == "with"


@veto("dash-before-phrase")
def _dash(s: Site) -> bool:
    """An afterthought after a dash: fronted, it would leave the dash."""
    doc = s.doc
    return any(doc[i].text in {"--", "-", "–", "—"} for i in range(s["v"].i + 1, _ids(s, "m")[0]))


@renderer("front-trailing-adverbial")
def render_front_trailing(s: Site) -> list[Piece] | None:
    doc, v, sent, ids = s.doc, s["v"], s["sent"], _ids(s, "m")
    stop = final_punct(v)
    if stop is None:
        return None
    drop = set(ids) | ({ids[0] - 1} if doc[ids[0] - 1].text == "," else set())
    rest = [i for i in range(sent.start, stop) if i not in drop]
    body = keep(doc, ids) + [Piece(",")] + lower_first(doc, keep(doc, rest)) + [Piece(doc[stop].text, stop)]
    return tidy(doc, rest_of_doc(doc, body, v))
