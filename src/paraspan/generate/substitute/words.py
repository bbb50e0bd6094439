"""Whether a substitute can stand where the old word stood (form, number, neighbours), and which words are replaced."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from paraspan.corpus.schema import Span
from paraspan.errors import ParaspanError

_WORDS = re.compile(r"[^\W_]+")
#: a closing quotation mark (and its comma) right before the anchor
_QUOTE_BEFORE = re.compile(r"(''|\"|”|’|(?<=[\s,])')\s*,?\s*$")  # a lone ' closes a single-quoted one (train-m)
#: verbs that are mostly auxiliaries or copulas: their "substitutes" were other forms of themselves or
#: broke agreement ("it is" → "it are", "I am" → "I be")
LIGHT_VERBS = frozenset({"be", "have", "do", "'s", "'re", "'m", "'ve", "'d", "'ll"})
#: verbs of believing: their WordNet synonyms say how sure someone is in other words ("believe" →
#: "trust that", judged wrong; "fears" → "dreads", "suggest" → "assert")
BELIEF_VERBS = frozenset({"believe", "think", "suppose", "fear", "doubt", "suspect", "feel", "hope", "assume",
                          "guess", "reckon", "suggest"})


def _word_lemmas(text: str) -> set[str]:
    """Every verb, noun and adjective lemma of the words of ``text`` (and the words themselves)."""
    from paraspan.models.inflect import lemmas

    out: set[str] = set()
    for word in text.lower().split():
        out.add(word)
        for upos in ("VERB", "NOUN", "ADJ"):
            out.update(lemmas(word, upos))
    return out


def _singular(word: str) -> bool | None:
    """Whether a noun is singular (None: LemmInflect does not know it as a noun)."""
    from paraspan.models.inflect import lemmas

    got = lemmas(word, "NOUN")
    if not got:
        return None
    return word.lower() in (g.lower() for g in got)


#: words a substitute may repeat from just before it ("has the … has"); narrower than the content
#: check's function words (spaCy's stop list also holds "made", "give", "take": verbs to not repeat)
_FUNCTION_WORDS = {"a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "by", "with", "from",
                   "as", "that", "is", "are", "was", "were", "be", "been", "has", "have", "had", "it", "its"}


def fits(form: str, old: str, before: Sequence[str], after: Sequence[str], pos: str | None,
         tag: str | None = None) -> bool:
    """Whether ``form`` can stand where ``old`` stood: it does not repeat the word next to it
    ("nuclear nuclear weapons" for "nuclear bombs") or a content word of the three before it, a
    noun keeps its number ("their selected representatives will" for "legislator": a plural where
    the sentence has one) and a verb its form ("had" or "have" for "has"; ``tag``, the parse's Penn tag
    of the old verb, decides where its past and base forms are one word: "picked up the shoes and
    put them" is past, and "place" for it is not)."""
    words = form.lower().split()
    if (before and words[0] == before[-1].lower()) or (after and words[-1] == after[0].lower()):
        return False
    if any(w.lower() in words for w in before[-3:] if w[:1].isalpha() and w.lower() not in _FUNCTION_WORDS):
        return False  # "cutting and stabbing" → "cutting and cutting"
    if pos == "v" and _repeats_nearby(words[-1], after[:4]):
        return False
    if pos == "n":
        was, now = _singular(old.split()[-1]), _singular(form.split()[-1])
        if was is not None and now is not None and was != now:
            return False
    if pos == "v" and any(w not in _VERB_PARTICLES for w in words[1:]):
        return False  # a verb of two: "posted" → "sent published" (exemplars-ab); a phrasal verb's particle is fine
    if pos == "v":  # "has" → "had" or "have" changes the tense or breaks agreement
        was_tags, now_tags = _verb_tags(old.split()[0]), _verb_tags(form.split()[0])
        if was_tags and not now_tags:  # a noun for a verb: "likely to result in" → "likely to outcome in"
            return False
        if was_tags and now_tags and not was_tags & now_tags:
            return False
        # after "was", "has", "been" … the word is a participle: "was expanded" → "was grew" passed
        # the merged class above; the new word must have a participle of its own
        if _after_auxiliary(before) and now_tags and _participle(old.split()[0]) and not _participle(form.split()[0]):
            return False
        # a verb whose past and base forms are one ("thrust", "put", "cut") right after "he", "she", "it" is
        # past ("he thrust the door open" → "he push" passed the merged classes, exemplars-d); after a
        # relative pronoun it is taken as past too, which also declines a plural present ("who put")
        if ({"VBD/VBN", "VB/VBP"} <= was_tags and "VBD/VBN" not in now_tags and before
                and before[-1].lower() in _PAST_AFTER):
            return False
        if tag == "VBN" and not _participle(form.split()[0]):
            return False  # "…, evinced by the photographs" → "showed by" (a past, no participle; exemplars-l)
        if {"VBD/VBN", "VB/VBP"} <= was_tags and tag in _TAG_CLASS and _TAG_CLASS[tag] not in now_tags:
            return False  # "… and put them" (VBD) → "and place them"
    return True


#: the words that may follow a verb in a substitute of one ("put down", "set out", "come across"): particles and
#: the prepositions of prepositional verbs
_VERB_PARTICLES = frozenset({"up", "down", "off", "out", "in", "on", "over", "away", "back", "about", "around", "round",
                             "through", "along", "across", "forward", "forwards", "aside", "apart", "together", "by",
                             "into", "onto", "upon", "to", "with", "for", "at", "of", "from", "after"})
#: the class of :func:`_verb_tags` a Penn tag falls in
_TAG_CLASS = {"VBD": "VBD/VBN", "VBN": "VBD/VBN", "VB": "VB/VBP", "VBP": "VB/VBP"}
#: subject pronouns after which a verb with one past and base form ("he put") is taken as past
_PAST_AFTER = {"he", "she", "it", "who", "which", "that"}


def check_anchor(anchor: str) -> None:
    """``generator.anchor`` is ``synonym`` or ``frame`` (E880 otherwise)."""
    if anchor not in ("synonym", "frame"):
        raise ParaspanError.from_code("E880", option="generator.anchor", rule="synonym or frame", value=anchor,
                                      fix="e.g. --set generator.anchor=synonym")


def wordnet_synonym(form: str, old: str, check: Any = None) -> bool:
    """Whether ``form`` shares a WordNet synset with ``old`` (in some sense of each; content words,
    through ``check``, a :class:`~paraspan.filter.content.ContentFilter`, whose WordNet lemmas and
    synonyms are cached). The verbs of one frame are often not synonyms: they change the manner or
    the strength ("bubbled" → "gushed", "murdered" → "killed", "suggest" → "assert"), where a WordNet
    synonym mostly keeps the meaning ("employed" → "used")."""
    from paraspan.filter.content import ContentFilter

    return (check if check is not None else ContentFilter(anchor="synonym")).synonym_of(form, old)


def _participle(word: str) -> bool:
    """Whether ``word`` is the past participle of one of its verb lemmas (LemmInflect's table of
    all forms leaves out a regular verb's participle: it is asked for by tag)."""
    from paraspan.models.inflect import inflect, lemmas

    low = word.lower()
    return any((inflect(lemma, "VBN") or "").lower() == low for lemma in lemmas(low, "VERB"))


#: auxiliaries a past participle follows ("was built", "has built", "been built")
_PARTICIPLE_AUX = {"was", "were", "is", "are", "am", "be", "been", "being", "has", "have", "had", "'s", "'re",
                   "'ve", "'d", "get", "got", "gets", "gotten"}


def _after_auxiliary(before: Sequence[str]) -> bool:
    """Whether the word after ``before`` follows an auxiliary, with at most one adverb between
    ("was much admired", "has recently built")."""
    words = [w.lower() for w in before[-2:]]
    if words and words[-1] in _PARTICIPLE_AUX:
        return True
    return len(words) == 2 and words[0] in _PARTICIPLE_AUX and (
        words[1].endswith("ly") or words[1] in {"not", "never", "much", "also", "already", "just", "still", "well",
                                                "often", "since", "long", "n't", "further", "first"})


def _repeats_nearby(word: str, after: Sequence[str]) -> bool:
    """Whether the new verb shares its lemma with a noun just after it: "clashed at the epic battles"
    → "battled at the epic battles"."""
    from paraspan.models.inflect import lemmas

    mine = {x.lower() for x in lemmas(word.lower(), "VERB")} | {word.lower()}
    return any(mine & {x.lower() for x in lemmas(w.lower(), "NOUN")} for w in after if w[:1].isalpha())


def _verb_tags(word: str) -> set[str]:
    """The Penn tags ``word`` can have as a form of one of its verb lemmas (LemmInflect)."""
    from paraspan.models.inflect import inflections, lemmas

    low = word.lower()
    tags = {tag for lemma in lemmas(low, "VERB") for tag, forms in inflections(lemma, "VERB").items()
            if low in (f.lower() for f in forms)}
    # past tense and participle are one class: a regular verb's two are the same word, and the
    # sentence around it, not the word, says which it is ("has given" → "has donated")
    return {"VBD/VBN" if t in ("VBD", "VBN") else "VB/VBP" if t in ("VB", "VBP") else t for t in tags}


def _name_part(text: str, anchor: Span) -> bool:
    """A capitalised anchor after the sentence's first word and not after a heading's colon or a
    sentence end, in a sentence that is not in capitals: part of a name ("the Manhattan [Project]")."""
    word = text[anchor.start:anchor.end]
    before = text[:anchor.start].rstrip()
    if not word[:1].isupper() or not before or before[-1] in ":.?!\"'`(":
        return False
    letters = [c for c in text if c.isalpha()]
    return sum(c.isupper() for c in letters) < 0.5 * len(letters)


#: words the ``context`` target replaces: a verb heading a clause (not an adjectival participle,
#: "dried herbs", nor a noun's modifier)
_CLAUSE_DEPS = frozenset({"ROOT", "conj", "xcomp", "ccomp", "advcl", "relcl", "acl", "pcomp", "csubj", "parataxis"})
#: verbs the ``context`` target leaves alone: besides the anchor's exclusions, the light verbs of support
#: constructions and idioms ("make a decision", "take place", "give way"), whose synonyms read wrong
_CONTEXT_SKIP = LIGHT_VERBS | BELIEF_VERBS | frozenset({
    "say", "tell", "get", "make", "take", "go", "come", "give", "put", "let", "seem", "become", "keep", "set",
    "see", "know", "want", "need", "use", "mean"})  # "I mean, …"
TARGETS = ("anchor", "context")


def parse_targets(targets: str) -> frozenset[str]:
    """``generator.targets``: ``anchor``, ``context`` or both, comma-separated (E880 otherwise)."""
    got = frozenset(t.strip().lower() for t in targets.split(",") if t.strip())
    if not got or not got <= set(TARGETS):
        raise ParaspanError.from_code("E880", option="generator.targets", rule="anchor, context or anchor,context",
                                      value=targets, fix="e.g. --set generator.targets=anchor,context")
    return got

