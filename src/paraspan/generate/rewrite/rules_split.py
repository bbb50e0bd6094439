"""Vetoes and renderers of the splits: conjoined clauses into two sentences, conjoined verb phrases
into two with the subject copied."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING

from paraspan.generate.rewrite.core import (
    Piece,
    contiguous,
    final_punct,
    is_plural,
    keep,
    lower_first,
    rest_of_doc,
    subtree,
    tidy,
)
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.core import children as _children
from paraspan.generate.rewrite.parse import QUOTE_MARKS, copied, finite, lacks_object, quantified, verb_form
from paraspan.generate.rewrite.spec import Site, renderer, veto
from paraspan.generate.rewrite.wordlists import words

if TYPE_CHECKING:
    from spacy.tokens import Doc


def _ids(s: Site, name: str) -> list[int]:
    return s.cached(f"ids:{name}", lambda: subtree(s[name]))


# --------------------------------------------------------------------------- splits


def _cc(s: Site, conjunctions: set[str]) -> int | None:
    cc = [t for t in s["v"].children if t.dep_ == "cc" and t.i < s["c"].i and t.lower_ in conjunctions]
    return cc[-1].i if cc else None


def _c_ids(s: Site) -> list[int]:
    stop = final_punct(s["v"])
    return s.cached("c_ids", lambda: [i for i in subtree(s["c"]) if i != stop])


def _first(s: Site, cc_i: int) -> list[int]:
    doc = s.doc
    return [i for i in range(s["sent"].start, cc_i) if not (i == cc_i - 1 and doc[i].text == ",")]


def _scopes_over_both(doc: Doc, first: list[int]) -> bool:
    """A condition or "not only" in the first conjunct also holds over the second ("If A, B and C")."""
    ws = [doc[i] for i in first]
    return (any(t.lower_ in words("conditional") and t.dep_ == "mark" for t in ws)
            or any(a.lower_ == "not" and b.lower_ == "only" for a, b in pairwise(ws)))


@veto("no-and-or-but-clause")
def _no_clause(s: Site) -> bool:
    """Not a verb with its own subject after "and"/"but", with a final stop."""
    c = s["c"]
    if c.dep_ != "conj" or c.pos_ not in {"VERB", "AUX"} or _child(c, "nsubj", "nsubjpass", "expl") is None:
        return True
    return _cc(s, {"and", "but"}) is None or final_punct(s["v"]) is None


@veto("second-clause-not-after-conjunction")
def _clause_shape(s: Site) -> bool:
    doc, c_ids, cc_i, stop = s.doc, _c_ids(s), _cc(s, {"and", "but"}), final_punct(s["v"])
    if not contiguous(c_ids) or c_ids[0] != cc_i + 1:
        return True
    first = _first(s, cc_i)
    return not first or any(i > c_ids[-1] for i in range(c_ids[-1] + 1, stop)) or doc[first[-1]].is_punct


@veto("comma-joined-clauses")
def _comma_joined(s: Site) -> bool:
    """"A, B, and C" → "A, B. C.": the first sentence would be a comma splice; also a listed tensed verb
    phrase after the root ("He studied X, taught Y, and he is Z")."""
    doc, v, before = s.doc, s["v"], _cc(s, {"and", "but"})
    for x in v.children:
        if x.i >= before or x.pos_ not in {"VERB", "AUX"}:
            continue
        subject = _child(x, "nsubj", "nsubjpass", "expl")
        listed_vp = (x.i > v.i and x.dep_ in {"conj", "advcl"} and subject is None
                     and x.tag_ in {"VBD", "VBN", "VBZ", "VBP"} and doc[min(subtree(x)) - 1].text == ",")
        if not listed_vp and (x.dep_ not in {"ccomp", "parataxis", "conj"} or subject is None):
            continue
        if _child(x, "mark") is not None:
            continue
        end = max(subtree(x))
        if end + 1 < len(doc) and doc[end + 1].text in {",", ";"}:
            return True
    return False


@veto("first-clause-ends-in-complement")
def _ends_in_complement(s: Site) -> bool:
    """"I wonder if X is Y, and it's Z": the second clause may be wondered too."""
    doc, v = s.doc, s["v"]
    t = doc[_first(s, _cc(s, {"and", "but"}))[-1]]
    while t.i != v.i and t.i != t.head.i:
        if t.dep_ == "ccomp" or (t.dep_ == "advcl" and any(c.lower_ in {"if", "whether"} for c in t.children)):
            return True
        t = t.head
    return False


@veto("condition-over-both-clauses")
def _condition_over_both(s: Site) -> bool:
    return _scopes_over_both(s.doc, _first(s, _cc(s, {"and", "but"})))


@veto("no-clause-to-stand-alone")
def _not_alone(s: Site) -> bool:
    """A misread coordinated subject, "…, and that Y", or a subordinate first clause ("As X, and as Y, Z")."""
    return not finite(s["v"]) or _child(s["c"], "mark") is not None or _child(s["v"], "mark") is not None


@veto("elided-passive-auxiliary")
def _elided_was(s: Site) -> bool:
    """"X was closed and the office sold": the second "was" is left out, and alone it reads as active."""
    v, c = s["v"], s["c"]
    return (_child(v, "auxpass") is not None and c.tag_ in {"VBD", "VBN"} and verb_form(c.lower_, "VBN")
            and _child(c, "aux", "auxpass", "dobj", "dative", "ccomp", "xcomp", "attr", "acomp") is None)


@veto("question-or-embedded-wh")
def _question(s: Site) -> bool:
    """A question, or "… about X, and how it had …" joined to an object."""
    doc, start = s.doc, s["sent"].start
    return doc[_c_ids(s)[0]].tag_ in {"WRB", "WP", "WDT"} or doc[start].tag_ == "MD" or (
        doc[start].lemma_ in {"do", "be", "have"} and doc[start].dep_ in {"aux", "auxpass"})


@veto("reported-first-clause")
def _reported(s: Site) -> bool:
    """"X, he said, but Y": Y is reported too."""
    cc_i = _cc(s, {"and", "but"})
    return any(t.dep_ == "parataxis" and t.i < cc_i for t in s["v"].children)


@veto("noun-read-as-verb")
def _noun_as_verb(s: Site) -> bool:
    """A verb with a determiner is a noun the parser took for a verb."""
    doc = s.doc
    return any(doc[i].pos_ in {"VERB", "AUX"} and _child(doc[i], "det") is not None
               for i in _first(s, _cc(s, {"and", "but"})))


@veto("object-read-as-subject")
def _object_as_subject(s: Site) -> bool:
    """"…, but now represents Qatar": a "subject" after a lexical verb; "and so did she" stays."""
    c = s["c"]
    subject = _child(c, "nsubj", "nsubjpass", "expl")
    return subject.i > c.i and c.pos_ == "VERB" and c.lemma_ not in {"be", "do", "have"}


@veto("preposition-object-read-as-subject")
def _pobj_as_subject(s: Site) -> bool:
    """"…, and before marriage wrote a book": the preposition's object read as the subject."""
    c = s["c"]
    subject = _child(c, "nsubj", "nsubjpass", "expl")
    return any(t.dep_ == "prep" and t.i < subject.i and _child(t, "pobj") is None for t in c.children)


