"""Vetoes and renderers of the voice rules (passive-to-active, active-to-passive); their specs are in
``data/rules.json``, the sentences that taught each veto in ``tests/generate/rewrite/test_vetoes.py``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paraspan.generate.rewrite.core import (
    OBJ_TO_SUBJ,
    SUBJ_TO_OBJ,
    Piece,
    be_form,
    contiguous,
    final_punct,
    is_plural,
    keep,
    lower_first,
    recase_pronoun,
    rest_of_doc,
    subtree,
    tidy,
)
from paraspan.generate.rewrite.core import child as _child
from paraspan.generate.rewrite.core import children as _children
from paraspan.generate.rewrite.parse import first_sense, leaves_quote_open, relative_clause, verb_inflect
from paraspan.generate.rewrite.spec import Site, renderer, site_source, veto
from paraspan.generate.rewrite.wordlists import word_map, words

if TYPE_CHECKING:
    from collections.abc import Iterator

    from spacy.tokens import Doc

    from paraspan.generate.rewrite.core import RuleContext


@site_source("token")
def each_token(doc: Doc, ctx: RuleContext, name: str = "t") -> Iterator[dict[str, Any]]:
    """Every token of the document, named ``name``."""
    for t in doc:
        yield {name: t}


def _ids(s: Site, name: str) -> list[int]:
    return s.cached(f"ids:{name}", lambda: subtree(s[name]))


# --------------------------------------------------------------------------- passive-to-active


@veto("not-one-passive-auxiliary")
def _not_one_auxpass(s: Site) -> bool:
    return len(_children(s["v"], "auxpass")) != 1


@veto("conjoined-verb")
def _conjoined_verb(s: Site) -> bool:
    """A subject shared with a conjoined verb would become that verb's subject too."""
    return bool(_children(s["v"], "conj")) or s["v"].dep_ == "conj"


@veto("relative-pronoun-subject")
def _wh_subject(s: Site) -> bool:
    return s["subj"].tag_ in {"WP", "WDT"}


@veto("passive-out-of-order")
def _passive_order(s: Site) -> bool:
    bep = _children(s["v"], "auxpass")[0]
    return not (s["subj"].i < bep.i < s["v"].i < s["agent"].i)


@veto("measure-or-clause-as-agent")
def _measure_agent(s: Site) -> bool:
    """"were cut by up to 33%", or a finite clause the parser hung on the agent."""
    return s["ag"].pos_ == "NUM" or any(t.text == "%" or t.tag_ in {"VBD", "VBZ", "VBP", "MD"}
                                        for t in s["agent"].subtree)


@veto("particle-verb")
def _particle(s: Site) -> bool:
    """The particle would be left after the new object."""
    return bool(_children(s["v"], "prt"))


@veto("punctuation-in-agent-or-subject")
def _punct_in_phrases(s: Site) -> bool:
    """An apposition's closing comma or a quotation would be cut."""
    return any(t.is_punct for t in (*s["agent"].subtree, *s["subj"].subtree))


@veto("discontinuous-subject-or-agent")
def _discontinuous_sa(s: Site) -> bool:
    return not contiguous(_ids(s, "subj")) or not contiguous(_ids(s, "agent"))


