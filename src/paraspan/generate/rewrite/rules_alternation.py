"""Vetoes and renderers of the verb alternations that keep every word (Levin 1993, §1.4 and §2.1).

- ``particle-shift``: a phrasal verb's particle moves across a short object, either way: "He turned
  off the light." ↔ "He turned the light off."
- ``dative-shift``: a verb of giving changes its double object for a "to" phrase, either way:
  "She gave Anna the keys." ↔ "She gave the keys to Anna."

Spans: every word keeps its token, so a labelled span moves with its words. The "to" of a dative
is a case marker: a new one joins the recipient's argument spans ("[Recipient to Anna]", as
FrameNet and PropBank annotate it); a dropped one leaves the recipient's span without it. A
particle inside an anchor (the target "turned off" of a multiword LU) stays where it is.

What they leave alone, each because the other order is not English or means something else:
pronoun objects ("turned it off", never "turned off it"), heavy objects (more than :data:`MAX_OBJECT`
words, or holding a clause or a preposition), a "to" phrase that is a place rather than a recipient
("sent the letter to London"), and the light uses of "give" ("gave him a call").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paraspan.generate.rewrite.core import Piece, contiguous, keep, subtree, tidy
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.core import children as _children
from paraspan.generate.rewrite.spec import Site, renderer, veto
from paraspan.generate.rewrite.wordlists import word_map, words

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

    from paraspan.generate.rewrite.core import RuleContext

#: the most words an object may have to move across a particle or a recipient
MAX_OBJECT = 4
#: what a particle's object may not be (WordNet's most frequent sense): a place, a natural thing or a
#: part of the body reads as the object of a preposition ("dripped down his neck")
_NOT_PARTICLE_OBJECTS = frozenset({"noun.location", "noun.object", "noun.body"})
#: WordNet lexicographer files of things that can receive (people, organisations)
_RECIPIENT_LEXNAMES = frozenset({"noun.person", "noun.group"})


def _movable(doc: Doc, ids: list[int], limit: int = MAX_OBJECT) -> bool:
    """A short, plain noun phrase: at most ``limit`` words, one run, no clause, no preposition, no
    punctuation or quotation mark, no coordination (a heavy object stays at the end)."""
    if not contiguous(ids) or len(ids) > limit:
        return False
    return not any(doc[i].pos_ in {"VERB", "AUX", "ADP", "PUNCT", "CCONJ", "SCONJ"} or doc[i].is_quote
                   or doc[i].dep_ in {"relcl", "acl", "conj", "appos"} for i in ids)


def _nominal(token: Token) -> bool:
    """Headed by a noun or a name: a pronoun must stay next to its verb, and a bare "-ing" word is a
    gerund ("gave up smoking" is no "gave smoking up"), whatever its tag."""
    if token.pos_ not in {"NOUN", "PROPN"} or token.tag_ in {"PRP", "WP", "WDT"}:
        return False
    return not (token.lower_.endswith("ing") and not any(c.dep_ in {"det", "poss"} for c in token.children))


# --------------------------------------------------------------------------- particle-shift


def _obj(s: Site) -> Token | None:
    return _child(s["p"].head, "dobj")


def _obj_ids(s: Site) -> list[int]:
    return s.cached("o_ids", lambda: subtree(_obj(s)))


def _direction(s: Site) -> str | None:
    """"forward" (V prt NP → V NP prt), "back" (V NP prt → V prt NP) or None."""
    def compute() -> str | None:
        doc, p, ids = s.doc, s["p"], _obj_ids(s)
        v = p.head
        nxt = doc[p.i + 1] if p.i + 1 < len(doc) else None
        if p.i == v.i + 1 and ids[0] == p.i + 1:
            return "forward"
        # not before "of" or "on" ("took them up on their offer"), nor where the particle and the next
        # word are one preposition ("press it on to the corner"), nor before a noun phrase, whose
        # preposition the "particle" is ("clearing all the junk out my flat")
        if ids[0] == v.i + 1 and ids[-1] + 1 == p.i and not (nxt is not None and (
                nxt.lower_ in {"of", "on"} or f"{p.lower_} {nxt.lower_}" in words("particle-joins")
                or nxt.pos_ in {"DET", "PRON", "NOUN", "PROPN", "NUM"})):
            return "back"
        return None
    return s.cached("direction", compute)


def _after_object(s: Site) -> Token | None:
    doc, ids = s.doc, _obj_ids(s)
    return doc[ids[-1] + 1] if ids[-1] + 1 < len(doc) else None


@veto("particle-head-not-verb")
def _head_not_verb(s: Site) -> bool:
    return s["p"].head.pos_ != "VERB"


@veto("protected-particle")
def _protected(s: Site) -> bool:
    """A particle inside an anchor stays: moved, the anchor would no longer be one run of words."""
    return s["p"].i in s.ctx.protected


@veto("motion-verb-or-no-wordnet")
def _motion(s: Site) -> bool:
    """After a verb of motion or looking the "particle" is mostly a preposition ("ran down the hill")."""
    return s["p"].head.lemma_.lower() in words("motion-verbs") or s.ctx.wordnet is None


@veto("passive-particle-verb")
def _passive(s: Site) -> bool:
    """A passive has no object: "got kicked out today" → "got kicked today out"."""
    return _child(s["p"].head, "auxpass", "nsubjpass") is not None


@veto("bare-verb-where-to-is-wanted")
def _bare_verb(s: Site) -> bool:
    """A bare verb where English wants "to" is a noun misread: "get the Ann break up video"."""
    v = s["p"].head
    return (v.tag_ == "VB" and v.dep_ == "ccomp" and _child(v, "aux", "mark") is None
            and v.head.lemma_.lower() not in words("bare-infinitive-heads"))


@veto("not-a-phrasal-verb")
def _not_phrasal(s: Site) -> bool:
    """Not a phrasal verb WordNet knows: "trudged up the road" is a preposition's."""
    p = s["p"]
    return not s.ctx.wordnet().synsets(f"{p.head.lemma_.lower()}_{p.lower_}", pos="v")