@renderer("split-conjoined-clauses")
def render_split_clauses(s: Site) -> list[Piece] | None:
    """"but" stays, starting the new sentence (without it the contrast is lost); "and" goes."""
    doc, v, sent = s.doc, s["v"], s["sent"]
    cc_i, c_ids = _cc(s, {"and", "but"}), _c_ids(s)
    but = keep(doc, [cc_i]) if doc[cc_i].lower_ == "but" else []
    body = keep(doc, _first(s, cc_i)) + [Piece(".")] + but + lower_first(doc, keep(doc, c_ids)) + keep(
        doc, range(c_ids[-1] + 1, sent.end))
    return tidy(doc, rest_of_doc(doc, body, v))


@veto("two-subjects-of-root")
def _two_root_subjects(s: Site) -> bool:
    """A misparse: "The first of its kind, this course teaches …" would copy "The first of its kind"."""
    return len(_children(s["v"], "nsubj", "nsubjpass")) > 1


@veto("no-and-verb-phrase")
def _no_vp(s: Site) -> bool:
    """Not a verb without its own subject after "and", running to the final stop."""
    c, stop = s["c"], final_punct(s["v"])
    if c.dep_ != "conj" or c.pos_ != "VERB" or _child(c, "nsubj", "nsubjpass", "expl") is not None:
        return True
    cc_i, c_ids = _cc(s, {"and"}), _c_ids(s)
    return cc_i is None or not contiguous(c_ids) or c_ids[0] != cc_i + 1 or c_ids[-1] != stop - 1


