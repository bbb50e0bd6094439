"""The facts check: numbers and names of the source kept in the output."""

from __future__ import annotations

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.filter import build_filter
from paraspan.filter.facts import missing_facts

SOURCE_TEXT = "In 1998 the U.S. Navy sold forty ships to North Korea."


def _source() -> Sentence:
    start = SOURCE_TEXT.index("sold")
    return Sentence("s", SOURCE_TEXT, [Structure("frame", "Commerce_sell", Span(start, start + 4, "sell.v"), [])])


def _out(text: str, **provenance) -> Sentence:
    return Sentence("o", text, source_id="s", provenance={"structure": 0, **provenance})


def test_numbers_and_names_must_stay():
    flt = build_filter("facts")
    assert flt.decide(_out("In 1998 the US Navy traded forty ships to North Korea."), _source()).keep
    lost = flt.decide(_out("In 1998 the U.S. Navy traded forty ships to Korea."), _source())
    assert not lost.keep and "'North'" in lost.reason and lost.details["lost"] == ["North"]
    assert missing_facts(_source(), _out("In 1999 the Navy traded fifty ships to North Korea.")) == [
        "1998", "US", "forty"]


def test_the_anchor_and_new_content_are_not_compared():
    source = Sentence("s", "Then Anna Sold it.", [Structure("frame", "Commerce_sell", Span(10, 14, "sell.v"), [])])
    assert build_filter("facts").decide(_out("Then Anna traded it."), source).keep  # "Sold": the banned anchor
    assert build_filter("facts").decide(_out("Bob bought a car.", meaning="new"), source).keep
    assert build_filter("facts").decide(_out("Then Bob bought a car."), source).reason == "lost 'Anna'"


def test_an_acronym_may_be_spelled_out_and_a_decade_lose_its_apostrophe():
    from paraspan.corpus.schema import Sentence
    from paraspan.filter.facts import missing_facts

    source = Sentence("s", "In the 90's the US ferry line hired ten pilots from the IAEA.")
    spelled = Sentence("o", "In the 90s the United States ferry line hired ten pilots from the IAEA.", provenance={})
    assert missing_facts(source, spelled) == []
    assert missing_facts(source, Sentence("o", "The ferry line hired ten pilots.", provenance={})) == ["90s", "US",
                                                                                                      "IAEA"]
