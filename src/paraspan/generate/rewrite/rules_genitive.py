"""Vetoes and renderers of the genitive rules (pp-to-genitive, genitive-to-pp)."""

from __future__ import annotations

from paraspan.generate.rewrite.core import (
    Piece,
    contiguous,
    holds_full_stop,
    keep,
    lower_first,
    rest_of_doc,
    subtree,
    tidy,
)
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.parse import first_sense, verb_form
from paraspan.generate.rewrite.spec import Site, renderer, veto
from paraspan.generate.rewrite.wordlists import word_map, words


def _ids(s: Site, name: str) -> list[int]:
    return s.cached(f"ids:{name}", lambda: subtree(s[name]))


# --------------------------------------------------------------------------- pp-to-genitive: "the N of the M"


@veto("not-the-n-of")
def _not_the_n_of(s: Site) -> bool:
    """Only "the N of M", with "of" right after the noun and nothing else on it."""
    det, of, n = s["det"], s["of"], s["n"]
    if det.lower_ != "the" or of.lower_ != "of" or of.i != n.i + 1:
        return True
    o = _child(of, "pobj")
    return o is None or o.pos_ not in {"NOUN", "PROPN"} or len(list(of.children)) != 1


def _o(s: Site):  # noqa: ANN202 — a spaCy Token
    return _child(s["of"], "pobj")


def _o_ids(s: Site) -> list[int]:
    return s.cached("o_ids", lambda: subtree(_o(s)))


def _after(s: Site) -> int:
    return _o_ids(s)[-1] + 1


@veto("naming-noun-of-name")
def _naming(s: Site) -> bool:
    """"the city of Tyre" is Tyre, not "Tyre's city"."""
    return _o(s).pos_ == "PROPN" and s["n"].lemma_ in words("naming-nouns")


@veto("part-fixed-or-topic-noun")
def _part_noun(s: Site) -> bool:
    """"the majority of X", "on the basis of X", "the problem of X": no possession."""
    lemma = s["n"].lemma_
    return lemma in words("part-nouns") or lemma in words("fixed-of") or lemma in words("topic-nouns")


@veto("ing-noun")
def _ing(s: Site) -> bool:
    """"the arming of the rebels": "the rebels' arming" loses who arms whom."""
    return s["n"].text.lower().endswith("ing")


@veto("indefinite-possessor")
def _indefinite_possessor(s: Site) -> bool:
    """"the center of a storm" → "a storm's center"."""
    return any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in _o(s).children)


@veto("time-possessor")
def _time_possessor(s: Site) -> bool:
    """"the turn of the century" → "the century's turn": a time owns nothing."""
    o = _o(s)
    return o.pos_ == "NOUN" and first_sense(s.ctx, o.lemma_, "n") == "noun.time"


@veto("phrase-or-verb-after-possessor")
def _phrase_after(s: Site) -> bool:
    """A phrase after the possessor may be its own ("the lid of the bin by the door"), and a verb right after
    it may have its subject inside it ("among the roots of the hedge mice ran")."""
    doc, after, n, o = s.doc, _after(s), s["n"], _o(s)
    return after < len(doc) and (doc[after].pos_ == "ADP" or doc[after].tag_ in {"VBG", "VBN"} or (
        (n.dep_ == "pobj" or _child(o, "compound") is not None) and doc[after].pos_ in {"VERB", "AUX"}))


@veto("compound-ending-in-verb")
def _compound_verb(s: Site) -> bool:
    """"the sound of the harp echoes": the compound's last word may be the verb."""
    o = _o(s)
    return o.tag_ == "NNS" and _child(o, "compound", "amod") is not None and verb_form(o.lower_, "VBZ")


@veto("clause-after-possessor")
def _clause_after(s: Site) -> bool:
    """"the corner of the scarf the girl held": a clause without "that" goes on from the possessor."""
    doc, after = s.doc, _after(s)
    return after < len(doc) and (doc[after].pos_ in {"DET", "PRON"} or doc[after].tag_ == "PRP$")


@veto("cut-list-or-apposition")
def _cut(s: Site) -> bool:
    """"the terms of the opening, formal, talk": a cut list, or an apposition of the possessor."""
    doc, after = s.doc, _after(s)
    return after + 1 < len(doc) and doc[after].text == "," and (
        doc[after + 1].pos_ in {"ADJ", "DET", "NOUN", "PROPN"} or doc[after + 1].dep_ == "amod")


@veto("inside-open-quotation")
def _in_quote(s: Site) -> bool:
    """A title is quoted as it was written."""
    return sum(1 for t in s.doc[s["n"].sent.start:s["det"].i] if t.is_quote) % 2 == 1


@veto("quoted-possessor")
def _quoted_possessor(s: Site) -> bool:
    """A quoted possessor keeps its quotation marks round it."""
    doc, after = s.doc, _after(s)
    return any(t.is_quote for t in _o(s).subtree) or (after < len(doc) and doc[after].is_quote)