@renderer("passive-to-active")
def render_passive_to_active(s: Site) -> list[Piece] | None:
    doc, ctx, v, subj, agent, ag = s.doc, s.ctx, s["v"], s["subj"], s["agent"], s["ag"]
    bep = _children(v, "auxpass")[0]
    other_aux = _children(v, "aux")
    s_ids, a_ids = _ids(s, "subj"), _ids(s, "agent")
    aux_pieces: list[Piece] = []
    form: str | None
    if other_aux:
        if any(a.tag_ == "MD" for a in other_aux) and bep.lower_ == "be":
            form = verb_inflect(ctx, v.lemma_, "VB")
            aux_pieces = [Piece(a.text, a.i) for a in other_aux]
        elif len(other_aux) == 1 and other_aux[0].lemma_ == "have" and bep.lower_ == "been":
            form = v.text
            have = other_aux[0]
            new_have = have.text if have.tag_ == "VBD" else ("have" if is_plural(ag) else "has")
            aux_pieces = [Piece(new_have, have.i)]
        else:
            return None
    elif bep.tag_ == "VBD":
        form = verb_inflect(ctx, v.lemma_, "VBD")
    elif bep.tag_ in {"VBZ", "VBP"}:
        third = (not is_plural(ag) or ag.lower_ in words("singular-s")) and ag.lower_ not in {"i", "you", "me"} and (
            ag.lower_ not in words("plural-collectives"))
        form = verb_inflect(ctx, v.lemma_, "VBZ" if third else "VBP")
    else:
        return None
    if not form:
        return None
    group = set(s_ids) | set(a_ids) | {bep.i, v.i} | {a.i for a in other_aux}
    lo, hi = min(s_ids), max(a_ids)
    middle = [i for i in range(lo, v.i) if i not in group]
    post = [i for i in range(v.i + 1, hi + 1) if i not in group]
    new_subj = [Piece(recase_pronoun(doc[i].text, OBJ_TO_SUBJ) if i == ag.i else doc[i].text, i)
                for i in a_ids if i != agent.i]
    new_obj = [Piece(recase_pronoun(doc[i].text, SUBJ_TO_OBJ) if i == subj.i else doc[i].text, i) for i in s_ids]
    body = (keep(doc, range(v.sent.start, lo)) + lower_first(doc, new_subj) + aux_pieces + keep(doc, middle)
            + [Piece(form, v.i)] + lower_first(doc, new_obj) + keep(doc, post) + keep(doc, range(hi + 1, v.sent.end)))
    return tidy(doc, rest_of_doc(doc, body, v))


# --------------------------------------------------------------------------- active-to-passive: the clause


@veto("auxiliary-negation-or-complement")
def _aux_or_complement(s: Site) -> bool:
    return bool(_children(s["v"], "aux", "auxpass", "neg", "dative", "ccomp", "xcomp"))


@veto("wh-expletive-or-reflexive")
def _wh_or_reflexive(s: Site) -> bool:
    subj, obj = s["subj"], s["obj"]
    return subj.tag_ in {"WP", "WDT", "EX"} or obj.tag_ in {"WP", "WDT"} or obj.lower_.endswith(("self", "selves"))


@veto("bare-it-subject")
def _bare_it(s: Site) -> bool:
    """"… concern is followed by it": "by it" reads as a misparse."""
    return s["subj"].lower_ == "it" and len(_ids(s, "subj")) == 1


@veto("object-apposition")
def _object_apposition(s: Site) -> bool:
    """The object's apposition would stand between the new subject and its verb."""
    return any(t.dep_ == "appos" for t in s["obj"].subtree)


@veto("with-verb-object")
def _with_object(s: Site) -> bool:
    """"provides companies with benefits": the "with" phrase would move along with the object."""
    return s["v"].lemma_ in words("with-verbs") and any(c.dep_ == "prep" and c.lower_ == "with"
                                                        for c in s["obj"].children)


@veto("object-ends-in-and")
def _object_ends_in_and(s: Site) -> bool:
    """A coordination the parser split wrongly."""
    return s.doc[max(_ids(s, "obj"))].dep_ == "cc"


@veto("past-same-as-base")
def _past_same_as_base(s: Site) -> bool:
    """"If they put …": past or present? The passive's "was" or "is" cannot be told."""
    v = s["v"]
    return v.tag_ == "VBD" and verb_inflect(s.ctx, v.lemma_, "VB") == v.lower_


@veto("object-not-nominal-or-no-stop")
def _object_not_nominal(s: Site) -> bool:
    """An adverb parsed as the object ("contained herein"), or a verbless title."""
    return s["obj"].pos_ not in {"NOUN", "PROPN", "PRON", "NUM"} or final_punct(s["v"]) is None


