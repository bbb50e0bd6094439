"""Vetoes, renderers and site sources of the one-word rules: deleting an adverb or an adjective, the
it-cleft, adding or dropping the complementizer "that", and WordNet synonyms."""

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
    written_start,
)
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.core import children as _children
from paraspan.generate.rewrite.parse import (
    FINITE_TAGS,
    downward,
    first_sense,
    lacks_object,
    quantified,
    quoted,
    verb_form,
)
from paraspan.generate.rewrite.spec import Site, renderer, site_source, veto
from paraspan.generate.rewrite.wordlists import words

if TYPE_CHECKING:
    from collections.abc import Iterator

    from spacy.tokens import Doc, Token

    from paraspan.generate.rewrite.core import RuleContext


@site_source("root")
def roots(doc: Doc, ctx: RuleContext) -> Iterator[dict[str, Any]]:
    """Each sentence's root ``v``."""
    for sent in doc.sents:
        yield {"v": sent.root, "sent": sent}


# --------------------------------------------------------------------------- deleting one word


@veto("head-not-verb")
def _head_not_verb(s: Site) -> bool:
    return s["t"].head.pos_ not in {"VERB", "AUX"}


@veto("head-not-noun")
def _head_not_noun(s: Site) -> bool:
    return s["t"].head.pos_ != "NOUN"


@veto("word-has-dependents")
def _has_children(s: Site) -> bool:
    return bool(list(s["t"].children))


@veto("after-verb-not-ly")
def _after_verb(s: Site) -> bool:
    """After its verb only a "-ly" manner adverb goes ("left early" is no "left")."""
    t = s["t"]
    return not (t.i < t.head.i or t.lower_.endswith("ly"))


@veto("not-before-head")
def _not_before_head(s: Site) -> bool:
    return not s["t"].i < s["t"].head.i


@veto("in-hyphenated-word")
def _hyphenated(s: Site) -> bool:
    """Part of "open-source"."""
    doc, t = s.doc, s["t"]
    return any(0 <= i < len(doc) and doc[i].text in {"-", "–"} for i in (t.i - 1, t.i + 1))


@veto("in-question-or-quotation")
def _question(s: Site) -> bool:
    """A question entails nothing; a quotation is the speaker's words."""
    t = s["t"]
    return t.sent[-1].text == "?" or quoted(t)


@veto("in-compound-term")
def _compound(s: Site) -> bool:
    """Part of a compound term ("light water reactors")."""
    doc, t = s.doc, s["t"]
    return t.head.dep_ == "compound" or (t.i + 1 < len(doc) and doc[t.i + 1].dep_ == "compound")


@veto("article-sound-mismatch")
def _article(s: Site) -> bool:
    """"a surprisingly apt" → "a apt"."""
    doc, t = s.doc, s["t"]
    if not (t.i > 0 and doc[t.i - 1].lower_ in ("a", "an") and t.i + 1 < len(doc)):
        return False
    return (t.text[:1].lower() in "aeiou") != (doc[t.i + 1].text[:1].lower() in "aeiou")


@veto("in-name")
def _in_name(s: Site) -> bool:
    """Inside a name ("Dow Jones industrial average")."""
    t = s["t"]
    return any(c.pos_ == "PROPN" and c.i < t.i for c in t.head.children if c.dep_ in ("compound", "nmod"))


@veto("downward-context")
def _downward(s: Site) -> bool:
    """Under a negation, a universal, "without" or a condition, dropping the word is no generalisation."""
    return downward(s["t"])


@veto("head-needs-modifier")
def _needs_modifier(s: Site) -> bool:
    """"at the federal level" → "at the level" says nothing."""
    return s["t"].head.lemma_.lower() in words("needs-modifier")


@veto("after-so-called")
def _so_called(s: Site) -> bool:
    """"a so-called dirty bomb": what follows is a name."""
    t = s["t"]
    before = " ".join(w.lower_ for w in t.doc[max(t.head.left_edge.i, t.i - 4):t.i])
    return "so-called" in before or "so - called" in before


@veto("antonym-in-sentence")
def _contrasted(s: Site) -> bool:
    """An antonym elsewhere in the sentence: the adjective sets two things apart ("present … past")."""
    t, ctx = s["t"], s.ctx
    if ctx.wordnet is None:
        return False
    wn = ctx.wordnet()
    opposite = {a.name().lower() for syn in wn.synsets(t.lemma_.lower(), "a")
                for near in [syn, *syn.similar_tos()] for lemma in near.lemmas() for a in lemma.antonyms()}
    # by the word, not the tag: the parser may tag "past" a preposition
    return any(w.i != t.i and (w.lower_ in opposite or w.lemma_.lower() in opposite) for w in t.sent)


