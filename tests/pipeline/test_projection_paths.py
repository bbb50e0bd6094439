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
    # "the tractor", same offsets: "His tractor was sold by the farmer" is declined (the possessive
    # would come before the noun it refers to, active-to-passive v7)
    data = {**SENTENCES[0], "text": SENTENCES[0]["text"].replace("his tractor", "the tractor")}
    sentence = Sentence.from_dict(data)  # The farmer sold the tractor to a neighbour.
    result = _augmenter(rewriter, iterations=3).process(sentence)
    assert result.outputs, result.note
    out = result.outputs[0].sentence
    assert out.text.startswith("The tractor was sold")
    [st] = out.structures
    assert st.anchor.text_in(out.text) == "sold" and st.anchor.label == "sell.v"
    assert {(a.label, a.text_in(out.text)) for a in st.args} == {
        ("Seller", "by the farmer"), ("Goods", "The tractor"), ("Buyer", "to a neighbour")}  # "by" joins the agent
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


def test_the_output_is_the_best_placed_candidate_that_passes_the_check():
    from paraspan.filter.base import FilterDecision
    from tests.pipeline.fakes import FakeAligner, FakeGenerator

    class NoIndeed:
        name = "no-indeed"

        def decide(self, output, source=None):
            ok = not output.text.startswith("Indeed")
            return FilterDecision(ok, 1.0 if ok else 0.0, "fine" if ok else "starts with Indeed")

    config = AugmentConfig(iterations=1, retries=0)

    class Aligner(FakeAligner):  # the "Indeed, …" candidate places its anchor best
        def align(self, tasks, progress=None):
            from dataclasses import replace

            return [replace(res, score=1.0) if task.target.startswith("Indeed") and res.pred is not None else res
                    for task, res in zip(tasks, super().align(tasks), strict=True)]

    chooser = NoIndeed()
    aug = Augmenter(config, FakeGenerator(), Aligner(), {}, build_filters(config), chooser=chooser)
    result = aug.process(Sentence.from_dict(SENTENCES[0]))
    [row] = result.outputs
    assert row.sentence.text == "The farmer traded his tractor to a neighbour."
    assert row.sentence.provenance["filters"]["no-indeed"] is True
    refused = [c for c in result.candidates if c.meta.get("refused")]
    assert [c.text[:6] for c in refused] == ["Indeed"] and refused[0].meta["refused"] == "starts with Indeed"

    class Never(NoIndeed):
        def decide(self, output, source=None):
            return FilterDecision(False, 0.0, "never")

    aug.chooser = Never()
    aug.chooser.name = "never"
    failed = aug.process(Sentence.from_dict(SENTENCES[0]))
    assert not failed.outputs and "no placed candidate passed never (never)" in failed.note


def test_a_combined_check_records_each_part(tmp_path):
    from tests.pipeline.fakes import FakeAligner, FakeGenerator

    config = AugmentConfig(iterations=1, filters=({"name": "all_of", "parts": ["iter1", "aligner>=0.9"],
                                                   "record_as": "both"},))
    aug = Augmenter(config, FakeGenerator(), FakeAligner(), {}, build_filters(config))
    [row] = aug.process(Sentence.from_dict(SENTENCES[0])).outputs
    assert {"both", "iter1", "aligner>=0.9"} <= set(row.decisions)
    assert row.decisions["both"][0] is True and row.decisions["aligner>=0.9"][0] is True
    checks = row.sentence.provenance["checks"]
    assert checks["both"]["keep"] and checks["both"]["reason"].startswith("passes")


def test_a_reason_with_a_semicolon_counts_as_one_note(tmp_path):
    from paraspan.filter.base import FilterDecision
    from paraspan.pipeline import open_store, run_augment
    from tests.pipeline.fakes import FakeAligner, FakeGenerator

    class Never:
        name = "never"

        def decide(self, output, source=None):
            return FilterDecision(False, 0.0, "predicted NOT_LABEL (1.00); Goal 0.00 < 0.10")

    config = AugmentConfig(iterations=1, retries=0)
    aug = Augmenter(config, FakeGenerator(), FakeAligner(), {}, build_filters(config), chooser=Never())
    store = open_store(tmp_path / "r.db", config, resume=False)
    summary = run_augment([Sentence.from_dict(SENTENCES[0])], store, config, augmenter=aug)
    assert summary.notes == {"no placed candidate passed never": 1}


class MentionSwap:
    """Replaces the requested mention by another name and places every mention of the sentence."""

    capabilities = Capabilities(needs_structure=True, deterministic=True, keeps_meaning=False)

    def __init__(self, drop_other: bool = False) -> None:
        self.drop_other = drop_other

    def generate(self, request):
        text = "Anna Berg flew to Oslo ."  # from "Tom flew to Paris ."
        anna = Structure("entity", "PER", Span(0, 9, "PER"), [])
        oslo = Structure("entity", "LOC", Span(18, 22, "LOC"), [])
        return GenerationResult(request, [Candidate(text, {"score": -1.0},
                                                    structures=[anna, None if self.drop_other else oslo])])


def test_an_entity_output_carries_every_mention_of_the_sentence():
    """NER labels every mention: an output keeps the sentence's other entities (placed by the
    generator), and a candidate that loses one is not placed (it would teach "no entity")."""
    source = Sentence("n", "Tom flew to Paris .", [Structure("entity", "PER", Span(0, 3, "PER"), []),
                                                     Structure("entity", "LOC", Span(12, 17, "LOC"), [])])
    result = _augmenter(MentionSwap(), kinds=("entity",)).process(source)
    first = next(o.sentence for o in result.outputs if o.structure == 0)
    assert [(s.anchor.text_in(first.text), s.label) for s in first.structures] == [("Anna Berg", "PER"),
                                                                                  ("Oslo", "LOC")]
    assert first.provenance["entities_carried"] == 1
    lost = _augmenter(MentionSwap(drop_other=True), kinds=("entity",)).process(source)
    assert not [o for o in lost.outputs if o.structure == 0]
    assert lost.candidates[0].meta["entities_lost"] == 1 and "required span" in lost.note


def test_a_mention_a_split_repeats_is_labelled_in_the_output():
    """A rule that writes a mention again (the subject a split repeats) labels the copy, for the
    requested mention and the others: the candidate is placed, and NER sees every mention labelled
    (it had been refused since an unlabelled copy teaches "no entity")."""
    from paraspan.generate.rewrite import Rewriter, RuleSet
    from paraspan.models import load_spacy
    from tests.generate.rewrite.helpers import entity

    rewriter = Rewriter(RuleSet.default().only("split"), nlp=load_spacy())
    source = entity("n", "Anna Berg moved to Oslo and studied at the Oslo School of Design.", ("PER", "Anna Berg"),
                    ("LOC", "Oslo"), ("ORG", "Oslo School of Design"))
    result = _augmenter(rewriter, kinds=("entity",)).process(source)
    assert sorted(o.structure for o in result.outputs) == [0, 1, 2]
    for o in result.outputs:
        text = o.sentence.text
        assert text == "Anna Berg moved to Oslo. Anna Berg studied at the Oslo School of Design."
        assert sorted((s.label, s.anchor.start, s.anchor.text_in(text)) for s in o.sentence.structures) == [
            ("LOC", 19, "Oslo"), ("ORG", 50, "Oslo School of Design"), ("PER", 0, "Anna Berg"),
            ("PER", 25, "Anna Berg")]