@veto("verb-inside-noun-phrase")
def _verb_in_np(s: Site) -> bool:
    """A verb inside a noun phrase or a subject ("Nothing contained herein should …")."""
    return s["v"].dep_ in {"csubj", "csubjpass", "acl", "relcl", "amod", "pcomp"}


@veto("dangling-opener")
def _dangles(s: Site) -> bool:
    """A leading participle or verbless phrase whose implied subject is the subject ("Hailing from X, he
    spent …", "like a wolf she sniffed"): with the subject behind the verb it would modify the new one."""
    v, subj = s["v"], s["subj"]
    for c in v.children:
        if c.i > subj.i:
            continue
        if c.dep_ in {"advcl", "acl", "npadvmod"} and not _child(c, "nsubj", "nsubjpass", "mark"):
            return True
        if c.dep_ == "prep" and (c.lower_ in {"like", "unlike", "as"} or (c.lower_ in words("subject-preps") and any(
                g.dep_ == "pcomp" and g.tag_ == "VBG" and not _child(g, "nsubj") for g in c.children))):
            return True
    return False


@veto("focus-word-in-subject")
def _focus_in_subject(s: Site) -> bool:
    """"even a newspaper published it" → "was published by even a newspaper"."""
    return any(t.lower_ in words("focus") for t in s["subj"].subtree)


@veto("ditransitive-recipient")
def _ditransitive(s: Site) -> bool:
    """"gave it that clarity": the first object is the recipient."""
    v, obj = s["v"], s["obj"]
    return v.lemma_ in words("ditransitive") and any(
        c.i > obj.i and c.dep_ in {"npadvmod", "dobj", "attr", "oprd", "ccomp"} for c in v.children)


@veto("subject-verb-object-not-in-order")
def _svo_order(s: Site) -> bool:
    s_ids, o_ids, v = _ids(s, "subj"), _ids(s, "obj"), s["v"]
    return not (contiguous(s_ids) and contiguous(o_ids) and max(s_ids) < v.i < min(o_ids))


@veto("words-between-verb-and-object")
def _between(s: Site) -> bool:
    return any(s.doc[i].dep_ != "prt" for i in range(s["v"].i + 1, min(_ids(s, "obj"))))


@veto("focus-or-negation-before-verb")
def _focus_before_verb(s: Site) -> bool:
    """"She only bought X" → "X was only bought": the focus word's scope would change."""
    doc, v = s.doc, s["v"]
    scoped = words("focus") | words("negative-adverbs")
    return any(doc[i].dep_ not in {"advmod"} or doc[i].lower_ in scoped for i in range(max(_ids(s, "subj")) + 1, v.i))


# --------------------------------------------------------------------------- active-to-passive: how it reads


@veto("object-refers-back-to-subject")
def _refers_back(s: Site) -> bool:
    """A possessive in the object that may be the subject's ("He raised his hand" → "His hand was raised by
    him"): with the subject as the agent the pronoun comes first."""
    subj, doc = s["subj"], s.doc
    if subj.tag_ == "PRP":
        mine = {w for w, owner in word_map("possessives-of").items() if owner == subj.lower_}
    else:
        # a name may be "their" ("the club deserved their win")
        mine = {"their"} if is_plural(subj) else {"his", "her", "its"} | ({"their"} if subj.pos_ == "PROPN" else set())
    return any(doc[i].lower_ in mine and doc[i].tag_ == "PRP$" for i in _ids(s, "obj"))


@veto("idiom-object")
def _idiom_object(s: Site) -> bool:
    """"take place", "lose ground": the idiom's bare object has no passive."""
    obj = s["obj"]
    return obj.lower_ in words("passive-idiom-objects") and not any(
        c.dep_ in {"det", "poss", "amod", "nummod"} for c in obj.children)


@veto("polarity-direction-or-measure-object")
def _polarity_object(s: Site) -> bool:
    """"hardly said anything", "leads eastwards", "liked it a lot": no object a passive takes."""
    obj = s["obj"]
    return obj.lower_ in words("no-passive-objects") or (obj.lower_ in words("adverbial-measures") and any(
        c.lower_ in {"a", "an", "great"} for c in obj.children))


