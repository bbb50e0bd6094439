"""The verb alternations (particle shift, dative shift): where they apply, and what they leave alone."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.rewrite.core import RuleContext, render
from paraspan.generate.rewrite.rules import RuleSet, rewrite_rules
from paraspan.models import load_spacy, load_wordnet
from paraspan.models.inflect import inflect


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _texts(nlp, name: str, text: str, protected=frozenset()) -> list[str]:
    doc = nlp(text)
    return [render(doc, pieces)[0]
            for pieces in rewrite_rules.get(name).apply(doc, RuleContext(protected, load_wordnet, inflect))]


@pytest.mark.parametrize(("source", "expected"), [
    ("They carried out the survey in May.", "They carried the survey out in May."),
    ("He put the kettle on.", "He put on the kettle."),
    ("The council set up a new committee.", "The council set a new committee up."),
])
def test_particle_moves_either_way(nlp, source, expected):
    assert expected in _texts(nlp, "particle-shift", source)


@pytest.mark.parametrize("source", [
    "He turned it off.",  # a pronoun stays before the particle
    "She picked up the book that her mother had left on the table.",  # a heavy object stays at the end
    "They handed out leaflets, posters and badges.",  # a list
    "He gave up smoking.",  # a gerund
    "She looked up the chimney.",  # a preposition, not a particle
    # read by hand on FrameNet exemplars (patterns re-written here):
    "The water trickled down the old pipes.",  # no phrasal verb "trickle down": a preposition
    "Smoke was blowing off the lake.",  # a natural thing is a place here
    "He turned on his heel and left.",  # an idiom
    "They are tracking down the men responsible.",  # a word after the noun
    "The words took on a new meaning.",  # "took a new meaning on" is not said
    "The fans lapped up every minute to the end.",  # "up to" would read as one
    # patterns of judged rewrites, re-written here
    "Only then will they take the unions up on their offer of help.",  # an idiom
    "The essays will make up the second volume.",  # "make the second volume up" would be inventing it
    "They are licensed to carry on banking business.",  # continue
    "She took time off from writing to visit him.",  # an idiom
    "He left in 1990 to take over the helm at a rival firm .",  # an idiom
    "Spread the icing , press a candle on to each corner of the cake .",  # "on to" is one preposition
    "The duke sent out men at arms to guard the bridge.",  # "men at arms" is one name
    # an object shared with the verb before
    "A clerk is working with us to audit and set up the new files .",
])
def test_particle_shift_leaves_alone(nlp, source):
    assert _texts(nlp, "particle-shift", source) == []


def test_particle_shift_after_a_verb_that_takes_a_bare_infinitive(nlp):
    """A bare verb is one after "make", "let", "help" …; after "get" it is a noun misread."""
    assert "She made me try out this game." in _texts(nlp, "particle-shift", "She made me try this game out.")
    assert "Let us set the tent up." in _texts(nlp, "particle-shift", "Let us set up the tent.")
    assert _texts(nlp, "particle-shift", "so excited, we will get the Lena break up video soon") == []


def test_particle_shift_leaves_a_correlative_object_whole(nlp):
    """"not just X, but Y" is one object, its second half parsed apart: the particle stays before it
    (FrameNet dev, pattern re-written here). The other particle in the sentence still moves."""
    texts = _texts(nlp, "particle-shift", "Fans dread the moment someone sets off not just a flare , but a firework "
                   "that would scare off the horses .")
    assert not [t for t in texts if "flare off" in t]
    assert [t for t in texts if "scare the horses off" in t]
    assert _texts(nlp, "particle-shift", "The town waits for the night a prankster sets off not just a rocket , but "
                  "a whole crate of fireworks .") == []


def test_dative_shift_keeps_a_possessive_after_its_recipient(nlp):
    """"offered them their first contract" is no "offered their first contract to them", whose
    "their" may read as the offerer's (the pattern of a judged WNUT17 output, re-written). A
    first-person one moves."""
    assert _texts(nlp, "dative-shift", "I think Omar offered them their first contract.") == []
    assert _texts(nlp, "dative-shift", "The old coach gave him his spare ticket.") == []
    assert _texts(nlp, "dative-shift", "The old coach gave Anna her spare ticket.") == []
    assert "She gave my keys to Anna." in _texts(nlp, "dative-shift", "She gave Anna my keys.")


def test_dative_shift_moves_a_possessive_that_cannot_be_the_pronoun_recipients(nlp):
    """a pronoun recipient is referred to by its own possessive only, so "her" after "them" is
    someone else's either way (v7 declined these)."""
    assert "I bet Lena will lend her own car to them." in _texts(
        nlp, "dative-shift", "I bet Lena will lend them her own car.")
    assert "The old coach gave his spare ticket to her." in _texts(
        nlp, "dative-shift", "The old coach gave her his spare ticket.")