@veto("long-or-complex-possessor")
def _complex(s: Site) -> bool:
    return len(_o_ids(s)) > 4 or any(t.dep_ in {"prep", "relcl", "acl", "appos", "conj", "cc"} for t in _o(s).subtree)


@veto("quantified-possessor")
def _quantified(s: Site) -> bool:
    """"the best song of all time" → "all time's best song"."""
    return any(c.dep_ == "det" and c.lower_ in {"all", "every", "each", "any", "no", "some"} for c in _o(s).children)


@veto("slashed-possessor")
def _slashed(s: Site) -> bool:
    """A slashed pair is two places, and one genitive makes them one."""
    return any(t.text == "/" for t in _o(s).subtree)


@veto("bare-common-possessor")
def _bare_possessor(s: Site) -> bool:
    o = _o(s)
    return o.pos_ == "NOUN" and _child(o, "det") is None


@veto("possessor-holds-full-stop")
def _full_stop(s: Site) -> bool:
    """"the son of Tom Jones Jr." → "Tom Jones Jr.'s son" without a full stop."""
    return holds_full_stop(s.doc[_o_ids(s)[-1]])


@veto("noun-phrase-not-det-to-possessor")
def _np_shape(s: Site) -> bool:
    n_ids, o_ids, det = _ids(s, "n"), _o_ids(s), s["det"]
    return not contiguous(n_ids) or n_ids[-1] != o_ids[-1] or n_ids[0] != det.i


@veto("premodifier-not-adjective-or-compound")
def _premodifier(s: Site) -> bool:
    doc = s.doc
    return any(doc[i].dep_ not in {"amod", "compound"} for i in range(s["det"].i + 1, s["n"].i))


@renderer("pp-to-genitive")
def render_pp_to_genitive(s: Site) -> list[Piece] | None:
    """The possessor stands for the dropped "of" and takes the clitic: an argument "of the train" becomes
    "the train's"; an entity mention (an anchor) stays "the train"."""
    doc, n, det, of, o = s.doc, s["n"], s["det"], s["of"], _o(s)
    o_ids, n_ids = _o_ids(s), _ids(s, "n")
    pre = list(range(det.i + 1, n.i))
    clitic = "'" if o.tag_ in {"NNS", "NNPS"} and o.text.endswith("s") else "'s"
    possessor = keep(doc, o_ids)
    possessor[o_ids.index(o.i)].absorbs = of.i
    np = possessor + [Piece(clitic, attach=o.i, marker=True)] + keep(doc, pre) + [Piece(n.text, n.i)]
    if det.i == det.sent.start:
        np = lower_first(doc, np)
    body = keep(doc, range(n.sent.start, det.i)) + np + keep(doc, range(n_ids[-1] + 1, n.sent.end))
    return tidy(doc, rest_of_doc(doc, body, n))


# --------------------------------------------------------------------------- genitive-to-pp: "the M's N"


def _p_ids(s: Site) -> list[int]:
    return _ids(s, "p")


def _owner(s: Site) -> list[int]:
    return [i for i in _p_ids(s) if i != s["case"].i]


@veto("case-not-last-of-possessor")
def _case_last(s: Site) -> bool:
    p_ids = _p_ids(s)
    return s["case"].i != p_ids[-1] or not contiguous(p_ids)


@veto("clipped-word-apostrophe")
def _clipped(s: Site) -> bool:
    """"Flippin' nuisance": the apostrophe of a clipped word, no possessive."""
    return s["case"].text == "'" and not s["p"].lower_.endswith("s")


@veto("possessed-noun-modified-after")
def _modified(s: Site) -> bool:
    doc, n = s.doc, s["n"]
    return any(doc[i].dep_ not in {"amod", "compound"} for i in range(_p_ids(s)[-1] + 1, n.i)) or any(
        c.i > n.i for c in n.children if c.dep_ not in {"punct"})


@veto("possessed-noun-in-compound")
def _in_compound(s: Site) -> bool:
    """"X's planned plutonium plant": the possessed noun is inside a compound."""
    doc, n = s.doc, s["n"]
    return n.dep_ == "compound" or (n.i + 1 < len(doc) and doc[n.i + 1].tag_ in {"NN", "NNS", "NNP", "NNPS", "VBG"})


@veto("possessed-subject-without-verb")
def _no_verb(s: Site) -> bool:
    """The parse took the verb for a noun ("the author's honesty rings true")."""
    n = s["n"]
    return n.dep_ in {"nsubj", "nsubjpass"} and n.head.pos_ not in {"VERB", "AUX"}


@veto("possessor-owns-next-noun")
def _shares(s: Site) -> bool:
    """"X's round face and bright eyes": the possessor owns the next noun too."""
    doc, n = s.doc, s["n"]
    if n.i + 2 >= len(doc) or doc[n.i + 1].lower_ not in {"and", "or"}:
        return False
    j = n.i + 2
    while j < len(doc) and (doc[j].pos_ == "ADJ" or doc[j].tag_ in {"VBG", "VBN", "JJ"}):
        j += 1
    return j < len(doc) and doc[j].pos_ == "NOUN"