@veto("object-not-nominal-or-idiom")
def _object_unfit(s: Site) -> bool:
    """No noun object, or an idiom's ("worked his way up", "turning off the road")."""
    obj = _obj(s)
    return obj is None or not _nominal(obj) or obj.lemma_.lower() in words("particle-idiom-objects")


@veto("correlative-object")
def _correlative(s: Site) -> bool:
    """"not just X but Y", "both X and Y": the second half would be cut off from the first."""
    obj = _obj(s)
    return _child(obj, "preconj") is not None or s.doc[_obj_ids(s)[0]].lower_ in {"not", "both", "either", "neither"}


@veto("place-thing-or-body-object")
def _place_object(s: Site) -> bool:
    """"blowing off the lake", "dripped down his neck": a preposition's object; the other order is not said."""
    senses = s.ctx.wordnet().synsets(_obj(s).lemma_.lower(), pos="n")
    return bool(senses) and senses[0].lexname() in _NOT_PARTICLE_OBJECTS


@veto("object-heavy-or-not-last")
def _heavy(s: Site) -> bool:
    """A word after the noun ("tracking the men responsible down") leaves the particle stranded."""
    ids = _obj_ids(s)
    return not _movable(s.doc, ids) or ids[-1] != _obj(s).i


@veto("particle-stays-before-object")
def _stays(s: Site) -> bool:
    """"take on a new look", "make up the next book" (constitute, not invent)."""
    p = s["p"]
    return f"{p.head.lemma_.lower()} {p.lower_}" in words("not-shifted")


@veto("object-shared-with-verb-before")
def _shared(s: Site) -> bool:
    """"to audit and set up the files" → "… set the files up" leaves "audit" without its object."""
    v = s["p"].head
    return v.dep_ == "conj" and v.head.pos_ == "VERB" and v.head.i < v.i and _child(v.head, "dobj") is None


@veto("no-shift-shape")
def _no_shape(s: Site) -> bool:
    return _direction(s) is None


def _gapped_clause(doc: Doc, cc: Token) -> bool:
    """Whether ``cc`` opens "and I filmed": a conjunction, a pronoun subject, and a verb with nothing of
    its own, whose object is the noun before ("the clip Nora and I filmed")."""
    if cc.dep_ != "cc" or cc.i + 1 >= len(doc):
        return False
    subj = doc[cc.i + 1]
    verb = subj.head
    if subj.dep_ != "nsubj" or subj.lower_ not in {"i", "we", "he", "she", "they", "you"} or verb.dep_ != "conj":
        return False
    return not any(c.dep_ in {"dobj", "ccomp", "xcomp", "attr", "acomp", "dative", "prep", "prt", "oprd", "advcl"}
                   for c in verb.children)