@renderer("delete-word")
def render_delete_word(s: Site) -> list[Piece] | None:
    doc, t = s.doc, s["t"]
    return tidy(doc, [Piece(d.text, d.i) for d in doc if d.i != t.i])


# --------------------------------------------------------------------------- it-cleft


def _s_ids(s: Site) -> list[int]:
    return s.cached("s_ids", lambda: subtree(s["subj"]))


@veto("subject-not-leading-or-no-stop")
def _subject_not_leading(s: Site) -> bool:
    s_ids = _s_ids(s)
    return s_ids[0] != s["sent"].start or not contiguous(s_ids) or final_punct(s["v"]) is None


@veto("sentence-started-by-parser")
def _parser_start(s: Site) -> bool:
    """A sentence the parser began after "and" inside a written one."""
    return not written_start(s.doc, s["sent"].start)


@veto("apposition-or-punctuation-in-subject")
def _subject_punct(s: Site) -> bool:
    """A subject with appositions or brackets is usually a misparsed fragment."""
    doc = s.doc
    return any(doc[i].dep_ == "appos" or doc[i].is_punct for i in _s_ids(s))


@veto("capital-that-may-only-start")
def _capital(s: Site) -> bool:
    """"Disease spread …" tagged a name: "It was Disease that …"."""
    first = s.doc[_s_ids(s)[0]]
    return first.pos_ == "PROPN" and not first.ent_type_ and first.text[:1].isupper() and not first.text.isupper()


@veto("one-letter-subject")
def _one_letter(s: Site) -> bool:
    """An abbreviation, no name ("V impressed")."""
    return len(_s_ids(s)) == 1 and len(s["subj"].text) == 1


@veto("bare-plural-subject")
def _bare_plural(s: Site) -> bool:
    """"Examples include …" → "It is examples that include …"."""
    return len(_s_ids(s)) == 1 and s["subj"].tag_ == "NNS"


@veto("bare-capitalised-noun-subject")
def _bare_capital(s: Site) -> bool:
    """A bare singular noun that starts the sentence may be a name the tagger missed ("Victor roared")."""
    return len(_s_ids(s)) == 1 and s["subj"].tag_ == "NN" and s.doc[_s_ids(s)[0]].text[:1].isupper()


@veto("singular-name-plural-verb")
def _wish(s: Site) -> bool:
    """"God bless her": a wish or a misparse, no statement."""
    return s["v"].tag_ == "VBP" and s["subj"].tag_ == "NNP" and _child(s["subj"], "conj") is None


@veto("question")
def _question_mark(s: Site) -> bool:
    return any("?" in t.text for t in s["sent"][-3:])


@veto("present-call")
def _call(s: Site) -> bool:
    """"young actors step up!" is said to them."""
    v = s["v"]
    return v.tag_ == "VBP" and s.doc[final_punct(v)].text == "!"


def _headline_noun(n: Token) -> bool:
    """A singular common noun with a modifier but no article, possessive or number ("local man")."""
    return (n.tag_ == "NN" and n.pos_ == "NOUN" and not _children(n, "det", "poss", "nummod", "predet", "quantmod")
            and bool(_children(n, "compound", "amod")))


@veto("headline")
def _headline(s: Site) -> bool:
    """"Local man wins lottery" or "Kovacs banned for two years": no article or possessive anywhere, and a
    bare modified noun as subject or object, or a past form without the object its verb needs."""
    v, subj = s["v"], s["subj"]
    if any(t.dep_ in {"det", "poss"} or t.tag_ == "PRP$" for t in s["sent"]):
        return False
    if any(_headline_noun(n) for n in (subj, _child(v, "dobj")) if n is not None):
        return True
    return v.tag_ == "VBD" and lacks_object(v, s.ctx)


@veto("verb-split-from-subject")
def _verb_in_subject(s: Site) -> bool:
    """"A bell rang and Pete ran": the parser took "rang" for a noun of the subject."""
    doc, s_ids = s.doc, _s_ids(s)
    return any(doc[i].lower_ == "and" and i > s_ids[0] and verb_form(doc[i - 1].lower_, "VBD", of_another=True)
               for i in s_ids)


@veto("quantified-subject")
def _quantified(s: Site) -> bool:
    return quantified(s["subj"])


@veto("generic-indefinite-subject")
def _generic(s: Site) -> bool:
    """"A man has to …": a generic claim of what must or can be, no one man."""
    v = s["v"]
    return any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in s["subj"].children) and v.tag_ in {
        "VBZ", "VBP"} and (_child(v, "xcomp") is not None or any(c.tag_ == "MD" for c in v.children))