@veto("time-or-body-part-object")
def _time_or_body(s: Site) -> bool:
    """"spent weekends", "waved a hand": a time or a body part as object."""
    obj = s["obj"]
    return obj.pos_ == "NOUN" and first_sense(s.ctx, obj.lemma_.lower(), "n") in {"noun.time", "noun.body"}


@veto("generic-one-subject")
def _generic_one(s: Site) -> bool:
    return s["subj"].lower_ == "one"


@veto("name-after-common-noun-subject")
def _name_in_subject(s: Site) -> bool:
    """"After the hearing Ann and her brother left" read "the hearing Ann …" as one subject."""
    subj, doc = s["subj"], s.doc
    return subj.pos_ == "NOUN" and any(doc[i].pos_ == "PROPN" and i > subj.i and doc[i].head.i == subj.i
                                       for i in _ids(s, "subj"))


@veto("stranded-preposition")
def _stranded_prep(s: Site) -> bool:
    """A preposition of the verb without its object: the noun was taken into the subject."""
    return any(c.dep_ == "prep" and not _child(c, "pobj", "pcomp") for c in s["v"].children)


@veto("subject-after-auxiliary-or-determiner")
def _inverted(s: Site) -> bool:
    """"had the council decided": a subject after an inverted auxiliary, a determiner or bracket left outside."""
    doc, first = s.doc, _ids(s, "subj")[0]
    return first > 0 and (doc[first - 1].pos_ in {"AUX", "DET"} or doc[first - 1].is_bracket)


@veto("how-before-subject")
def _how(s: Site) -> bool:
    """"how close the copy matched the original"."""
    return any(c.i < s["subj"].i and any(g.lower_ == "how" for g in c.children) for c in s["v"].children)


@veto("with-phrase-after-object")
def _with_after_object(s: Site) -> bool:
    """"described two families with different habits": the "with" phrase may be the object's."""
    doc, v, end = s.doc, s["v"], _ids(s, "obj")[-1]
    return (end + 1 < len(doc) and doc[end + 1].lower_ == "with" and doc[end + 1].head.i == v.i
            and v.lemma_ not in words("with-verbs"))


@veto("name-in-apposition-as-subject")
def _apposed_name(s: Site) -> bool:
    """"under the pen name Celeste later wrote": a name right after a noun is its apposition."""
    doc, first = s.doc, _ids(s, "subj")[0]
    return s["subj"].pos_ == "PROPN" and first > 0 and doc[first - 1].pos_ in {"NOUN", "PROPN"}


@veto("participle-by-in-object")
def _by_in_object(s: Site) -> bool:
    """"a report released by the charity": the object holds its own agent."""
    doc = s.doc
    return any(doc[i].lower_ == "by" and doc[i].head.tag_ == "VBN" for i in _ids(s, "obj"))


@veto("subjectless-verb-after-object")
def _subjectless_verb(s: Site) -> bool:
    """A second verb of the old subject the parser hung elsewhere ("took the box, opened it")."""
    end = _ids(s, "obj")[-1]
    return any(t.i > end and t.tag_ in {"VBD", "VBZ", "VBP"} and t.pos_ == "VERB" and t.dep_ not in {"aux", "auxpass"}
               and not _child(t, "nsubj", "nsubjpass", "expl") and not relative_clause(t) for t in s["v"].sent)


@veto("second-noun-after-object")
def _second_noun(s: Site) -> bool:
    """Gapping ("nouns to name things, verbs to name acts") or a misparse."""
    end = _ids(s, "obj")[-1]
    return any(c.i > end and c.dep_ in {"dobj", "npadvmod", "attr", "oprd", "appos"} for c in s["v"].children)


@veto("pronoun-subject-and-object-same")
def _same_pronoun(s: Site) -> bool:
    """"while he reads him" → "while he is read by him": which one reads is lost."""
    subj, obj = s["subj"], s["obj"]
    return subj.tag_ == "PRP" and obj.tag_ == "PRP" and recase_pronoun(obj.text, OBJ_TO_SUBJ).lower() == subj.lower_


