"""Content kept: every content word of the source is still in the output, and nothing is added.

The NLI meaning check (MiniLM, both ways) passed held-out paraphrases that changed one content
word for a near neighbour: "uncertain solution" → "ambiguous strategy", "blasting tube" →
"explosive chamber", a year's "early" → "late", one chemical element for another. A sentence
that means what its source means and carries the same span labels says the same things: this
check is lexical, cheap and independent of the models that wrote the output.

- Every **content word** of the source outside the anchor of the structure the output was made
  from (the generator was asked to replace it) must occur in the output as the same lemma (any
  inflection: "sold" = "sells", "books" = "book"; LemmInflect's lemmas for every part of
  speech). Content words are the words that are not function words; negations, quantifiers,
  modals, number words, words of direction or time order ("before", "under", "until") and the
  like count as content, although stop lists call them function words: turning them round
  changes the meaning.
- Personal pronouns count by person, number and gender ("I" = "me" = "my"), so a passive may
  change a pronoun's case but not whom it is about.
- A word the generator was told not to use (a paraphrase's randomized bans,
  ``provenance["generated"]["random_bans"]``) or replaced on purpose (a context substitute's verb,
  ``provenance["generated"]["replaced"]``) may be replaced by a WordNet synonym.
- The output may **add** at most ``max_added`` content words that the source lacks (outside the
  output's anchor), and no pronoun of a new person, except the expletive "it" and "there" of a
  cleft or an existential.
- The new **anchor** must mean what the old one did: the same lemma, a WordNet synonym (the two
  share a synset in some sense) of one of the old anchor's content words, or, with
  ``anchor="frame"`` (the default), for a frame structure an LU that FrameNet lists for the same
  frame ("said" → "announced" in Statement: the lexicon of the shipped ``framenet15`` verifier).
  Only a verb target may become any LU of its frame: the nouns of a frame are often sister kinds
  (months and years in Calendric_unit, bombs and missiles in Weapon), so a noun needs a synonym or
  a noun one step above or below it in WordNet (a claim for an allegation, a gadget for a device;
  two steps also joined "steps" and "moves", "leader" and "president"), and the adjectives,
  adverbs and prepositions of a frame are often points of one scale (lower/higher, second/third,
  in/on), so they need a synonym. A WordNet antonym of the old anchor never means what it did,
  although it shares a frame ("admitted" → "denied" in Statement);
  ``anchor="synonym"`` asks for a synonym, ``anchor="any"`` leaves it to the span-label
  verifier.
- ``synonyms=True`` also lets the other content words be replaced by WordNet synonyms ("tired" →
  "weary"); off by default, because a shared synset of some sense also joins "chairman" and
  "president".
- British and American spellings count as one ("neighbour" = "neighbor").
- A heading before a colon that opens the source ("Q : Is …", "What's next: …") is not content:
  it may go without counting as lost (or, for a forward paraphrase, as dropped).

For a directional paraphrase (``relation="forward"``: the output is more general, entailed by its
source; ``"reverse"``: more specific) content words may be dropped (forward) or added (reverse),
but only outside the labelled spans: the anchor and every argument keep their words. A forward
output must drop at least one content word and a reverse one add at least one (otherwise it is
a restatement, not a more general or more specific sentence), and neither may drop (forward) or
add (reverse) a word that turns entailment round (:data:`NOT_MONOTONE`): a negation or modal,
a hedge ("in part", "nearly", "some"), a disjunction ("or", "if") or a verb of saying, believing
or intending, whose clause is not asserted ("police said the ship sank" does not entail that it
sank; "planned to build" is not "built"). Held-out forward paraphrases the NLI judges passed did
exactly that: "neither admitted nor denied" → "either admitted or denied", a quotation without
its "he said".

Words dropped or added can still rearrange the rest ("the verdict followed the hearing" → "the
hearing that followed the verdict"): :mod:`paraspan.filter.contraction` checks that, and
``verified`` and ``paraphrase --relation`` run it after this check.

Outputs with new content (infilling, ``provenance["meaning"] == "new"``) are not compared.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any, Literal

from paraspan.corpus.schema import Sentence
from paraspan.filter.base import BaseFilter, FilterDecision, source_structure
from paraspan.provenance import Generated
from paraspan.text.constraints import NUMBER_WORDS, WORD_RE

#: Words a stop list calls function words whose loss or change alters what a sentence says.
MEANINGFUL = frozenset("""
no not never nothing none nobody noone nowhere neither nor cannot without except unless
all every each any some few many more most less least several enough only even also too very
almost quite rather just still already yet again always often sometimes ever once
can could may might must should would will shall
before after above below under over up down into out off onto against toward towards behind beyond
since until till during within throughout across along among between beside besides upon
former latter first last next third other others another same whole full empty part side top
bottom front back amount serious call give go keep make made move name put say see show take used using
""".split()) | NUMBER_WORDS

#: Personal pronouns by person, number and gender: a passive changes the case ("I" → "me"),
#: not whom the pronoun is about.
PRONOUNS: dict[str, str] = {
    **dict.fromkeys(("i", "me", "my", "mine", "myself"), "1sg"),
    **dict.fromkeys(("we", "us", "our", "ours", "ourselves"), "1pl"),
    **dict.fromkeys(("you", "your", "yours", "yourself", "yourselves"), "2"),
    **dict.fromkeys(("he", "him", "his", "himself"), "3sg-m"),
    **dict.fromkeys(("she", "her", "hers", "herself"), "3sg-f"),
    **dict.fromkeys(("it", "its", "itself"), "3sg-n"),
    **dict.fromkeys(("they", "them", "their", "theirs", "themselves"), "3pl"),
}
#: a cleft ("It was Anna who …") adds these without adding meaning; a referential "it" ("says it
#: has …") is a new argument
EXPLETIVE = frozenset({"3sg-n"})
#: a label or heading before a colon that opens a sentence ("QN : Is …", "What's next: …"): it
#: says nothing the sentence asserts, so losing it is neither a loss nor a generalisation
_LABEL = re.compile(r"^\s*((?:[\w'’.]+\s*){1,3}):\s+\S")
_CLEFT = re.compile(r"\b[Ii]t\s+(is|was|were|has been|had been|will be|would be|seems|seemed)\b")
#: what the output may be to its source: the same, more general (forward entailment: words
#: dropped) or more specific (reverse entailment: words added), the labelled spans unchanged
RELATIONS = ("equivalence", "forward", "reverse")
#: Additive and aspectual particles: "also", "too", "again" add a presupposition, not an asserted detail,
#: so a directional output must drop (add) some other content word to be more general (specific).
PARTICLES = frozenset("also too even again still".split())
#: Verbs whose clause is not asserted: "police said the ship sank" does not entail that it sank.
NOT_ASSERTING = frozenset("""
say tell report claim allege believe think expect plan hope want try attempt seek intend
suggest deny doubt fear predict estimate accord propose consider
""".split())
#: Lemmas whose loss (forward) or arrival (reverse) can turn an entailment round: negation,
#: downward quantifiers, modality, hedges and approximations, disjunction and conditions,
#: privative adjectives (a former president is not a president), frequency hedges ("normally X"
#: is not "X"), and the verbs whose clause is not asserted (saying, believing, intending, trying).
NOT_MONOTONE = frozenset("""
no not never neither nor none nothing nobody nowhere without except unless cannot
few little hardly barely rarely seldom
former fake false supposed potential possible imaginary counterfeit mock pseudo ex would-be so-called
can could may might must should would will shall
or either whether if
part partly partially nearly almost about around approximately roughly some
reportedly allegedly apparently possibly probably likely unlikely perhaps maybe
normally usually typically generally often sometimes mostly largely mainly
""".split()) | NOT_ASSERTING


@functools.lru_cache(maxsize=1)
def function_words() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    # "'s", "n't" and the like are not words to WORD_RE; the stop list's own spellings are kept
    return frozenset(w for w in STOP_WORDS if w not in MEANINGFUL and w not in PRONOUNS)


#: British spellings → American ("neighbour", "organise", "analyse", "centre"): one word to this check
_SPELLING = [(re.compile(p), r) for p, r in (
    (r"(?<=\w{3})our(?=s?$)", "or"), (r"(?<=\w{3})is(e|es|ed|ing|ation)$", r"iz\1"),
    (r"(?<=\w{3})ys(e|es|ed|ing)$", r"yz\1"), (r"(?<=\w{3})tre(s?)$", r"ter\1"))]


def _american(word: str) -> str:
    for pattern, repl in _SPELLING:
        word = pattern.sub(repl, word)
    return word


class _Lemmas:
    """Lemmas of a word under every part of speech (LemmInflect), cached per word, with the word
    itself and its American spelling."""

    def __init__(self) -> None:
        from paraspan.models.inflect import load_lemminflect

        self._lemminflect = load_lemminflect()
        self._cache: dict[str, frozenset[str]] = {}

    def __call__(self, word: str) -> frozenset[str]:
        key = word.lower()
        got = self._cache.get(key)
        if got is None:
            found = {key}
            for spelling in {key, _american(key)}:
                found.add(spelling)
                for lemmas in self._lemminflect.getAllLemmas(spelling).values():
                    found.update(lemma.lower() for lemma in lemmas)
            got = self._cache[key] = frozenset(found)
        return got


def _anchor_span(output: Sentence) -> tuple[int, int] | None:
    spans = ((output.provenance or {}).get("aligner") or {}).get("spans") or []
    if spans and spans[0].get("role") == "anchor" and spans[0].get("placed"):
        start, end = spans[0]["placed"]
        return int(start), int(end)
    return None


#: contractions spelled out, so that "don't" is "do not", not the words "don" and "t"
_CONTRACTIONS = [(re.compile(pattern, re.IGNORECASE), repl) for pattern, repl in (
    (r"\bwon['’]t\b", "will not"), (r"\bcan['’]t\b", "can not"), (r"\bshan['’]t\b", "shall not"),
    (r"n['’]t\b", " not"), (r"['’](s|re|ve|ll|d|m)\b", ""), (r"(?<=s)['’](?=\s|$)", ""))]


#: agent-noun endings: a derivation that adds or removes one names a person, not the act
_AGENT = ("er", "or", "ee", "ist", "ian")


def _agent_of(word: str, other: str) -> bool:
    """Whether ``word`` is an agent noun made from ``other`` ("attacker" from "attack")."""
    return word.endswith(_AGENT) and len(word) > len(other)


#: a detokenizer's "U. S." (one word, "U.S.")
SPACED_INITIALS = re.compile(r"\b([A-Z])\.\s+(?=[A-Z]\.)")


def split_words(text: str, hole: tuple[int, int] | None = None) -> list[str]:
    """``text``'s words outside ``hole``: contractions spelled out, possessive endings dropped,
    dots dropped ("U.S." is one word)."""
    if hole is not None:
        return split_words(text[:hole[0]]) + split_words(text[hole[1]:])
    for pattern, repl in _CONTRACTIONS:
        text = pattern.sub(repl, text)
    text = SPACED_INITIALS.sub(r"\1.", text)
    return [m.group() for m in WORD_RE.finditer(text.replace(".", ""))]


def content_changes(source: Sentence, output: Sentence, lemmas: Callable[[str], frozenset[str]],
                    anchor_kept: Callable[[str, str], bool] | None = None,
                    synonyms: Callable[[str], frozenset[str]] | None = None,
                    anchor_synonyms: Callable[[str], frozenset[str]] | None = None,
                    derived: Callable[[str], frozenset[str]] | None = None) -> dict[str, list[str]]:
    """What the output lost, added and did to the anchor: ``{"lost": [...], "added": [...],
    "anchor": [...]}`` (source words lost, output words added, the new anchor when
    ``anchor_kept(old, new)`` says it does not mean the old one; None: anchors not compared).
    ``synonyms``: a word's synonyms, which may stand for it (None: only its own lemmas);
    ``anchor_synonyms``: the synonyms that may stand for a word the generator was told not to use
    (``provenance["generated"]["random_bans"]``); ``derived``: a word's derivational relatives,
    which may stand for it ("development" for "developing"; None: none)."""
    structure = source_structure(source, output)
    anchor = structure.anchor if structure is not None else None
    hole = (anchor.start, anchor.end) if anchor is not None else None
    new_hole = _anchor_span(output)
    function = function_words()

    def content(words: Iterable[str]) -> list[str]:
        return [w for w in words if w.lower() not in function and w.lower() not in PRONOUNS]

    def pronouns(words: Iterable[str]) -> dict[str, str]:
        """person → the first pronoun of it (which is what a reason names)"""
        out: dict[str, str] = {}
        for w in words:
            if w.lower() in PRONOUNS:
                out.setdefault(PRONOUNS[w.lower()], w)
        return out

    def stands_for(w: str) -> frozenset[str]:
        return lemmas(w) | synonyms(w) if synonyms is not None else lemmas(w)

    # words the generator was told not to use (a paraphrase's randomized bans) may be replaced by
    # a synonym, as the anchor may
    # and so may the word a context substitute replaced (:class:`paraspan.provenance.Generated`)
    generated = Generated.of(output.provenance)
    banned = {b.lower() for b in (*generated.random_bans, *generated.replaced)}
    if anchor_synonyms is not None:
        def replaceable(w: str) -> frozenset[str]:
            return stands_for(w) | anchor_synonyms(w) if w.lower() in banned else stands_for(w)
    else:
        replaceable = stands_for
    out_words = split_words(output.text)
    out_lemmas = set().union(*(lemmas(w) for w in out_words)) if out_words else set()
    src_words = split_words(source.text)
    src_lemmas = set().union(*(replaceable(w) for w in src_words)) if src_words else set()
    def related(w: str) -> frozenset[str]:  # asked only of words that fail the cheaper match
        return derived(w) if derived is not None else frozenset()

    label = _LABEL.match(source.text)
    heading = {w.lower() for w in split_words(label.group(1))} if label else set()
    lost = [w for w in dict.fromkeys(content(split_words(source.text, hole)))
            if not replaceable(w) & out_lemmas and not related(w) & out_lemmas and w.lower() not in heading]
    # the words of the labelled spans (an entailment may drop or add words only outside them)
    if anchor is None:  # as before: a structure without an anchor restricts no span
        structure = None
    in_args = {w.lower() for a in (structure.args if structure is not None else ())
               for w in split_words(source.text[a.start:a.end])}
    placed = [sp.get("placed") for sp in ((output.provenance or {}).get("aligner") or {}).get("spans") or ()
              if sp.get("role") == "arg" and sp.get("placed")]
    out_in_args = {w.lower() for start, end in placed for w in split_words(output.text[start:end])}
    src_pronouns, out_pronouns = pronouns(split_words(source.text, hole)), pronouns(out_words)
    lost += [w for person, w in src_pronouns.items() if person not in out_pronouns]
    rest = split_words(output.text, new_hole)
    added = [w for w in dict.fromkeys(content(rest)) if not lemmas(w) & src_lemmas and not related(w) & src_lemmas]
    had = pronouns(src_words)
    expletive = EXPLETIVE if _CLEFT.search(output.text) else frozenset()
    added += [w for person, w in pronouns(rest).items() if person not in had and person not in expletive]
    changed: list[str] = []
    if anchor_kept is not None and anchor is not None and new_hole is not None:
        new = output.text[new_hole[0]:new_hole[1]]
        if not anchor_kept(source.text[anchor.start:anchor.end], new):
            changed = [new]
    return {"lost": lost, "added": added, "anchor": changed,
            "lost_in_spans": [w for w in lost if w.lower() in in_args],
            "added_in_spans": [w for w in added if w.lower() in out_in_args]}


class ContentFilter(BaseFilter):
    """Keep outputs that keep their source's content words (see the module docstring)."""

    def __init__(self, max_lost: int = 0, max_added: int = 0,
                 anchor: Literal["frame", "synonym", "any"] = "frame", synonyms: bool = False,
                 name: str = "content", wordnet: Any = None, lexicon: dict[str, list[str]] | None = None,
                 relation: Literal["equivalence", "forward", "reverse"] = "equivalence") -> None:
        if anchor not in ("frame", "synonym", "any"):
            raise ValueError(f"anchor must be 'frame', 'synonym' or 'any', not {anchor!r}")
        if relation not in RELATIONS:
            raise ValueError(f"relation must be one of {', '.join(RELATIONS)}, not {relation!r}")
        self.relation = relation
        self.max_lost, self.max_added, self.anchor, self.use_synonyms = max_lost, max_added, anchor, synonyms
        self.name = name
        self._wordnet = wordnet
        self._lexicon = lexicon
        self._lemmas: _Lemmas | None = None
        self._synonyms: dict[str, frozenset[str]] = {}

    def lemmas(self, word: str) -> frozenset[str]:
        if self._lemmas is None:
            self._lemmas = _Lemmas()
        return self._lemmas(word)

    def wordnet(self) -> Any:
        """WordNet (``paraspan.models.load_wordnet``), loaded on first use."""
        if self._wordnet is None:
            from paraspan.models import load_wordnet

            self._wordnet = load_wordnet()
        return self._wordnet

    def _cached(self, key: str, compute: Callable[[Any], Iterable[str]]) -> frozenset[str]:
        got = self._synonyms.get(key)
        if got is None:
            got = self._synonyms[key] = frozenset(compute(self.wordnet()))
        return got

    def synonyms(self, word: str) -> frozenset[str]:
        """Every lemma that shares a WordNet synset with one of ``word``'s lemmas."""
        def compute(wordnet: Any) -> Iterable[str]:
            for lemma in self.lemmas(word):
                for synset in wordnet.synsets(lemma.replace(" ", "_")):
                    yield from (n.lower().replace("_", " ") for n in synset.lemma_names())

        return self._cached(word.lower(), compute)

    def _own_lemmas(self, wordnet: Any, word: str) -> Iterable[tuple[str, Any]]:
        """(lemma, WordNet Lemma) for each sense of each of ``word``'s lemmas: the word itself in
        that sense, whose lexical relations (derivations, antonyms) are the word's."""
        for lemma in self.lemmas(word):
            for synset in wordnet.synsets(lemma.replace(" ", "_")):
                for name in synset.lemmas():
                    if name.name().lower() == lemma:
                        yield lemma, name

    def derivations(self, word: str) -> frozenset[str]:
        """The WordNet derivational relatives of ``word``'s lemmas ("develop" and "development",
        "attribute" and "attribution"): the same content in another part of speech; not an agent
        noun for its act ("attacker", "employee" for "attack", "employ"), which changes who is meant."""
        def compute(wordnet: Any) -> Iterable[str]:
            for lemma, name in self._own_lemmas(wordnet, word):
                for d in name.derivationally_related_forms():
                    other = d.name().lower()
                    if not _agent_of(other, lemma) and not _agent_of(lemma, other):
                        yield other.replace("_", " ")

        return self._cached(f"{word.lower()}\x1ed", compute)

    def related_nouns(self, word: str, depth: int = 1) -> frozenset[str]:
        """The nouns WordNet puts at most ``depth`` steps above or below one of ``word``'s noun
        senses (a claim for an allegation, a gadget for a device): a more general or more specific
        word for the same thing, not a sister kind (a week for a month)."""
        def compute(wordnet: Any) -> Iterable[str]:
            for lemma in self.lemmas(word):
                for synset in wordnet.synsets(lemma.replace(" ", "_"), pos="n"):
                    for step in (lambda s: s.hypernyms() + s.instance_hypernyms(), lambda s: s.hyponyms()):
                        frontier = [synset]
                        for _ in range(depth):
                            frontier = [r for s in frontier for r in step(s)]
                            for r in frontier:
                                yield from (n.lower().replace("_", " ") for n in r.lemma_names())

        return self._cached(f"{word.lower()}\x1f{depth}", compute)

    def antonyms(self, word: str) -> frozenset[str]:
        """The WordNet antonyms of ``word``'s lemmas, in any sense ("deny" for "admit")."""
        def compute(wordnet: Any) -> Iterable[str]:
            for _, name in self._own_lemmas(wordnet, word):
                yield from (a.name().lower().replace("_", " ") for a in name.antonyms())

        return self._cached(f"{word.lower()}\x1ea", compute)

    def lexicon(self) -> dict[str, list[str]]:
        """LU name ("announce.v") → the frames FrameNet lists it in (the shipped FrameNet verifier's)."""
        if self._lexicon is None:
            from paraspan.filter.verifier import Verifier

            self._lexicon = Verifier.load("framenet15").lexicon
        return self._lexicon

    def synonym_of(self, new: str, old: str, *, nouns: bool = False) -> bool:
        """Whether a content word of ``new`` is a lemma of, or shares a WordNet synset with, a content
        word of ``old`` (with ``nouns``, also a noun one WordNet step above or below it)."""
        function = function_words()
        old_words = [w for w in split_words(old) if w.lower() not in function] or split_words(old)
        new_words = [w for w in split_words(new) if w.lower() not in function] or split_words(new)
        allowed = set().union(*(self.lemmas(w) | self.synonyms(w) for w in old_words)) if old_words else set()
        if nouns:
            allowed |= set().union(*(self.related_nouns(w) for w in old_words)) if old_words else set()
        return any(self.lemmas(w) & allowed for w in new_words)

    def _anchor_kept(self, output: Sentence, source: Sentence) -> Callable[[str, str], bool]:
        function = function_words()
        structure = source_structure(source, output)

        from paraspan.text.lexical_units import lu_pos

        pos = lu_pos(structure.anchor.label) if structure is not None and structure.anchor is not None else None
        noun = pos == "n"

        def kept(old: str, new: str) -> bool:
            if not ([w for w in split_words(new) if w.lower() not in function] or split_words(new)):
                return True
            if self.is_antonym(old, new):
                return False
            if self.synonym_of(new, old, nouns=noun):
                return True
            # only a verb may be any LU of its frame: the nouns of a frame are often kinds of one thing
            # (months and years in Calendric_unit, bombs and missiles in Weapon), its adjectives, adverbs
            # and prepositions points of one scale or relation (lower/higher, second/third, in/on,
            # where/here, different/similar)
            if self.anchor == "frame" and structure is not None and structure.kind == "frame" and pos == "v":
                lu = ((output.provenance or {}).get("anchor_lu") or {}).get("label")
                return bool(lu) and structure.label in self.lexicon().get(lu, ())
            return False

        return kept

    def _direction(self, longer: str, shorter: str, changed: list[str], in_spans: list[str],
                   verb: str) -> list[str]:
        """What makes a directional output fail its direction: no content word ``verb`` (dropped for
        forward, added for reverse) outside the labelled spans, or a :data:`NOT_MONOTONE` word
        among those in ``longer`` that ``shorter`` lacks."""
        problems = []
        counted = [w for w in changed if w not in in_spans]
        if not [w for w in counted if w.lower() not in PARTICLES]:
            only = f" (only {', '.join(repr(w) for w in counted)}: a presupposition, no detail)" if counted else ""
            problems.append(f"no content word {verb}: not " + ("more general" if verb == "dropped" else
                                                               "more specific") + only)

        def lemmas_of(text: str) -> set[str]:
            # a capital inside the sentence is a name ("May", "Will"), not a modal
            words = [w for i, w in enumerate(split_words(text)) if i == 0 or not w[:1].isupper()]
            return set().union(*(self.lemmas(w) for w in words)) if words else set()

        flipped = sorted((lemmas_of(longer) - {w.lower() for w in split_words(shorter)}
                          - set().union(*(self.lemmas(w) for w in split_words(shorter)))) & NOT_MONOTONE)
        if flipped:
            problems.append(f"{verb} {', '.join(repr(w) for w in flipped[:4])}: turns the entailment round")
        return problems

    def is_antonym(self, old: str, new: str) -> bool:
        """Whether a word of ``new`` is a WordNet antonym of a word of ``old``."""
        opposite = set().union(*(self.antonyms(w) for w in split_words(old)))
        return any(self.lemmas(w) & opposite for w in split_words(new))

    def _old_anchor(self, source: Sentence, output: Sentence) -> str:
        structure = source_structure(source, output)
        anchor = structure.anchor if structure is not None else None
        return source.text[anchor.start:anchor.end] if anchor is not None else ""

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        if (output.provenance or {}).get("meaning") == "new":
            return FilterDecision(True, None, "not compared: the generator writes new content")
        if source is None:
            return FilterDecision(True, None, "no source to compare with")
        got = content_changes(source, output, self.lemmas,
                              self._anchor_kept(output, source) if self.anchor != "any" else None,
                              self.synonyms if self.use_synonyms else None, self.synonyms, self.derivations)
        lost, added, anchor = got["lost"], got["added"], got["anchor"]
        direction: list[str] = []
        if self.relation == "forward":  # more general: words may go, but not out of the labelled spans
            lost = got["lost_in_spans"]
            direction = self._direction(source.text, output.text, got["lost"], lost, "dropped")
        elif self.relation == "reverse":  # more specific: words may come, but not into the labelled spans
            added = got["added_in_spans"]
            direction = self._direction(output.text, source.text, got["added"], added, "added")
        problems = []
        in_spans = {"forward": "lost", "reverse": "added"}.get(self.relation)  # the list a direction restricts
        for kind, words, limit in (("lost", lost, self.max_lost), ("added", added, self.max_added)):
            if len(words) > limit:
                problems.append(f"{kind} " + ", ".join(repr(w) for w in words[:4]) + (" …" if len(words) > 4 else "")
                                + (" (in a labelled span)" if kind == in_spans else ""))
        if anchor:
            problems.append(f"new anchor {anchor[0]!r} is " + (
                "an antonym of the old one" if self.is_antonym(self._old_anchor(source, output), anchor[0]) else
                "neither a synonym of the old one" + (" nor an LU of its frame" if self.anchor == "frame" else "")))
        score = float(-(len(lost) + len(added) + len(anchor) + len(direction)))
        problems += direction
        if problems:
            return FilterDecision(False, score, "; ".join(problems), got)
        return FilterDecision(True, score, "content words kept", got)


def content_filter(max_lost: int = 0, max_added: int = 0, anchor: Literal["frame", "synonym", "any"] = "frame",
                   synonyms: bool = False, relation: Literal["equivalence", "forward", "reverse"] = "equivalence",
                   record_as: str | None = None) -> ContentFilter:
    """The registered ``content`` filter (see the module docstring): ``max_lost`` source content
    words may be missing and ``max_added`` new ones may appear; ``anchor``: ``frame`` (a synonym
    or an LU of the same frame), ``synonym`` or ``any``; ``synonyms``: other content words may be
    replaced by WordNet synonyms; ``relation``: ``equivalence``, ``forward`` (words may be dropped
    outside the labelled spans) or ``reverse`` (words may be added outside them)."""
    return ContentFilter(max_lost, max_added, anchor, synonyms, record_as or "content", relation=relation)