@veto("dangling-and-in-subject")
def _dangling_and(s: Site) -> bool:
    """An "and" with nothing after it: a verb read as a noun."""
    doc = s.doc
    return any(doc[i].dep_ == "cc" and _child(doc[i].head, "conj") is None for i in _s_ids(s))


@veto("not-one-clause")
def _one_clause(s: Site) -> bool:
    """One clause, its verb right after the subject: clefts of misparses read as garbage."""
    doc, v = s.doc, s["v"]
    finite = sum(1 for t in s["sent"] if t.tag_ in {"VBD", "VBZ", "VBP", "MD"})
    return finite != 1 or any(doc[i].dep_ not in {"advmod", "aux", "neg"} for i in range(_s_ids(s)[-1] + 1, v.i))


@renderer("it-cleft")
def render_it_cleft(s: Site) -> list[Piece] | None:
    """"that" suits people and things alike."""
    doc, v, s_ids = s.doc, s["v"], _s_ids(s)
    body = ([Piece("It"), Piece("was" if v.tag_ == "VBD" else "is")] + lower_first(doc, keep(doc, s_ids))
            + [Piece("that")] + keep(doc, range(s_ids[-1] + 1, s["sent"].end)))
    return tidy(doc, rest_of_doc(doc, body, v))


# --------------------------------------------------------------------------- the complementizer "that"


def _clause(s: Site) -> Token:
    return s.cached("c", lambda: next(c for c in s["v"].children if c.dep_ == "ccomp" and c.i > s["v"].i))


def _that(s: Site) -> Token | None:
    def compute() -> Token | None:
        c = _clause(s)
        marks = _children(c, "mark")
        return marks[0] if marks and marks[0].lower_ == "that" and marks[0].i == c.left_edge.i else None
    return s.cached("that", compute)


@veto("passive-expletive-or-imperative")
def _passive(s: Site) -> bool:
    """"It is believed that …", an imperative "Say …"."""
    v = s["v"]
    return _child(v, "auxpass", "expl", "nsubjpass") is not None or (v.dep_ == "ROOT" and _child(v, "nsubj") is None)


@veto("finite-verb-without-subject")
def _subjectless(s: Site) -> bool:
    """A noun misread: "reacted to rival claims that …"."""
    v = s["v"]
    return v.tag_ in {"VBZ", "VBD", "VBP"} and _child(v, "nsubj") is None and v.dep_ not in {"conj", "relcl"}


@veto("not-one-complement-clause")
def _one_complement(s: Site) -> bool:
    v = s["v"]
    return len([c for c in v.children if c.dep_ == "ccomp" and c.i > v.i]) != 1


@veto("clause-not-finite-with-subject-first")
def _clause_shape(s: Site) -> bool:
    c = _clause(s)
    subj = _child(c, "nsubj", "nsubjpass", "expl")
    is_finite = c.tag_ in FINITE_TAGS or any(a.dep_ in {"aux", "auxpass"} and a.tag_ in FINITE_TAGS
                                             for a in c.children)
    return subj is None or subj.i > c.i or not is_finite or not contiguous(subtree(c))


@veto("other-subordinator")
def _other_mark(s: Site) -> bool:
    """"if", "whether", "because" …"""
    return bool(_children(_clause(s), "mark")) and _that(s) is None


@veto("words-before-clause-subject")
def _before_subject(s: Site) -> bool:
    """"said that in 1990 the firm …": the phrase would hang on the verb."""
    c, that = _clause(s), _that(s)
    first = (that.i + 1) if that is not None else c.left_edge.i
    return first != _child(c, "nsubj", "nsubjpass", "expl").left_edge.i


def _before(s: Site) -> int:
    c, that = _clause(s), _that(s)
    return (that.i if that is not None else c.left_edge.i) - 1


def _objects(s: Site) -> list[Token]:
    v = s["v"]
    return [o for o in v.children if o.dep_ in {"dobj", "dative"} and o.i > v.i]


@veto("long-object-before-clause")
def _long_object(s: Site) -> bool:
    """Only the verb, or a short object of it ("told him"), before the clause."""
    v, before, objects = s["v"], _before(s), _objects(s)
    return before != v.i and not (len(objects) == 1 and objects[0].right_edge.i == before
                                  and before - objects[0].left_edge.i < 2 and objects[0].left_edge.i == v.i + 1)


@veto("object-not-told")
def _not_told(s: Site) -> bool:
    """An object that is shown, not told: "will show restraint you …" is no "show restraint that you …"."""
    if _before(s) == s["v"].i:
        return False
    obj = _objects(s)[0]
    if obj.pos_ in {"PRON", "PROPN"}:
        return False
    sense = first_sense(s.ctx, obj.lemma_.lower(), "n")
    return not ((sense is None and s.ctx.wordnet is None) or sense in {"noun.person", "noun.group"})


