"""The contraction check: a directional paraphrase may drop or add words, not rearrange them."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.filter import build_filter
from paraspan.filter.contraction import ContractionFilter


def _pair(source: str, output: str) -> tuple[Sentence, Sentence]:
    return Sentence("o", output, provenance={}), Sentence("s", source)


@pytest.fixture(scope="module")
def forward() -> ContractionFilter:
    return build_filter({"name": "contraction", "relation": "forward"})


def test_deleting_modifiers_keeps_every_head(forward):
    d = forward.decide(*_pair("The old farmer quickly sold his three cows at the market on Sunday.",
                              "The farmer sold his cows at the market."))
    assert d.keep, d.reason
    # a dropped conjunct: the other keeps what the first hung on
    assert forward.decide(*_pair("The museum bought a painting and a statue last year.",
                                 "The museum bought a statue.")).keep


def test_a_swapped_order_of_events_is_rejected(forward):
    d = forward.decide(*_pair("The quick verdict followed a long hearing, during which the nurse spoke for herself.",
                              "The nurse spoke for herself in a long hearing that followed a verdict."))
    assert not d.keep
    assert "rearranged" in d.reason and d.details["moved"]


def test_a_reported_act_made_the_main_clause_is_rejected(forward):
    d = forward.decide(*_pair("The company told the bank on Monday that the mayor was resigning from the board.",
                              "The company resigned from the board on Monday."))
    assert not d.keep


def test_reverse_compares_the_source_as_the_shorter_sentence():
    reverse = ContractionFilter("reverse")
    src = "The farmer sold his cows."
    assert reverse.decide(*_pair(src, "The old farmer sold his three cows at the market on Sunday.")).keep
    assert not reverse.decide(*_pair("The verdict followed a hearing.",
                                     "The hearing followed a verdict that surprised the town.")).keep


def test_no_source_is_kept_and_a_bad_relation_is_refused(forward):
    assert forward.decide(Sentence("o", "Anything at all.")).keep
    with pytest.raises(ValueError, match="forward, reverse or equivalence"):
        ContractionFilter("sideways")  # type: ignore[arg-type]


def test_kept_words_hung_on_a_new_light_verb_are_rejected(forward):
    d = forward.decide(*_pair("They were among forty guests attending the harbour festival marked by some odd rituals.",
                              "The harbour festival had some odd rituals among forty guests."))
    assert not d.keep and "'had'" in d.reason


@pytest.mark.parametrize(("source", "output", "problem"), [
    ("The Harbour Pilot of the Year Award went to Ines Moreau on Friday.",
     "The Harbour Pilot Award went to Ines Moreau.", "lost 'Year' from inside it"),
    ("\"Keep feeding the goats every morning,\" said the farmer.", "\"Feed the goats\" was said by the farmer.",
     "the quotation 'Feed the goats'"),
    # a name may lose words at its ends, and a quotation may be cut to a part of it
    ("Mayor Ines Moreau opened the North Harbour Bridge on Friday.", "Ines Moreau opened the bridge.", None),
    ("\"Keep feeding the goats every morning,\" said the farmer.", "\"Keep feeding the goats,\" said the farmer.",
     None),
])
def test_names_and_quotations_are_units(forward, source, output, problem):
    d = forward.decide(*_pair(source, output))
    assert d.keep is (problem is None), d.reason
    if problem:
        assert problem in d.reason and "kept whole" in d.reason


def test_equivalence_compares_only_who_did_what_and_the_units():
    """An equivalent paraphrase may restructure (its heads are not compared), but the core arguments
    of a verb both sentences have keep their roles, the voice undone, and names stay whole."""
    eq = ContractionFilter("equivalence")
    src = "The committee rejected the proposal after a long debate."
    for same in ("The proposal was rejected by the committee after a long debate.",
                 "After a long debate, the committee rejected the proposal.",
                 "It was the committee that rejected the proposal after a long debate."):
        assert eq.decide(*_pair(src, same)).keep, same
    for swapped in ("The proposal rejected the committee after a long debate.",
                    "The committee was rejected by the proposal after a long debate."):
        d = eq.decide(*_pair(src, swapped))
        assert not d.keep and "changed its role on 'rejected'" in d.reason, swapped
    d = eq.decide(*_pair("The Museum of Modern Art bought a painting.", "The Museum of Art bought a painting."))
    assert not d.keep and "'Modern'" in d.reason


@pytest.mark.parametrize("relation, source, output, problem", [
    ("equivalence", "The baker is slicing onions.", "The onion is being sliced by the baker.",
     "'onions' became 'onion': a kept word changed its number"),
    ("equivalence", "The mill became famous for its bread.", "The mill become famous for its bread.",
     "'became' became 'become': a kept word changed its tense"),
    ("forward", "The mill closed two bakeries in May.", "The mill closed a bakery.",
     "'bakeries' became 'bakery': a kept word changed its number"),
    ("equivalence", "The baker is helped by his son.", "The baker is help by his son.",
     "'helped' became 'help': a kept verb became a noun"),
    ("equivalence", "A girl in white is dancing.", "A girl in white is in dance.",
     "'dancing' became 'dance': a kept verb became a noun"),
    ("equivalence", "A woman is dancing with other women.", "A woman is dancing with other woman.",
     "'women' became 'woman': a kept word changed its number"),
    ("equivalence", "The reading is the best since the survey began in August.",
     "The reading is the best since the survey begun in August.",
     "'began' became 'begun': a finite verb became a participle without an auxiliary"),
])
def test_a_kept_noun_keeps_its_number_and_a_finite_verb_its_tense(relation, source, output, problem):
    d = ContractionFilter(relation).decide(*_pair(source, output))
    assert not d.keep and d.reason == problem


def test_a_passive_keeps_the_inflections_that_say_something():
    eq = ContractionFilter("equivalence")
    for same in ("Onions are being sliced by the baker.", "The baker is slicing the onions."):
        assert eq.decide(*_pair("The baker is slicing onions.", same)).keep, same


def test_a_noun_said_twice_may_lose_one_of_its_forms():
    d = ContractionFilter("forward").decide(*_pair("A woman is dancing with other women.", "A woman is dancing."))
    assert "changed its number" not in d.reason


def test_a_finite_verb_may_become_a_participle_with_its_auxiliary():
    eq = ContractionFilter("equivalence")
    for source, same in (("The man beat the drum.", "The drum was beaten by the man."),
                         ("The man took the drum.", "The drum was taken by the man.")):
        d = eq.decide(*_pair(source, same))
        assert "participle" not in d.reason, same


def test_a_verb_may_become_a_noun_the_source_already_has():
    eq = ContractionFilter("equivalence")
    d = eq.decide(*_pair("She danced the dance of the season.", "The dance of the season was danced by her."))
    assert "became a noun" not in d.reason