@veto("new-referent-subject")
def _new_referent(s: Site) -> bool:
    """"A woman came … . A woman asked …": a quantified or indefinite copy names someone new."""
    subj = s["subj"]
    return quantified(subj) or any(t.dep_ == "det" and t.lower_ in {"a", "an", "another"} for t in subj.children)


@veto("quotation-as-subject")
def _quote_subject(s: Site) -> bool:
    """"` That ! " said Ann, and pointed": a misparsed quotation as the subject."""
    doc = s.doc
    return any(doc[i].text in QUOTE_MARKS or doc[i].text in {"!", "?"} for i in _ids(s, "subj"))


@veto("quotation-before-verb")
def _quote_before_verb(s: Site) -> bool:
    """A quotation before the verb: its words are no subject, whatever the parse."""
    doc = s.doc
    return any(doc[i].is_quote or doc[i].text in QUOTE_MARKS for i in range(s["sent"].start, s["v"].i))


@veto("exception-in-subject")
def _exception_subject(s: Site) -> bool:
    """The copy would drop the exception ("The board, apart from Ann, is …")."""
    between = s.doc[_ids(s, "subj")[-1] + 1: s["v"].i].text.lower()
    return any(f" {w} " in f" {between} " for w in sorted(words("exception-phrases")))


@veto("second-verb-disagrees")
def _disagrees(s: Site) -> bool:
    """The second verb does not agree with the subject: it had another."""
    c, subj = s["c"], s["subj"]
    number = {t.tag_ for t in (c, *_children(c, "aux", "auxpass"))} & {"VBZ", "VBP"}
    return (number == {"VBP"} and not is_plural(subj) and subj.lower_ not in {"i", "you"}) or (
        number == {"VBZ"} and is_plural(subj))


@veto("shared-auxiliary")
def _shared_aux(s: Site) -> bool:
    """"I will call and write": the second verb shares "will"."""
    return bool(_children(s["v"], "aux", "auxpass", "neg")) and not _children(s["c"], "aux", "auxpass")


@veto("shared-object")
def _shared_object(s: Site) -> bool:
    """"reviewed and rejected the plan": the object after the second verb is both verbs'."""
    v = s["v"]
    return lacks_object(v, s.ctx) and not any(t.i > v.i and t.dep_ not in {"cc", "conj", "punct"} for t in v.children)


@veto("phrase-opens-second-verb-phrase")
def _phrase_first(s: Site) -> bool:
    """"and with luck wins" → "She with luck wins"."""
    return s.doc[_c_ids(s)[0]].pos_ == "ADP"


@veto("bare-verb-after-past")
def _bare_verb(s: Site) -> bool:
    """"agreed to lead … and provide …": a bare verb after a past one belongs under "to"."""
    c, v = s["c"], s["v"]
    return not finite(c) and not (c.tag_ == "VB" and v.tag_ == "VBP")


@veto("first-verb-phrase-unfit")
def _first_unfit(s: Site) -> bool:
    first = _first(s, _cc(s, {"and"}))
    return not first or s.doc[first[-1]].is_punct or _scopes_over_both(s.doc, first)


@renderer("split-conjoined-vp")
def render_split_vp(s: Site) -> list[Piece] | None:
    doc, v = s.doc, s["v"]
    stop = final_punct(v)
    if stop is None:
        return None
    copy = copied(doc, _ids(s, "subj"))
    body = (keep(doc, _first(s, _cc(s, {"and"}))) + [Piece(".")] + lower_first(doc, copy) + keep(doc, _c_ids(s))
            + [Piece(doc[stop].text, stop)])
    return tidy(doc, rest_of_doc(doc, body, v))