def test_particle_shift_leaves_keep_on_alone(nlp):
    """"keep on the line" (stay on it) is no "keep the line on"."""
    assert _texts(nlp, "particle-shift", "It was a great try from a boy who really finds it hard to keep on the "
                  "line , you know .") == []


def test_a_recipient_that_is_a_name_keeps_the_phrase_after_it(nlp):
    assert "She sent Anna the keys in a parcel ." in _texts(nlp, "dative-shift", "She sent the keys to Anna in a parcel .")


def test_particle_of_a_multiword_anchor_stays(nlp):
    doc = nlp("He turned off the light.")
    protected = frozenset(t.i for t in doc if t.text in {"turned", "off"})
    assert _texts(nlp, "particle-shift", "He turned off the light.", protected) == []


@pytest.mark.parametrize(("source", "expected"), [
    ("The committee awarded the prize to the young poet.", "The committee awarded the young poet the prize."),
    ("He sent his mother a long letter.", "He sent a long letter to his mother."),
    ("I will show you the garden.", "I will show the garden to you."),
])
def test_dative_shifts_either_way(nlp, source, expected):
    assert expected in _texts(nlp, "dative-shift", source)


@pytest.mark.parametrize("source", [
    "She sent the parcel to London.",  # a place is no recipient
    "She gave it to Anna.",  # a pronoun theme stays first
    "He gave his brother a call.",  # a light verb
    "Give the plan a try.",  # not a person
    "She explained the rules to the children.",  # "explain" does not alternate
    "He gave the children the books that he had bought in Paris.",  # a heavy theme
    "They brought the food to the hungry people of the northern villages.",  # a heavy recipient
    "Rob gave her an angry scowl.",  # a look given is not handed over
    "She paid attention to Anna and her sister's plans.",  # a light verb, a "to" phrase that goes on
    "She sent the boy to his aunt.",  # a person sent somewhere: caused motion
    "The new tools gave rise to small industries.",  # an idiom
    "They give you a good rollicking and leave it at that.",  # a scolding given
    "If the Lord will bring me safe home again , I will serve him .",  # a place
    "Bring us tea -- a pot of tea , and then we can talk .",  # an apposition parsed as a second object (-s)
    # the phrase after a common-noun recipient may be its own, and would be left to the theme (-t)
    "The bank once sent credit cards to new customers with good jobs who turned out to be thieves .",
])
def test_dative_shift_leaves_alone(nlp, source):
    assert _texts(nlp, "dative-shift", source) == []


def _frame(text: str, anchor: str, **args: str) -> Sentence:
    def span(phrase: str, label: str | None = None) -> Span:
        start = text.index(phrase)
        return Span(start, start + len(phrase), label)

    return Sentence("s1", text, [Structure("frame", "Giving", span(anchor, "give.v"),
                                           [span(p, label) for label, p in args.items()])])


def test_dative_shift_carries_the_recipient_with_its_preposition():
    """FrameNet and PropBank put the "to" inside the recipient's span: a new one joins it, a lost one leaves it."""
    from paraspan.generate.rewrite.generator import rewrite_sentence

    rules = RuleSet([rewrite_rules.get("dative-shift")])
    out = rewrite_sentence(_frame("She gave Anna the keys.", "gave", Donor="She", Recipient="Anna", Theme="the keys"),
                           rules)
    assert [o.text for o in out] == ["She gave the keys to Anna."]
    spans = {a.label: out[0].text[a.start:a.end] for a in out[0].structures[0].args}
    assert spans == {"Donor": "She", "Recipient": "to Anna", "Theme": "the keys"}
    back = rewrite_sentence(_frame("She gave the keys to Anna.", "gave", Donor="She", Recipient="to Anna",
                                   Theme="the keys"), rules)
    assert [o.text for o in back] == ["She gave Anna the keys."]
    spans = {a.label: back[0].text[a.start:a.end] for a in back[0].structures[0].args}
    assert spans == {"Donor": "She", "Recipient": "Anna", "Theme": "the keys"}