@veto("quotation-around-clause")
def _quoted_clause(s: Site) -> bool:
    doc, v = s.doc, s["v"]
    return any(t.is_quote for t in doc[v.i:_clause(s).right_edge.i + 1]) or quoted(v)


@veto("title-capitals")
def _title(s: Site) -> bool:
    """A capitalised verb mid-sentence is a title's ("I Never Knew You Were Here")."""
    return any(t.text[:1].isupper() and not t.is_sent_start and not t.is_upper for t in (s["v"], _clause(s)))


@veto("second-that-clause")
def _second_that(s: Site) -> bool:
    """"said that X and that Y": the second "that" needs the first."""
    return any(t.dep_ == "conj" and _child(t, "mark") is not None for t in _clause(s).subtree)


@veto("has-that")
def _has_that(s: Site) -> bool:
    return _that(s) is not None


@veto("demonstrative-opens-clause")
def _demonstrative(s: Site) -> bool:
    """"said that that was …" reads as a stammer."""
    return s.doc[_clause(s).left_edge.i].lower_ in words("demonstratives")


@veto("embedded-question")
def _embedded_question(s: Site) -> bool:
    """"know what we were …" → "know that what …"."""
    first = s.doc[_clause(s).left_edge.i]
    return first.tag_ in {"WDT", "WP", "WP$", "WRB"} or first.lower_ in {"whether", "if"}


@veto("object-with-bare-relative")
def _gapped(s: Site) -> bool:
    """"know the name of the song Ana is singing": a noun phrase with a relative clause, read as a clause
    whose verb lacks the object its first sense needs."""
    c = _clause(s)
    subj = _child(c, "nsubj")
    return subj is not None and subj.pos_ in {"NOUN", "PROPN"} and lacks_object(c, s.ctx)


@veto("unquoted-direct-speech")
def _direct_speech(s: Site) -> bool:
    """"He said I'm done": with "that" the "I" would be someone else."""
    speaker = _child(s["v"], "nsubj")
    personal = words("personal-pronouns")
    third = speaker is None or speaker.lower_ not in personal
    return third and any(t.lower_ in personal for t in _clause(s).subtree)


@renderer("insert-that")
def render_insert_that(s: Site) -> list[Piece] | None:
    """The "that" joins the clause's argument spans, as annotators include it, and no anchor."""
    doc, c = s.doc, _clause(s)
    first = doc[c.left_edge.i]
    return keep(doc, range(0, first.i)) + [Piece("that", attach=c.i, marker=True)] + keep(doc, range(first.i, len(doc)))


@veto("no-that-or-object-reading")
def _no_that(s: Site) -> bool:
    """Without "that", "said those …" reads "those" as the object."""
    that = _that(s)
    return that is None or s.doc[that.i + 1].lower_ in words("demonstratives") | {"there"}


@renderer("delete-that")
def render_delete_that(s: Site) -> list[Piece] | None:
    doc, that = s.doc, _that(s)
    return keep(doc, [i for i in range(len(doc)) if i != that.i])


# --------------------------------------------------------------------------- synonym

_WN_POS = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}


@veto("no-wordnet-or-inflection")
def _no_wordnet(s: Site) -> bool:
    return s.ctx.wordnet is None or s.ctx.inflect is None


@veto("protected-stop-or-short-word")
def _protected(s: Site) -> bool:
    """Anchors are never replaced; nor function words, numbers or words under three letters."""
    t = s["t"]
    return t.i in s.ctx.protected or t.is_stop or not t.is_alpha or len(t.text) < 3


@renderer("synonym")
def render_synonym(s: Site) -> list[Piece] | None:
    """The first sense's attested synonym (SemCor count > 0: zero-count lemmas are mostly rare words)."""
    doc, t, ctx = s.doc, s["t"], s.ctx
    synsets = ctx.wordnet().synsets(t.lemma_.lower(), pos=_WN_POS[t.pos_])
    if not synsets:
        return None
    lemma = t.lemma_.lower()
    names = [(ln.count(), -k, ln.name()) for k, ln in enumerate(synsets[0].lemmas())
             if ln.name().lower() != lemma and "_" not in ln.name() and ln.name().isalpha() and ln.count() > 0]
    if not names:
        return None
    new_lemma = max(names)[2]
    form = new_lemma if t.tag_ in {"NN", "VB", "JJ", "RB", "NNP"} else ctx.inflect(new_lemma, t.tag_)
    if not form:
        return None
    if t.text[:1].isupper():
        form = form[:1].upper() + form[1:]
    return [Piece(form, d.i, changed=True) if d.i == t.i else Piece(d.text, d.i) for d in doc]