@veto("punctuation-in-subject-or-object")
def _punct_in_so(s: Site) -> bool:
    """An apposition, a non-restrictive clause or a quotation would lose a comma or a quote."""
    doc = s.doc
    return any(doc[i].is_punct for i in (*_ids(s, "subj"), *_ids(s, "obj")))


@veto("finite-verb-in-subject")
def _finite_in_subject(s: Site) -> bool:
    """A finite verb inside the subject other than a relative clause's: a misparse."""
    doc = s.doc
    return any(doc[i].tag_ in {"VBD", "VBZ", "VBP", "MD"} and not relative_clause(doc[i]) for i in _ids(s, "subj"))


@veto("lower-case-name")
def _lower_case_name(s: Site) -> bool:
    """A lower-case "name" is a word the tagger did not know, and the parse around it is no better."""
    doc = s.doc
    return any(doc[i].pos_ == "PROPN" and doc[i].text[:1].islower() for i in (*_ids(s, "subj"), *_ids(s, "obj")))


@veto("subject-after-opening-quote")
def _after_quote(s: Site) -> bool:
    """The subject right after an opening quotation keeps its capital ("` We need rest" → "` rest is needed")."""
    doc, first = s.doc, _ids(s, "subj")[0]
    before = doc[first - 1] if first > 0 else None
    opened = before is not None and leaves_quote_open(doc[before.sent.start:first])
    return before is not None and ((before.is_quote and opened) or (before.is_punct and before.i == before.sent.start))


@veto("generic-you-subject")
def _generic_you(s: Site) -> bool:
    """"the path is followed by you" reads wrong."""
    return s["subj"].lower_ == "you"


@veto("noun-word-after-object")
def _word_after_object(s: Site) -> bool:
    """A word of the object's own phrase the parser hung on the verb ("obtained our strain K-12 from …")."""
    doc, end = s.doc, _ids(s, "obj")[-1]
    return end + 1 < len(doc) and doc[end + 1].pos_ in {"NOUN", "PROPN", "NUM", "ADJ", "X", "SYM"}


@veto("adverb-inside-clause-after-object")
def _adverb_after_object(s: Site) -> bool:
    """"suspected her still of lying" → "was suspected by X still of …"; a clause-final one ("too") stays."""
    doc, end = s.doc, _ids(s, "obj")[-1]
    return end + 2 < len(doc) and doc[end + 1].pos_ == "ADV" and not doc[end + 2].is_punct


@veto("by-after-object")
def _by_after_object(s: Site) -> bool:
    """"Work was started by the volunteers by hauling …"."""
    end = _ids(s, "obj")[-1]
    return any(t.lower_ == "by" and t.i > end for t in s["v"].subtree)


@veto("particle-after-object")
def _particle_after_object(s: Site) -> bool:
    """"switch it off" → "it is switched by me off"."""
    end = _ids(s, "obj")[-1]
    return any(p.i > end for p in _children(s["v"], "prt"))


@veto("particle-not-phrasal-verb")
def _particle_preposition(s: Site) -> bool:
    """A particle that is a preposition ("glanced out the window" → "the window was glanced out")."""
    v, ctx = s["v"], s.ctx
    prts = _children(v, "prt")
    return bool(prts) and (ctx.wordnet is None or not ctx.wordnet().synsets(f"{v.lemma_.lower()}_{prts[0].lower_}",
                                                                             pos="v"))


