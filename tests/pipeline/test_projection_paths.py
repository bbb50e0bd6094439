"""The loop projects each candidate the way it can: through the generator's placed structures,
its token mapping, or the aligner, and a generator's capabilities set iterations and retries."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.generate.base import Candidate, Capabilities, GenerationResult
from paraspan.pipeline import AugmentConfig, Augmenter, build_filters
from tests.pipeline.conftest import SENTENCES


class NoAligner:
    def align(self, tasks, progress=None):
        pytest.fail("candidates with a mapping or placed structures must not go to the aligner")


def _augmenter(generator, **settings) -> Augmenter:
    config = AugmentConfig(**settings)
    return Augmenter(config, generator, NoAligner(), {"generator": "test"}, build_filters(config))


def test_rule_rewrites_are_projected_through_their_mapping():
    from paraspan.generate.rewrite import Rewriter, RuleSet
    from paraspan.generate.rewrite.rules import hand_rules
    from paraspan.models import load_spacy

    rewriter = Rewriter(RuleSet([r for r in hand_rules() if r.name == "active-to-passive"]), nlp=load_spacy())
    sentence = Sentence.from_dict(SENTENCES[0])  # The farmer sold his tractor to a neighbour.
    result = _augmenter(rewriter, iterations=3).process(sentence)
    assert result.outputs, result.note
    out = result.outputs[0].sentence
    assert out.text.startswith("His tractor was sold")
    [st] = out.structures
    assert st.anchor.text_in(out.text) == "sold" and st.anchor.label == "sell.v"
    assert {(a.label, a.text_in(out.text)) for a in st.args} == {
        ("Seller", "by the farmer"), ("Goods", "His tractor"), ("Buyer", "to a neighbour")}  # "by" joins the agent
    assert out.provenance["projection"] == "mapping"
    # rules do not honour bans: one iteration; deterministic: no retry
    assert {o.iteration for o in result.outputs} == {1} and result.note is None


class Placer:
    """A structure-aware generator: it writes its own sentence and places the structure itself."""

    capabilities = Capabilities(needs_structure=True, deterministic=True)

    def __init__(self, lost: bool = False) -> None:
        self.lost = lost

    def generate(self, request):
        assert request.sentence is not None and request.structure == 0
        text = "A neighbour got the tractor from the farmer."
        placed = Structure("frame", "Commerce_sell", Span(12, 15, "get.v"),
                           [Span(0, 11, "Buyer"), Span(16, 27, "Goods"), Span(28, 43, "Seller")])
        if self.lost:
            placed.args.pop()
        return GenerationResult(request, [Candidate(text, {"score": -1.0}, structures=[placed])])


def test_placed_structures_are_taken_as_placed():
    sentence = Sentence.from_dict(SENTENCES[0])
    [row] = _augmenter(Placer()).process(sentence).outputs
    out = row.sentence
    assert out.structures[0].anchor.label == "get.v"  # the generator's LU, not a guess from a parse
    assert out.provenance["anchor_lu"]["pos_from"] == "generator"
    assert sorted((a.label, a.text_in(out.text)) for a in out.structures[0].args) == [
        ("Buyer", "A neighbour"), ("Goods", "the tractor"), ("Seller", "from the farmer")]
    assert out.provenance["projection"] == "placed"
    # an argument the generator lost leaves the output unplaced (required args)
    lost = _augmenter(Placer(lost=True)).process(sentence)
    assert not lost.outputs and "required span" in lost.note
    assert len(lost.candidates) == 1  # deterministic: not retried
