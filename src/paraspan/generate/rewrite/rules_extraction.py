"""Vetoes, renderers and site sources of the extraction rules (an appositive, a relative clause or a
participial phrase into a sentence of its own) and of the deletions of comma-delimited modifiers."""

from __future__ import annotations

from itertools import takewhile
from typing import TYPE_CHECKING, Any

from paraspan.generate.rewrite.core import (
    Piece,
    be_form,
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
from paraspan.generate.rewrite.parse import (
    CLOSING_QUOTES,
    FINITE_TAGS,
    PLACES,
    comma_offset,
    copied,
    downward,
    finite,
    first_sense,
    leaves_quote_open,
    main_past,
    np_copy,
    numeric,
    quoted,
    sent_ids,
    strip_stop,
)
from paraspan.generate.rewrite.spec import Site, renderer, site_source, veto
from paraspan.generate.rewrite.wordlists import words

if TYPE_CHECKING:
    from collections.abc import Iterator

    from spacy.tokens import Doc, Token

    from paraspan.generate.rewrite.core import RuleContext


@site_source("noun-modifier")
def noun_modifiers(doc: Doc, ctx: RuleContext, deps: tuple[str, ...] = ("appos",)) -> Iterator[dict[str, Any]]:
    """A modifier ``m`` (labelled one of ``deps``) after its noun ``n``, set off by commas (``commas``:
    the one before, the one after or None at the sentence's end); ``ids``: its tokens."""
    for n in doc:
        if n.pos_ not in {"NOUN", "PROPN"}:
            continue
        for m in n.children:
            if m.dep_ not in deps or m.i < n.i:
                continue
            ids = strip_stop(doc, subtree(m))
            commas = comma_offset(doc, ids) if contiguous(ids) else None
            if commas is not None:
                yield {"n": n, "m": m, "ids": ids, "commas": commas}


@site_source("child")
def each_child(doc: Doc, ctx: RuleContext, head: str = "v", child: str = "m") -> Iterator[dict[str, Any]]:
    """Every token with each of its children."""
    for t in doc:
        for c in t.children:
            yield {head: t, child: c}


# --------------------------------------------------------------------------- shared by the extractions


def nonrestrictive_relcl(m: Token) -> bool:
    """A "who"/"which" clause whose pronoun is its subject, with no infinitive after a comma in it."""
    first = m.doc[min(t.i for t in m.subtree)]
    if any(t.tag_ == "TO" and _after_comma(t) for t in m.subtree):
        return False  # "forced the owner, who called himself X, to sell …": the main verb's infinitive
    return first.lower_ in {"who", "which"} and first.dep_ in {"nsubj", "nsubjpass"} and first.head == m


def _after_comma(t: Token) -> bool:
    """Whether a comma comes right before ``t``, or before the closing quotation marks right before it."""
    i = t.i - 1
    while i >= 0 and t.doc[i].text in CLOSING_QUOTES:
        i -= 1
    return i >= 0 and t.doc[i].text == ","


def _clause_number(v: Token) -> bool | None:
    """The number the finite verb of ``v``'s clause agrees with: True plural, False singular, None unknown."""
    aux = [c for c in v.children if c.dep_ in {"aux", "auxpass"} and c.i < v.i]
    verb = aux[0] if aux else v
    if verb.tag_ == "VBZ" or verb.lower_ in words("singular-verb-forms"):
        return False
    if verb.tag_ == "VBP" or verb.lower_ in words("plural-verb-forms"):
        return True
    return None


def agrees(n: Token, m: Token) -> bool:
    """Whether the relative clause headed by ``m`` agrees in number with ``n`` ("their farms, which was
    sold" is about an earlier noun)."""
    number = _clause_number(m)
    if number is False and is_plural(n):
        return False
    return not (number is True and not is_plural(n) and n.tag_ in {"NN", "NNP"})


def embedded(n: Token) -> bool:
    """Whether ``n`` sits inside another noun's phrase ("visits to sites near the plant, which …"): a
    modifier after it may belong to any of those nouns, and the parser's choice may be wrong."""
    head = n.head
    if n.dep_ == "pobj" and head.head.pos_ in {"VERB", "AUX"} and any(
            c.dep_ == "dobj" and c.i < head.i for c in head.head.children):
        return True  # a phrase after the verb's object, where the modifier may be about the object
    # up to the clause's own verb; a participle that modifies a noun is part of that noun's phrase
    while head.i != head.head.i and not (head.pos_ in {"VERB", "AUX"} and head.dep_ not in {"acl", "relcl"}):
        if head.pos_ in {"NOUN", "PROPN", "PRON"}:
            return True
        head = head.head
    return head.pos_ in {"NOUN", "PROPN", "PRON"} and head.i != n.i


@veto("indefinite-head")
def _indefinite(s: Site) -> bool:
    """A copy of "a hard rock" or "another officer" makes a claim about any such thing or a second one."""
    return any(c.dep_ == "det" and c.lower_ in words("not-definite") for c in s["n"].children)


@veto("inside-quotation")
def _in_quotation(s: Site) -> bool:
    """The copy would be the writer's claim, not the speaker's."""
    doc, commas = s.doc, s["commas"]
    return quoted(s["n"]) or (commas[1] is not None and commas[1] + 1 < len(doc)
                              and doc[commas[1] + 1].text in CLOSING_QUOTES)


@veto("quotation-left-open")
def _quote_open(s: Site) -> bool:
    """The new sentence after an open quotation would read as part of what was said."""
    return leaves_quote_open(s["n"].sent)


@veto("nearer-noun")
def _nearer_noun(s: Site) -> bool:
    """A noun of the head's own phrase stands nearer, and the modifier may be about it ("the end of one
    era, a golden age")."""
    doc, n, commas = s.doc, s["n"], s["commas"]
    return commas[0] - 1 != n.i and any(doc[i].dep_ == "pobj" or doc[i].pos_ == "NOUN"
                                        for i in range(n.i + 1, commas[0]))


@veto("opens-list-of-modifiers")
def _opens_list(s: Site) -> bool:
    """"X, a singer, and, more important, a painter": without the first, the rest reads as a second noun."""
    doc, n, ids, commas = s.doc, s["n"], s["ids"], s["commas"]
    after = doc[commas[1] + 1] if commas[1] is not None and commas[1] + 1 < len(doc) else None
    return after is not None and after.pos_ == "CCONJ" and (
        (after.i + 1 < len(doc) and doc[after.i + 1].text == ",") or after.head.i in {n.i, *ids})


@veto("not-right-after-head")
def _not_right_after(s: Site) -> bool:
    """The parser also hangs a clause-final modifier on a noun far before it."""
    n, ids, commas = s["n"], s["ids"], s["commas"]
    own = [i for i in subtree(n) if i not in set(ids) and i not in commas]
    return not (bool(own) and contiguous(own) and max(own) == commas[0] - 1)


@veto("head-inside-another-phrase")
def _embedded(s: Site) -> bool:
    return embedded(s["n"])


def _extract(s: Site, second: list[Piece]) -> list[Piece] | None:
    doc, n, ids, commas = s.doc, s["n"], s["ids"], s["commas"]
    drop = set(ids) | {commas[0]} | ({commas[1]} if commas[1] is not None else set())
    first = sent_ids(n, drop)
    stop = final_punct(n)
    if stop is None or stop in drop:
        return None
    first_pieces = keep(doc, [i for i in first if i != stop]) + [Piece(doc[stop].text, stop)]
    # no second period after an abbreviation that ends the copy ("… at IBM Corp.")
    stop_piece = [] if second and second[-1].text.endswith(".") else [Piece(".")]
    return tidy(doc, rest_of_doc(doc, first_pieces + second + stop_piece, n)) or None


# --------------------------------------------------------------------------- extract-appositive


@veto("root-head-or-listed-modifier")
def _root_or_list(s: Site) -> bool:
    """A verbless fragment or a list ("Cozy, warm room, great view.") parses as a root noun with appositives."""
    return s["n"].dep_ == "ROOT" or bool(_children(s["m"], "conj", "appos"))


@veto("bare-noun-in-bare-place")
def _absolute_place(s: Site) -> bool:
    """"the steps, pipe in mouth," is an absolute phrase, no apposition ("director of sales" stays)."""
    m = s["m"]
    return m.tag_ == "NN" and not _child(m, "det", "poss", "nummod", "amod", "compound") and any(
        c.dep_ == "prep" and c.lower_ in {"in", "on", "at", "under", "over"} and any(
            g.dep_ == "pobj" and g.tag_ == "NN" and not _child(g, "det", "poss") for g in c.children)
        for c in m.children)


@veto("list-inside-modifier")
def _list_inside(s: Site) -> bool:
    """"liked the songs, the food of the house, the jokes and games" names three things, not one."""
    doc = s.doc
    return any(doc[i].dep_ == "conj" and min(subtree(doc[i])) > 0 and doc[min(subtree(doc[i])) - 1].text == ","
               for i in s["ids"])


@veto("place-of-name-or-list-item")
def _place_or_list_item(s: Site) -> bool:
    """"Leeds, England" is a name and where it lies; "…, Salem, Union, Wayne." is a list."""
    n, m = s["n"], s["m"]
    return (m.ent_type_ in PLACES and n.pos_ == "PROPN") or n.dep_ == "conj" or bool(_children(n, "conj"))


@veto("after-relative-clause")
def _after_relcl(s: Site) -> bool:
    """After a relative clause a bare name belongs to the clause's last noun ("who lives at the Elms, Ayton")."""
    n, m = s["n"], s["m"]
    return any(c.dep_ in {"relcl", "acl"} and n.i < c.i < m.i for c in n.children)


@veto("name-in-sentence-to-you")
def _addressed(s: Site) -> bool:
    """A title or name in a sentence that speaks to someone is who is spoken to ("from your tone, Captain,")."""
    m = s["m"]
    return m.pos_ == "PROPN" and not _children(m, "det") and any(t.lower_ in words("second-person")
                                                                   for t in s["n"].sent)


@veto("vocative-name")
def _vocative(s: Site) -> bool:
    """A bare name closing a sentence said to someone ("I love this song, Maria!"), after no word for a person."""
    doc, n, m, ids = s.doc, s["n"], s["m"], s["ids"]
    if m.pos_ != "PROPN" or _children(m, "det"):
        return False
    sent = n.sent
    after = doc[max(ids) + 1:sent.end]
    if any(t.is_alpha for t in after):
        return False
    speaks = any(t.lower_ in words("first-person") for t in sent) or any("!" in t.text or "?" in t.text
                                                                         for t in after)
    return speaks and first_sense(s.ctx, n.lemma_.lower(), "n") not in {"noun.person", "noun.group"}


@veto("two-bare-names")
def _two_names(s: Site) -> bool:
    """An address ("the Elms, Upper Ayton": a house and its village) or a name and its place."""
    n, m = s["n"], s["m"]
    return n.pos_ == "PROPN" and m.pos_ == "PROPN" and not _children(m, "det", "prep")


@veto("modifier-holds-clause")
def _own_clause(s: Site) -> bool:
    """A finite verb outside a relative clause: the "appositive" is a clause ("than the Romans, the Greeks used")."""
    doc, m = s.doc, s["m"]
    for i in s["ids"]:
        t = doc[i]
        if t.tag_ in FINITE_TAGS:
            path = takewhile(lambda a: a.i != m.i, [t, *t.ancestors])
            if not any(a.dep_ == "relcl" for a in path):
                return True
    return False


@veto("opened-by-adverb-or-preposition")
def _opened_by_adverb(s: Site) -> bool:
    """", especially the drought …" adds an example, it does not rename."""
    return s.doc[s["ids"][0]].pos_ in {"ADV", "ADP", "SCONJ", "CCONJ"}


@veto("date-modifier")
def _date(s: Site) -> bool:
    """A citation's date, no apposition."""
    return s["m"].ent_type_ == "DATE"


@veto("score-line")
def _score(s: Site) -> bool:
    """"won the final 6–1, 6–3, against X": the second set is no new name for the first."""
    return numeric(s["m"]) or numeric(s["n"])


@veto("locator-with-number")
def _locator(s: Site) -> bool:
    """"… by Ann Lee, pages 12–19": a place in a work, no second name."""
    return s["m"].lemma_.lower() in words("locators") and any(numeric(s.doc[i]) for i in s["ids"])


@veto("bare-common-noun-head")
def _bare_head(s: Site) -> bool:
    """"are concerts, the kind of …" → "Concerts are the kind of …" is about all of them."""
    n = s["n"]
    return n.pos_ == "NOUN" and not _children(n, "det", "poss", "nummod", "predet")


@veto("quote-before-comma")
def _quote_before(s: Site) -> bool:
    """A quotation mark before the comma would stay behind."""
    commas = s["commas"]
    return commas[0] > 0 and s.doc[commas[0] - 1].is_quote


@veto("absolute-plural-participle")
def _absolute(s: Site) -> bool:
    """"onto Main Street, the tall houses flashing by": a plural with its own participle after a singular."""
    n, m = s["n"], s["m"]
    return n.tag_ in {"NN", "NNP"} and m.tag_ in {"NNS", "NNPS"} and any(c.dep_ == "acl" and c.tag_ == "VBG"
                                                                       for c in m.children)


def _appositive_be(s: Site) -> str:
    def compute() -> str:
        n = s["n"]
        # the sentence's own agreement: "General Motors … is based" is one company
        number = _clause_number(n.head) if n.dep_ in {"nsubj", "nsubjpass"} else None
        return be_form(main_past(n), is_plural(n) if number is None else number)
    return s.cached("be", compute)


@veto("past-copy-of-present-modifier")
def _past_over_present(s: Site) -> bool:
    """"The lake was the reservoir that today provides …": the past contradicts it."""
    return _appositive_be(s) in {"was", "were"} and any(s.doc[i].tag_ in {"VBZ", "VBP"} for i in s["ids"])


@renderer("extract-appositive")
def render_extract_appositive(s: Site) -> list[Piece] | None:
    doc, n, ids, commas = s.doc, s["n"], s["ids"], s["commas"]
    second = np_copy(doc, n, set(ids) | {commas[0]}) + [Piece(_appositive_be(s))] + keep(doc, ids)
    return _extract(s, second)


# --------------------------------------------------------------------------- extract-relative-clause


@veto("restrictive-relative-clause")
def _restrictive(s: Site) -> bool:
    return not nonrestrictive_relcl(s["m"])


@veto("clause-disagrees-with-head")
def _disagrees(s: Site) -> bool:
    """"their farms, which was sold" is about an earlier noun."""
    return not agrees(s["n"], s["m"])


@veto("coordinated-head")
def _coordinated(s: Site) -> bool:
    """"from Peru and Chile, which …": the clause may be about both."""
    n = s["n"]
    return n.dep_ == "conj" or bool(_children(n, "conj"))


@veto("inside-cleft")
def _in_cleft(s: Site) -> bool:
    """"It was in this town, which …, that X began": the clause sits in a cleft."""
    n = s["n"]
    ws = [t for t in n.sent if not t.is_punct]
    return (len(ws) > 2 and ws[0].lower_ == "it" and ws[1].lemma_ == "be"
            and any(t.lower_ == "that" and t.i > n.i for t in n.sent))


@veto("closing-comma-opens-phrase")
def _comma_opens(s: Site) -> bool:
    """"Mark, who had …, his hands in his pockets, watched": the closing comma also opens another phrase."""
    doc, n, commas = s.doc, s["n"], s["commas"]
    return n.dep_ in {"nsubj", "nsubjpass"} and commas[1] is not None and commas[1] + 1 < len(doc) and \
        doc[commas[1] + 1].i != n.head.i and doc[commas[1] + 1].head.i != n.head.i


@renderer("extract-relative-clause")
def render_extract_relative_clause(s: Site) -> list[Piece] | None:
    """The copied noun phrase stands in for the relative pronoun (which maps to its head)."""
    doc, n, ids, commas = s.doc, s["n"], s["ids"], s["commas"]
    pron = ids[0]
    copy = np_copy(doc, n, set(ids) | {commas[0]}, attach=pron)
    for piece in copy:
        if piece.text == n.text:
            piece.src, piece.attach = pron, None
            break
    return _extract(s, lower_first(doc, copy) + keep(doc, ids[1:]))


# --------------------------------------------------------------------------- extract-participial


@site_source("participial")
def participials(doc: Doc, ctx: RuleContext) -> Iterator[dict[str, Any]]:
    """Participial phrases set off by commas right after the main subject, or leading the sentence
    (the parser hangs them in several places): ``n`` the subject, ``ids`` the phrase, ``drop`` what goes."""
    for m in doc:
        if m.tag_ not in {"VBG", "VBN"} or _child(m, "nsubj", "nsubjpass", "mark", "aux", "auxpass") is not None:
            continue
        # "According to X", "Given Y", "Having regard to Z": prepositions or conditions, no description
        if m.lower_ in words("preposition-participles") or (m.lower_ == "having" and m.i + 1 < len(doc)
                                                            and doc[m.i + 1].lower_ == "regard"):
            continue
        ids = strip_stop(doc, subtree(m))
        if not contiguous(ids) or ids[0] != m.i or m.dep_ in {"ROOT", "conj", "xcomp", "ccomp", "pcomp", "pobj"}:
            continue
        v = m.sent.root
        n = _child(v, "nsubj", "nsubjpass")
        if n is None or n.pos_ not in {"NOUN", "PROPN"} or m.i == v.i:
            continue
        n_ids = [i for i in subtree(n) if i not in ids]
        commas = comma_offset(doc, ids)
        if commas is not None and commas[1] is not None and n_ids and max(n_ids) == commas[0] - 1 \
                and min(n_ids) >= m.sent.start:
            yield {"n": n, "ids": ids, "drop": set(ids) | {commas[0], commas[1]}}
        elif ids[0] == m.sent.start and ids[-1] + 1 < len(doc) and doc[ids[-1] + 1].text == "," \
                and n_ids and min(n_ids) == ids[-1] + 2:
            yield {"n": n, "ids": ids, "drop": set(ids) | {ids[-1] + 1}}


@veto("main-verb-tagged-noun")
def _root_not_verb(s: Site) -> bool:
    """A verb tagged as a noun: its tense, for the copy's "was", is unknown."""
    return s["n"].sent.root.pos_ not in {"VERB", "AUX"}


@veto("leading-participle-before-possessor")
def _possessor(s: Site) -> bool:
    """"Founded in 1950, its museum is …" says when "it" was founded, not the museum."""
    n = s["n"]
    return s["ids"][0] == n.sent.start and _child(n, "poss") is not None


def _dated_event(doc: Doc, ids: list[int]) -> bool:
    """A passive dated in the past ("Founded in 2007"): its own sentence takes "was" whatever the main tense."""
    return doc[ids[0]].tag_ == "VBN" and any(
        doc[i].ent_type_ == "DATE" or doc[i].lower_ in {"ago", "yesterday"}
        or (doc[i].like_num and len(doc[i].text) == 4 and doc[i].text.isdigit()) for i in ids)


@renderer("extract-participial")
def render_extract_participial(s: Site) -> list[Piece] | None:
    doc, n, ids, drop = s.doc, s["n"], s["ids"], s["drop"]
    be = be_form(main_past(n) or _dated_event(doc, ids), is_plural(n))
    copy = copied(doc, [i for i in subtree(n) if i not in drop and i <= n.i])
    second = lower_first(doc, copy) + [Piece(be)] + lower_first(doc, keep(doc, ids))
    first = sent_ids(n, drop)
    stop = final_punct(n)
    if stop is None or stop in drop:
        return None
    body = keep(doc, [i for i in first if i != stop]) + [Piece(doc[stop].text, stop)] + second + [Piece(".")]
    return tidy(doc, rest_of_doc(doc, body, n))


# --------------------------------------------------------------------------- deletions


def _ends_clause(doc: Doc, anchor: Token, comma: int) -> bool:
    """Whether the comma after a dropped modifier also closes ``anchor``'s clause, before words of the
    clause around it ("…, hours before the vote, the paper said." keeps a comma before "the paper said")."""
    head = next((a for a in [anchor, *anchor.ancestors] if a.pos_ in ("VERB", "AUX") and finite(a)), anchor.sent.root)
    after = comma + 1
    while after < len(doc) and doc[after].text in CLOSING_QUOTES:
        after += 1  # a quotation closing there: '… this issue, which …," the company said.'
    if after >= len(doc) or doc[after].is_punct or doc[after].sent.start != anchor.sent.start:
        return False
    return not (head.left_edge.i <= after <= head.right_edge.i)


def delete(doc: Doc, anchor: Token, ids: list[int], commas: tuple[int, int | None]) -> list[Piece]:
    drop = set(ids) | {commas[0]}
    if commas[1] is not None and not _ends_clause(doc, anchor, commas[1]):
        drop.add(commas[1])
    return tidy(doc, rest_of_doc(doc, keep(doc, sent_ids(anchor, drop)), anchor))


@veto("score-line-modifier")
def _score_modifier(s: Site) -> bool:
    """"the final 6–1, 6–3, against …": the parser hangs the second set on the first as an apposition."""
    return numeric(s["m"]) or numeric(s["m"].head)


@renderer("delete-noun-modifier")
def render_delete_noun_modifier(s: Site) -> list[Piece] | None:
    return delete(s.doc, s["n"], s["ids"], s["commas"])


def _modifier_ids(s: Site) -> list[int]:
    return s.cached("ids", lambda: strip_stop(s.doc, subtree(s["m"])))


@veto("modifier-before-verb")
def _before_verb(s: Site) -> bool:
    return s["m"].i < s["v"].i


@veto("discontinuous-modifier")
def _discontinuous_modifier(s: Site) -> bool:
    return not contiguous(_modifier_ids(s))


@veto("modifier-without-commas")
def _no_commas(s: Site) -> bool:
    return comma_offset(s.doc, _modifier_ids(s)) is None


@veto("verb-in-downward-context")
def _downward_verb(s: Site) -> bool:
    """Under a negation or a condition, dropping a modifier gives a more specific sentence."""
    return downward(s["v"])


@renderer("delete-verb-modifier")
def render_delete_verb_modifier(s: Site) -> list[Piece] | None:
    ids = _modifier_ids(s)
    commas = comma_offset(s.doc, ids)
    if commas is None:
        return None
    return delete(s.doc, s["v"], ids, commas)