@veto("genitive-idiom")
def _idiom(s: Site) -> bool:
    """"on my mother's side" (a lineage), "made her day" (an idiom)."""
    n = s["n"]
    head = word_map("genitive-idioms").get(n.lemma_.lower())
    return head is not None and head in {n.head.lower_, n.head.lemma_.lower()}


@veto("wordnet-compound-name")
def _wordnet_name(s: Site) -> bool:
    """A name for a kind, not a possession: "the devil's advocate", "shepherd's pie"."""
    ctx, p, case, n = s.ctx, s["p"], s["case"], s["n"]
    pre = range(_p_ids(s)[-1] + 1, n.i)
    return not pre and ctx.wordnet is not None and bool(ctx.wordnet().synsets(
        f"{p.lower_}{case.text}_{n.lemma_.lower()}", pos="n"))


@veto("plural-determiner-on-singular")
def _clipped_plural(s: Site) -> bool:
    """"those org's ad" is a clipped plural."""
    p = s["p"]
    return p.tag_ in {"NN", "NNP"} and any(c.dep_ == "det" and c.lower_ in {"these", "those"} for c in p.children)


@veto("long-possessor")
def _long(s: Site) -> bool:
    return len(_owner(s)) > 4


@veto("list-item-imperative")
def _list_imperative(s: Site) -> bool:
    """"7- Guard ACME 's funds": a list item's imperative read into the name after it."""
    doc, ctx, owner = s.doc, s.ctx, _owner(s)
    first = doc[owner[0]]
    before = doc[first.sent.start:first.i]
    if len(owner) < 2 or first.dep_ != "compound" or not len(before) or ctx.wordnet is None:
        return False
    if not all(t.tag_ == "LS" or t.is_punct or t.text.rstrip("-.)").isdigit() for t in before):
        return False
    return ctx.wordnet().morphy(first.lower_, "v") == first.lower_


@veto("kind-not-possession")
def _kind(s: Site) -> bool:
    """"women's shoes": a bare common possessor names a kind of thing."""
    p = s["p"]
    return p.pos_ == "NOUN" and _child(p, "det", "poss") is None


@veto("institution-of-plural")
def _institution(s: Site) -> bool:
    """"the dogs' home": a kind of place, not one the dogs own."""
    return s["p"].tag_ == "NNS" and s["n"].lemma_.lower() in words("institution-nouns")


@veto("measure-possessor")
def _measure(s: Site) -> bool:
    """"a month's leave" is a measure; with a plural possessor the article is the possessed noun's."""
    return any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in s["p"].children)


@veto("possessor-ends-a-name")
def _ends_name(s: Site) -> bool:
    """"Bank for International Settlements' rules"."""
    doc, first = s.doc, _p_ids(s)[0]
    return first >= 2 and doc[first - 1].pos_ == "ADP" and doc[first - 2].tag_ in {"NNP", "NNPS"}


@veto("possessed-noun-determiner")
def _own_det(s: Site) -> bool:
    """"that cat's grin": the noun's own "that"."""
    return _child(s["n"], "det") is not None


@veto("possessor-after-and")
def _after_and(s: Site) -> bool:
    """"Ann and Tom's mother": the mother may be both's."""
    first = _p_ids(s)[0]
    return first > 0 and s.doc[first - 1].lower_ in {"and", "or", "&"}


@veto("capitalised-possessed-noun")
def _capitalised(s: Site) -> bool:
    """A name or a title ("Mimi's Mother", a credited role)."""
    n = s["n"]
    return n.text[:1].isupper() and n.i != n.sent.start


@veto("article-of-the-possessed")
def _article(s: Site) -> bool:
    """"the St Mary's choir": the article is the choir's."""
    doc, p = s.doc, s["p"]
    return any(c.dep_ == "det" and c.lower_ == "the" for c in p.children) and (
        p.ent_type_ == "PERSON" or any(doc[i].text in {"St", "St."} for i in _owner(s)))


@renderer("genitive-to-pp")
def render_genitive_to_pp(s: Site) -> list[Piece] | None:
    """"the" and "of" stand in for the "'s" (attached to it): a span that held the possessive phrase holds
    them too, one that held "Ann 's" becomes "of Ann"."""
    doc, n, case, p_ids = s.doc, s["n"], s["case"], _p_ids(s)
    pre = list(range(p_ids[-1] + 1, n.i))
    np = ([Piece("the", attach=case.i)] + keep(doc, pre) + [Piece(n.text, n.i), Piece("of", attach=case.i)]
          + lower_first(doc, keep(doc, _owner(s))))
    body = keep(doc, range(n.sent.start, p_ids[0])) + np + keep(doc, range(n.i + 1, n.sent.end))
    return tidy(doc, rest_of_doc(doc, body, n))