def _reduced_relative(doc: Doc, first: Token) -> bool:
    """Whether ``first`` opens a relative clause without "that": a name or a pronoun, then a finite
    verb within three words, no punctuation between ("the clip Nora filmed")."""
    if first.pos_ not in {"PROPN", "PRON"}:
        return False
    for t in doc[first.i + 1:first.i + 4]:
        if t.is_punct:
            return False
        if t.tag_ in {"VBD", "VBZ", "VBP", "MD"}:
            return True
    return False


@veto("bare-relative-after-object")
def _relative_after(s: Site) -> bool:
    """"Check out the clip Nora filmed" → "Check the clip out Nora filmed"."""
    after = _after_object(s)
    return _direction(s) == "forward" and after is not None and (
        _gapped_clause(s.doc, after) or _reduced_relative(s.doc, after))


@veto("particle-would-join-preposition")
def _joins(s: Site) -> bool:
    """"lapped it up to the end" → "lapped it up to": particle and preposition read as one."""
    after = _after_object(s)
    return _direction(s) == "forward" and after is not None and \
        f"{s['p'].lower_} {after.lower_}" in words("particle-joins")


@veto("bare-noun-pair")
def _bare_pair(s: Site) -> bool:
    """"calling in men at arms": a bare noun, a preposition and a bare noun may be one name."""
    doc, obj, prep = s.doc, _obj(s), _after_object(s)
    if _direction(s) != "forward" or len(_obj_ids(s)) != 1 or prep is None:
        return False
    if prep.pos_ != "ADP" or prep.i + 1 >= len(doc):
        return False
    nxt = doc[prep.i + 1]
    return obj.pos_ == "NOUN" and nxt.pos_ == "NOUN" and nxt.dep_ == "pobj" and nxt.head.i == prep.i


@renderer("particle-shift")
def render_particle_shift(s: Site) -> list[Piece] | None:
    doc, p, ids = s.doc, s["p"], _obj_ids(s)
    v = p.head
    if _direction(s) == "forward":
        order = [*range(0, v.i + 1), *ids, p.i, *range(ids[-1] + 1, len(doc))]
    else:
        order = [*range(0, v.i + 1), p.i, *ids, *range(p.i + 1, len(doc))]
    return tidy(doc, keep(doc, order))


# --------------------------------------------------------------------------- dative-shift


def _dative(s: Site) -> Token | None:
    v, obj = s["v"], _child(s["v"], "dobj")
    return _child(v, "dative") or next((c for c in v.children if c.dep_ == "prep" and c.lower_ == "to"
                                        and obj is not None and c.i > obj.i), None)


def _theme(s: Site) -> list[int]:
    return s.cached("theme", lambda: subtree(_child(s["v"], "dobj")))


def _to_phrase(s: Site) -> bool:
    return _dative(s).pos_ == "ADP"


def _recipient(token: Token, ctx: RuleContext, groups: bool) -> bool:
    """Whether ``token`` names someone who can receive: a personal pronoun, a person's name, or a noun
    for a person (with ``groups``, also an organisation's name or a noun for a group)."""
    if token.lower_ in words("recipient-pronouns"):
        return True
    if token.pos_ == "PROPN":
        return token.ent_type_ in ({"PERSON", "ORG", "NORP"} if groups else {"PERSON"})
    if token.pos_ != "NOUN" or ctx.wordnet is None:
        return False
    synsets = ctx.wordnet().synsets(token.lemma_.lower(), pos="n")
    return bool(synsets) and synsets[0].lexname() in (_RECIPIENT_LEXNAMES if groups else {"noun.person"})


@veto("two-objects")
def _two_objects(s: Site) -> bool:
    """"Bring us tea -- a pot of tea": an apposition the parser took for a second object."""
    return len(_children(s["v"], "dobj")) > 1


@veto("no-theme-and-recipient")
def _no_pair(s: Site) -> bool:
    """No noun theme and recipient, or a light object ("gave him a call") or a place ("bring me home")."""
    obj, dative = _child(s["v"], "dobj"), _dative(s)
    return obj is None or dative is None or not _nominal(obj) or obj.lemma_.lower() in (
        words("light-objects") | words("not-themes"))


@veto("heavy-theme")
def _heavy_theme(s: Site) -> bool:
    return not _movable(s.doc, _theme(s), MAX_OBJECT + 1)


def _whom(s: Site) -> list[int]:
    dative = _dative(s)
    return s.cached("whom", lambda: subtree(_child(dative, "pobj") if _to_phrase(s) else dative))


