"""Retrieval: fillers of the same slot (frame, FE, opening preposition) from a donor corpus, ranked by a
language model's score (a stand-in scorer here), spliced in by construction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import GenerationRequest
from paraspan.generate.retrieve import RetrievalConfig, RetrievalFiller, SlotPool, slot_key
from paraspan.provenance import Generated


def _sell(sid: str, seller: str, goods: str, buyer: str) -> Sentence:
    text = f"{seller} sold {goods} {buyer} ."
    a = len(seller) + 1
    g = a + len("sold") + 1
    b = g + len(goods) + 1
    frame = Structure("frame", "Commerce_sell", Span(a, a + 4, "sell.v"),
                      [Span(0, len(seller), "Seller"), Span(g, g + len(goods), "Goods"),
                       Span(b, b + len(buyer), "Buyer")])
    return Sentence(sid, text, [frame])


def test_slots_are_keyed_by_frame_element_and_opening_preposition() -> None:
    sentence = _sell("d1", "The farmer", "a cow", "to the miller")
    frame = sentence.structures[0]
    assert slot_key(frame, frame.args[2], sentence.text) == ("Commerce_sell", "Buyer", "to")
    assert slot_key(frame, frame.args[1], sentence.text) == ("Commerce_sell", "Goods", "-")


def test_donor_fillers_of_the_same_slot_are_spliced_in_best_scored_first(monkeypatch: pytest.MonkeyPatch) -> None:
    import paraspan.llm.llama_backend as llama

    donors = [_sell("d1", "The farmer", "a cow", "to the miller"), _sell("d2", "My aunt", "her old bicycle", "to me")]
    pool = SlotPool().add_all(donors)

    def shorter_is_likelier(backend: Any, texts: Sequence[str]) -> list[float]:
        return [-float(len(t)) for t in texts]

    monkeypatch.setattr(llama, "text_logprobs", shorter_is_likelier)
    source = _sell("s1", "The baker", "bread", "to the school")
    generator = RetrievalFiller(pool, backend=None, config=RetrievalConfig(masks=3, pool=5, n=10))
    result = generator.generate(GenerationRequest(id="s1", text=source.text, sentence=source, structure=0))
    texts = [c.text for c in result.candidates]
    assert "The baker sold a cow to the school ." in texts and "The baker sold bread to me ." in texts
    assert "The farmer sold bread to the school ." in texts
    assert [len(t) for t in texts] == sorted(len(t) for t in texts)
    for candidate in result.candidates:
        frame = candidate.structures[0]
        said = Generated.of_meta(candidate.meta)
        assert said.keeps_anchor and len(said.replaced) == 1
        filler = candidate.meta["fillers"][0]
        assert filler in [candidate.text[a.start:a.end] for a in frame.args]
        assert candidate.text[frame.anchor.start:frame.anchor.end] == "sold"
