"""Checks on a text written into an argument slot, shared by the generators that fill slots.

The word lists are data (``generate/data/fillers.json``), each with the reason it exists; the checks
on a parse (:func:`phrase_shape`, :func:`stray_capital` …) take a spaCy ``Doc`` of the new sentence.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from paraspan.corpus.schema import Span

__all__ = ["dangling_fillers", "keeps_shape", "object_it_cannot_take", "one_participant_twice", "opener",
           "phrase_shape", "reflexive_fillers", "shape_differs", "stray_capital", "stutters", "unknown_words"]


@functools.lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    """``generate/data/fillers.json``: the word lists, each with its reason."""
    return dict(json.loads(files("paraspan.generate").joinpath("data", "fillers.json").read_text(encoding="utf-8")))


@functools.lru_cache(maxsize=1)
def dangling_fillers() -> frozenset[str]:
    """Words that cannot fill an argument slot alone."""
    return frozenset(_data()["dangling_fillers"]["words"])


@functools.lru_cache(maxsize=1)
def reflexive_fillers() -> frozenset[str]:
    """Reflexive pronouns, which cannot fill an argument slot alone."""
    return frozenset(_data()["reflexive_fillers"]["words"])


_LETTERS = re.compile(r"[A-Za-z]+")


def unknown_words(filler: str, source: str, pieces: Callable[[str], int] | None = None) -> list[str]:
    """The lowercase words of ``filler`` that are neither in LemmInflect's lexicon, nor English stop
    words, nor words of ``source``, nor (given ``pieces``, a word's token count in the base model's
    vocabulary) one token of the vocabulary. Names, numbers and short words are not checked."""
    from spacy.lang.en.stop_words import STOP_WORDS

    from paraspan.models.inflect import known

    shortest = int(_data()["known_words"]["min_length"])
    seen = {w.lower() for w in _LETTERS.findall(source)}
    out = []
    for token in filler.split():
        if any(ch.isdigit() for ch in token):
            continue
        for word in re.split(r"[-/]", token.strip(".,;:!?\"'()[]")):
            if (len(word) < shortest or not word.isalpha() or not word.islower() or word in STOP_WORDS
                    or word in seen or known(word) or (pieces is not None and pieces(word) == 1)):
                continue
            out.append(word)
    return out


@functools.lru_cache(maxsize=1)
def _openers() -> frozenset[str]:
    return frozenset(_data()["openers"]["words"])


def opener(text: str) -> str:
    """The preposition or subordinator ``text`` opens with (lowercase), or ``-``."""
    first = text.split()[:1]
    return first[0].lower() if first and first[0].lower() in _openers() else "-"


def shape_differs(original: str, filler: str) -> bool:
    """Whether ``filler`` opens with another preposition than ``original`` (or one where it has none,
    or none where it has one): the word that governs the slot selects its opener."""
    return opener(original) != opener(filler)


def stutters(text: str, start: int, end: int, filler: str) -> bool:
    """Whether ``filler``, written over ``text[start:end]``, repeats the word just before or just after
    it at its edge ("agents agents", "so-called so-called")."""
    words = filler.lower().split()
    if not words:
        return False
    before = text[:start].lower().split()[-1:]
    after = text[end:].lower().split()[:1]
    return (before == words[:1]) or (after == words[-1:])


#: finite verb tags: a verb with one of them (or with such an auxiliary, or a subject) heads a clause
_FINITE = frozenset({"VBD", "VBZ", "VBP", "MD"})
_PLURAL_WORDS = frozenset({"we", "they", "you", "these", "those", "both", "many", "several", "few"})
#: what makes a singular common noun a whole noun phrase ("the", "his", "Iran 's", "two", "all")
_DETERMINERS = frozenset({"det", "poss", "nummod", "predet", "quantmod"})


def phrase_shape(doc: Any, start: int, end: int) -> tuple[str, ...] | None:
    """The phrase type of the characters ``start:end`` of a parsed ``doc``, as a filler must keep it.

    One category per syntactic head of the span (the tokens whose head lies outside it): a noun
    phrase ``NP``, a prepositional phrase with its preposition (``PP:by``; ``P:by`` for a preposition
    without its object), a clause ``S`` (a finite
    verb, a verb with a finite auxiliary or with a subject), ``VPto``, ``VPing``, ``VPed``, ``VP``,
    ``AP``, ``AVP``. A noun phrase that is the subject of a verb showing its number (a present form,
    was/were) also carries it (``NP:pl``): the verb was inflected for the old subject, so a filler of
    another number breaks the agreement ("some people trust" → "the man trust"); one headed by a
    singular common noun with no determiner is ``…:bare`` (a mass noun, or a filler missing its
    article). None for a span of punctuation only.
    """
    tokens = [t for t in doc if t.idx >= start and t.idx + len(t.text) <= end and not t.is_punct
              and not t.is_space]
    if not tokens:
        return None
    inside = {t.i for t in tokens}
    return tuple(_category(t) for t in tokens if t.head.i not in inside or t.head.i == t.i)


def _category(head: Any) -> str:
    if head.pos_ == "ADP" or (head.tag_ == "IN" and head.dep_ in ("prep", "agent", "dative")):
        if not any(c.dep_ in ("pobj", "pcomp") for c in head.children):
            return f"P:{head.lower_}"  # a preposition without its object ("from" as Donor, judged fn-infill-v5)
        return f"PP:{head.lower_}"
    if head.pos_ in ("VERB", "AUX"):
        children = list(head.children)
        if (head.tag_ in _FINITE or any(c.dep_ in ("aux", "auxpass") and c.tag_ in _FINITE for c in children)
                or any(c.dep_ in ("nsubj", "nsubjpass", "expl", "csubj") for c in children)):
            return "S"
        if any(c.tag_ == "TO" and c.dep_ == "aux" for c in children):
            return "VPto"
        return {"VBG": "VPing", "VBN": "VPed"}.get(head.tag_, "VP")
    if head.pos_ == "ADJ":
        return "AP"
    if head.pos_ == "ADV":
        return "AVP"
    kind = "NP"
    if head.dep_ in ("nsubj", "nsubjpass") and _agrees(head.head):
        plural = (head.tag_ in ("NNS", "NNPS") or head.lower_ in _PLURAL_WORDS
                  or any(c.dep_ == "conj" for c in head.children))
        kind += ":pl" if plural else ":sg"
    if head.tag_ == "NN" and not any(c.dep_ in _DETERMINERS for c in head.children):
        kind += ":bare"  # "the laboratory" → "cognition", "Khan" → "person" (judged fn-infill-v4)
    return kind


def keeps_shape(wanted: tuple[str, ...] | None, got: tuple[str, ...] | None) -> bool:
    """Whether a filler of phrase type ``got`` may replace a span of type ``wanted``: the same
    categories, except that a bare noun (``…:bare``) may replace only a bare noun, while any noun
    phrase may replace one ("anthrax vaccine" → "food products")."""
    if wanted is None or got is None or len(wanted) != len(got):
        return wanted == got
    for w, g in zip(wanted, got, strict=True):
        if w.removesuffix(":bare") != g.removesuffix(":bare") or (g.endswith(":bare") and not w.endswith(":bare")):
            return False
    return True


def stray_capital(doc: Any, start: int, end: int) -> bool:
    """Whether a word of ``start:end`` is capitalised inside its sentence without being a name or
    "I". The tagger calls a capitalised common noun standing alone a name ("Activities", "Components"
    as fillers, judged fn-infill-v5): a word tagged as a name with no capitalised neighbour counts as
    one only when WordNet knows it capitalised."""
    for token in (t for t in doc if t.idx >= start and t.idx + len(t.text) <= end):
        if not token.text[:1].isupper() or token.is_sent_start or token.text == "I":
            continue
        before = token.nbor(-1) if token.i > 0 else None
        if before is not None and before.text in (".", "!", "?", ":", "``", '"', "“", "(", "["):
            continue
        if token.tag_ not in ("NNP", "NNPS") or _common_noun(token):
            return True
    return False


def _common_noun(token: Any) -> bool:
    """Whether ``token`` (tagged as a name) is a common noun with a capital: no capitalised word
    next to it (a name of several words: "United Nations"), not all capitals ("NATO"), and WordNet has
    its lemma only in lower case ("activity", not "American", "Democrat" or "Smith")."""
    if token.text.isupper() or not token.text.isalpha():
        return False
    doc = token.doc
    for j in (token.i - 1, token.i + 1):
        if 0 <= j < len(doc) and doc[j].text[:1].isupper() and not doc[j].is_sent_start:
            return False
    from paraspan.models.wordnet import load_wordnet

    wordnet = load_wordnet()
    lemma = wordnet.morphy(token.lower_, "n")
    if lemma is None:
        return False
    names = {name for synset in wordnet.synsets(lemma, "n") for name in (x.name() for x in synset.lemmas())
             if name.lower() == lemma}
    return bool(names) and all(name.islower() for name in names)


def object_it_cannot_take(doc: Any, anchor: Span, lu: str) -> bool:
    """Whether the new target (``anchor`` in the parsed ``doc``, LU ``lu``) has a direct object in the
    parse while WordNet lists no sense of it that takes one (:func:`~paraspan.generate.sister_lu.takes_object`)."""
    verbs = [t for t in doc if anchor.start <= t.idx < anchor.end and t.pos_ in ("VERB", "AUX")]
    if not any(c.dep_ == "dobj" for t in verbs for c in t.children):
        return False
    from paraspan.generate.sister_lu import takes_object

    return takes_object(lu.rsplit(".", 1)[0]) is False


def _agrees(verb: Any) -> bool:
    """Whether ``verb`` (or its auxiliary) shows its subject's number: a present form or was/were."""
    return any(t.tag_ in ("VBZ", "VBP") or t.lower_ in ("was", "were")
               for t in (verb, *(c for c in verb.children if c.dep_ in ("aux", "auxpass"))))