@veto("not-a-to-phrase-recipient")
def _not_to(s: Site) -> bool:
    dative = _dative(s)
    return _to_phrase(s) and (dative.lower_ != "to" or _child(dative, "pobj") is None or dative.i in s.ctx.protected)


@veto("to-phrase-not-after-theme")
def _to_not_after(s: Site) -> bool:
    if not _to_phrase(s):
        return False
    v, theme, dative, whom = s["v"], _theme(s), _dative(s), _whom(s)
    return theme[0] != v.i + 1 or theme[-1] + 1 != dative.i or whom[0] != dative.i + 1


def _after_recipient(s: Site) -> Token | None:
    whom = _whom(s)
    return s.doc[whom[-1] + 1] if whom[-1] + 1 < len(s.doc) else None


@veto("to-phrase-goes-on")
def _goes_on(s: Site) -> bool:
    """"attention to Mathilda and how she held …": the "to" phrase goes on."""
    after = _after_recipient(s)
    return _to_phrase(s) and after is not None and after.pos_ == "CCONJ"


@veto("phrase-after-common-recipient")
def _phrase_after(s: Site) -> bool:
    """"sent cards to customers with jobs who …": left behind, the phrase would modify the theme."""
    after = _after_recipient(s)
    if not _to_phrase(s) or after is None:
        return False
    recipient = _child(_dative(s), "pobj")
    return recipient.pos_ not in {"PRON", "PROPN"} and (
        after.pos_ == "ADP" or after.tag_ in {"WP", "WDT"} or after.lower_ == "that")


@veto("not-a-recipient")
def _not_recipient(s: Site) -> bool:
    """"sent the letter to London": a place, not someone who receives."""
    if not _to_phrase(s):
        return False
    possession = s["v"].lemma_.lower() in words("possession-verbs")
    return not _movable(s.doc, _whom(s), 3) or not _recipient(_child(_dative(s), "pobj"), s.ctx, possession)


@veto("person-sent-somewhere")
def _caused_motion(s: Site) -> bool:
    """"sent the boy to school" is caused motion."""
    return _to_phrase(s) and s["v"].lemma_.lower() not in words("possession-verbs") and _recipient(
        _child(s["v"], "dobj"), s.ctx, False)


@veto("recipient-not-before-theme")
def _recipient_not_before(s: Site) -> bool:
    if _to_phrase(s):
        return False
    v, whom, theme = s["v"], _whom(s), _theme(s)
    return whom[0] != v.i + 1 or whom[-1] + 1 != theme[0] or not _movable(s.doc, whom)


@veto("recipient-not-a-person-phrase")
def _recipient_unfit(s: Site) -> bool:
    dative = _dative(s)
    return not _to_phrase(s) and (dative.lower_ in {"it", "itself", "this", "that"} or (
        dative.pos_ != "PRON" and not _nominal(dative)))


def _may_point_to(possessive: Token, recipient: Token) -> bool:
    """Whether a third-person ``possessive`` may refer to ``recipient``: a pronoun only by its own
    possessive, a noun or a name by any ("give the customer their receipt")."""
    if possessive.lower_ not in {"his", "her", "its", "their"}:
        return False
    if recipient.pos_ == "PRON":
        return word_map("object-possessives").get(recipient.lower_) == possessive.lower_
    return True


@veto("possessive-before-its-recipient")
def _possessive(s: Site) -> bool:
    """"lend them their car" → "lend their car to them": the possessive would come first."""
    doc, dative = s.doc, _dative(s)
    return not _to_phrase(s) and any(doc[i].tag_ == "PRP$" and _may_point_to(doc[i], dative) for i in _theme(s))


@renderer("dative-shift")
def render_dative_shift(s: Site) -> list[Piece] | None:
    doc, v, theme, whom, dative = s.doc, s["v"], _theme(s), _whom(s), _dative(s)
    if _to_phrase(s):  # V NP to NP → V NP NP
        recipient = _child(dative, "pobj")
        pieces = keep(doc, [*range(0, v.i + 1), *whom, *theme, *range(whom[-1] + 1, len(doc))])
        for piece in pieces:
            if piece.src == recipient.i:
                piece.absorbs = dative.i  # "[Recipient to Anna]" becomes "[Recipient Anna]", not lost
        return tidy(doc, pieces)
    pieces = (keep(doc, [*range(0, v.i + 1), *theme]) + [Piece("to", attach=dative.i, marker=True)]
              + keep(doc, [*whom, *range(theme[-1] + 1, len(doc))]))
    return tidy(doc, pieces)