@veto("subjectless-clause-after-object")
def _trailing_clause(s: Site) -> bool:
    """A clause after the object with neither a subject, a subordinator nor "to" ("…, pausing to rest"):
    its implied subject is the old subject, and after the passive it reads as the new one's."""
    v, obj_end = s["v"], _ids(s, "obj")[-1]
    for c in v.children:
        if c.i > obj_end and c.dep_ == "advcl" and c.pos_ not in {"VERB", "AUX"} and not _child(c, "nsubj", "mark"):
            return True  # a verb the tagger called an adjective
        if c.i > obj_end and c.dep_ in {"advcl", "xcomp", "acl"} and c.pos_ in {"VERB", "AUX"}:
            if not _child(c, "nsubj", "nsubjpass", "mark", "aux") and c.tag_ != "TO":
                return True
            if c.tag_ in {"VBG", "VBN"} and not _child(c, "nsubj", "nsubjpass", "aux"):
                return True  # "whilst hiding under bushes"
        if c.i > obj_end and c.dep_ == "prep" and c.lower_ in words("subject-preps") and any(
                g.dep_ == "pcomp" and g.tag_ == "VBG" for g in c.children):
            return True  # "won the match after leading for an hour"
    # a participle hung on a noun after the object ("threw the cards into the sea saying …")
    return any(t.i > obj_end and t.tag_ == "VBG" and t.dep_ in {"acl", "advcl"} and t.head.pos_ in {"NOUN", "PROPN"}
               and not _child(t, "nsubj", "mark") for t in v.subtree)


@veto("object-phrase-goes-on-after-comma")
def _comma_after_object(s: Site) -> bool:
    """A comma right after the object ends the clause only where the verb's phrase ends; otherwise what
    follows hangs on the object and would hang on the agent ("admired Ann, then still a child")."""
    doc, v, end = s.doc, s["v"], _ids(s, "obj")[-1]
    return end + 1 < len(doc) and doc[end + 1].text in {",", "--", "-", ";", ":", "…", "...", "("} and max(
        subtree(v)) > end + 1


@veto("that-opens-complement-subject")
def _that_subject(s: Site) -> bool:
    """"show that allied advice received …" parsed with "that" as the subject's determiner."""
    return s.doc[_ids(s, "subj")[0]].lower_ == "that" and s["v"].dep_ == "ccomp"


@renderer("active-to-passive")
def render_active_to_passive(s: Site) -> list[Piece] | None:
    """The inserted "by" is attached to the subject's head, so the agent argument becomes "by the dog"."""
    doc, ctx, v, subj, obj = s.doc, s.ctx, s["v"], s["subj"], s["obj"]
    s_ids, o_ids = _ids(s, "subj"), _ids(s, "obj")
    # the participle of the lemma, unless the lemma is another verb's ("scraped" given "scrap"): then a
    # regular past is its own participle
    vbn = verb_inflect(ctx, v.lemma_, "VBN")
    if v.tag_ == "VBD" and v.lower_.endswith("ed") and verb_inflect(ctx, v.lemma_, "VBD") != v.lower_:
        vbn = v.lower_
    if not vbn:
        return None
    prt = list(range(v.i + 1, min(o_ids)))
    middle = list(range(max(s_ids) + 1, v.i))
    # "a number of boats were"
    of_plural = obj.lower_ in words("quantity-heads") and any(
        c.dep_ == "prep" and c.lower_ == "of" and any(is_plural(g) for g in c.children) for c in obj.children)
    plural = (is_plural(obj) and obj.lower_ not in words("singular-s")) or obj.lower_ in words(
        "plural-collectives") or of_plural
    be = be_form(v.tag_ == "VBD", plural, obj.lower_ in {"me", "i"})
    new_subj = [Piece(recase_pronoun(doc[i].text, OBJ_TO_SUBJ) if i == obj.i else doc[i].text, i) for i in o_ids]
    new_ag = [Piece(recase_pronoun(doc[i].text, SUBJ_TO_OBJ) if i == subj.i else doc[i].text, i) for i in s_ids]
    body = (keep(doc, range(v.sent.start, min(s_ids))) + lower_first(doc, new_subj) + [Piece(be)]
            + keep(doc, middle) + [Piece(vbn, v.i)] + keep(doc, prt) + [Piece("by", attach=subj.i, marker=True)]
            + lower_first(doc, new_ag) + keep(doc, range(max(o_ids) + 1, v.sent.end)))
    return tidy(doc, rest_of_doc(doc, body, v))