def one_participant_twice(phrases: Sequence[str], others: Sequence[str]) -> bool:
    """Whether a filler names what another FE of the structure names, or two fillers name the same:
    one holds the other's words (but for a leading article), and they have a content word. One
    participant in two roles: "the Soviet Union" filled in as the Theme of the Soviet Union's
    accumulating (judged fn-infill-v5); "Russia's military forces" built by Russia, "the Iran-Iraq
    war" that began during the Iran-Iraq war (fn-infill-v6)."""
    def words(phrase: str) -> tuple[str, ...]:
        found = re.findall(r"[^\W_]+", phrase.lower())  # "Iran- Iraq" and "Iran - Iraq" alike
        return tuple(found[1:] if found[:1] in (["the"], ["a"], ["an"]) else found)

    def holds(big: tuple[str, ...], small: tuple[str, ...]) -> bool:
        if not small or not any(len(w) > 3 or w[:1].isdigit() for w in small):
            return False  # "it", "his", "one": no participant of its own to repeat
        return any(big[i:i + len(small)] == small for i in range(len(big) - len(small) + 1))

    filled = [words(p) for p in phrases]
    pairs = [(a, b) for i, a in enumerate(filled) for b in filled[i + 1:]]
    pairs += [(a, words(o)) for a in filled for o in others]
    return any(holds(a, b) or holds(b, a) for a, b in pairs)
