"""The claims check: an equivalent paraphrase keeps negations, modals, hedges and quotations."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.filter import build_filter


@pytest.mark.parametrize(("source", "output", "reason"), [
    # reworded, the claim unchanged ("said" → "stated"; "about 40" → "approximately 40")
    ("The ferry carried about 40 cyclists, the captain said.", "The captain stated that the ferry carried "
     "approximately 40 cyclists.", None),
    ("Hikers talked about the storm.", "Hikers discussed the storm.", None),  # a preposition, not a hedge
    # the words that decide whether the claim holds
    ("It would have been the first ferry to sink there.", "It was the first ferry to sink there.",
     "dropped 'will', 'would'"),
    ("The bakery could sell the shop.", "The bakery might sell the shop.", "dropped 'can', 'could'"),
    ("The ferry carried about 40 cyclists.", "The ferry carried 40 cyclists.", "dropped '≈'"),
    ("The former mayor opened the mill.", "The mayor opened the mill.", "dropped 'former'"),
    # quotations and commentary
    ("\"Keep the goats inside,\" said the farmer.", "\"Keep the animals in,\" the farmer said.", "the quotation"),
    ("The mill reopened.", "The mill opened again. The paraphrase keeps the original meaning.", "comments on itself"),
])
def test_an_equivalent_output_makes_the_same_claims(source, output, reason):
    d = build_filter("claims").decide(Sentence("o", output, provenance={}), Sentence("s", source))
    assert d.keep is (reason is None), d.reason
    if reason:
        assert reason in d.reason


def test_new_content_and_no_source_are_not_compared():
    flt = build_filter("claims")
    assert flt.decide(Sentence("o", "It may rain.", provenance={"meaning": "new"}), Sentence("s", "It rains.")).keep
    assert flt.decide(Sentence("o", "It may rain.")).keep


def test_a_frequency_hedge_decides_the_claim():
    d = build_filter("claims").decide(Sentence("o", "Ferries are inspected every year.", provenance={}),
                                      Sentence("s", "Normally, ferries are inspected every year."))
    assert not d.keep and "'normally'" in d.reason
