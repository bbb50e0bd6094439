from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure

pytest.importorskip("paraspan.generate.rewrite.generator")


@pytest.mark.slow
def test_rewrite_augmenter_outputs_derive_from_the_subset_and_are_memoised():
    from paraspan.evaluate.downstream.augment import get_augmenter

    text = "The old farmer quickly sold his red tractor to a neighbour ."
    gold = [Sentence("g1", text, [Structure("frame", "Commerce_sell", Span(22, 26, "sell.v"),
                                            [Span(0, 14, "Seller"), Span(27, 43, "Goods")])]),
            Sentence("g2", "Nothing .", [])]
    augment = get_augmenter("rewrite")
    outputs = augment(gold, 0)
    assert outputs and all(o.source_id == "g1" for o in outputs) and len(outputs) <= 2
    for o in outputs:
        o.validate()
        assert any(s.label == "Commerce_sell" for s in o.structures)
    calls = augment.rewriter.counts["sentences"]
    assert [o.text for o in augment(gold[:1], 1)] == [o.text for o in outputs]
    assert augment.rewriter.counts["sentences"] == calls  # memoised per gold sentence
