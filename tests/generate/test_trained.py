"""The trained generator: fillers spliced in by construction, originals and malformed answers dropped,
triggers re-inflected. A scripted backend stands in for the model (the model itself: tests/train)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import GenerationRequest
from paraspan.generate.trained import TrainedConfig, TrainedInfiller
from paraspan.llm.backend import Sample

CARD = {"name": "scripted", "base": {"name": "small"}, "prompt": {"bos": False},
        "labels": {"kinds": ["frame"], "structures": ["Commerce_sell"],
                   "labels": ["Seller", "Goods", "Buyer", "Time"]},
        "lexicon": {"Commerce_sell": ["sell.v", "trade.v"]}}


class Scripted:
    """Answers each prompt with the scripted lines of the first key it contains."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers
        self.prompts: list[str] = []

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        self.prompts.append(text)
        return [len(self.prompts) - 1]

    def sample_groups(self, prompt: Sequence[int], groups: Sequence[Any], **_: Any) -> list[Sample]:
        text = self.prompts[prompt[-1]]
        for key, lines in self.answers.items():
            if key in text:
                return [Sample(line, [1], [-0.5 - i], "newline") for i, line in enumerate(lines)]
        return []


def _sentence() -> Sentence:
    text = "The farmer sold his old tractor to a neighbour last spring."
    frame = Structure("frame", "Commerce_sell", Span(11, 15, "sell.v"),
                      [Span(0, 10, "Seller"), Span(16, 31, "Goods"), Span(32, 46, "Buyer"), Span(47, 58, "Time")])
    person = Structure("entity", "PER", Span(0, 10))
    return Sentence("s1", text, [frame, person])


def _request(sentence: Sentence) -> GenerationRequest:
    return GenerationRequest(id=sentence.id, text=sentence.text, sentence=sentence, structure=0)


def test_fillers_are_placed_exactly_and_other_structures_move_with_them() -> None:
    backend = Scripted({"<Goods>": ["a rusty plough", "his old tractor", "x | y", "its"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=4, triggers=False))
    result = generator.generate(_request(_sentence()))
    texts = [c.text for c in result.candidates]
    assert texts == ["The farmer sold a rusty plough to a neighbour last spring."]
    candidate = result.candidates[0]
    frame = candidate.structures[0]
    assert [candidate.text[a.start:a.end] for a in frame.args] == ["The farmer", "a rusty plough", "to a neighbour",
                                                                    "last spring"]
    assert candidate.text[frame.anchor.start:frame.anchor.end] == "sold"
    assert candidate.structures[1] is not None  # the entity before the edit keeps its place
    assert candidate.meta["replaced"] == ["his old tractor"] and candidate.meta["task"] == "span"
    assert result.stats["same as original"] == 1 and result.stats["unparsed"] == 1
    assert result.stats["a function word alone"] == 1


def test_a_span_equal_to_the_masked_one_moves_with_it() -> None:
    backend = Scripted({"<Seller>": ["My aunt Rosa"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=4, triggers=False))
    result = generator.generate(_request(_sentence()))
    candidate = result.candidates[0]
    assert candidate.text.startswith("My aunt Rosa sold")
    assert candidate.structures[1] is not None  # the PER mention had exactly the masked span: it moves with it
    assert candidate.text[candidate.structures[1].anchor.start:candidate.structures[1].anchor.end] == "My aunt Rosa"


def test_a_structure_whose_span_an_edit_cuts_is_lost() -> None:
    sentence = _sentence()
    sentence.structures[1] = Structure("entity", "MISC", Span(4, 15))  # "farmer sold": cut by a new Seller
    result = TrainedInfiller(Scripted({"<Seller>": ["My aunt"]}), CARD,
                             TrainedConfig(masks=4, triggers=False)).generate(_request(sentence))
    assert result.candidates[0].structures[1] is None and result.candidates[0].structures[0] is not None


def test_a_new_trigger_is_inflected_like_the_old_one_and_relabelled() -> None:
    backend = Scripted({"<TARGET>": ["trade", "sell", "eat"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=0, triggers=True))
    result = generator.generate(_request(_sentence()))
    assert [c.text for c in result.candidates] == ["The farmer traded his old tractor to a neighbour last spring."]
    frame = result.candidates[0].structures[0]
    assert frame.anchor.label == "trade.v"
    assert result.candidates[0].text[frame.anchor.start:frame.anchor.end] == "traded"
    assert result.stats["same trigger"] == 1
    assert result.stats["trigger not an LU of the frame"] == 1  # "ate": not in the adapter's lexicon


def test_a_kind_the_adapter_was_not_trained_on_is_refused() -> None:
    generator = TrainedInfiller(Scripted({}), CARD)
    sentence = _sentence()
    request = GenerationRequest(id="s1", text=sentence.text, sentence=sentence, structure=1)
    with pytest.raises(ParaspanError) as caught:
        generator.generate(request)
    assert caught.value.code == "E510"


def test_a_label_the_adapter_was_not_trained_on_is_named_in_the_note() -> None:
    sentence = _sentence()
    sentence.structures[0] = Structure("frame", "Commerce_sell", Span(11, 15, "sell.v"), [Span(16, 31, "Merchandise")])
    result = TrainedInfiller(Scripted({}), CARD, TrainedConfig(triggers=False)).generate(_request(sentence))
    assert result.candidates == []
    assert "a label adapter 'scripted' was not trained on (Merchandise" in result.note
    assert "paraspan train-generator" in result.note


def test_without_a_structure_there_is_a_note() -> None:
    result = TrainedInfiller(Scripted({}), CARD).generate(GenerationRequest(id="x", text="Hello."))
    assert result.candidates == [] and result.note


class Scorer:
    """Scores a text by how many times it says "tractor" (for the retrieval ranking)."""

    def start_tokens(self) -> list[int]:
        return [0]

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        self.last = text
        return [1 + text.count("tractor")]

    def logprobs(self, items: Any) -> list[float]:
        return [-1.0 / continuation[0] for _, continuation in items]


def test_retrieval_draws_fillers_of_the_same_slot_and_ranks_them() -> None:
    from paraspan.generate.retrieve import RetrievalConfig, RetrievalFiller, SlotPool, slot_key

    donor = Sentence("d1", "Her uncle sold a tractor to the school.", [
        Structure("frame", "Commerce_sell", Span(10, 14, "sell.v"),
                  [Span(0, 9, "Seller"), Span(15, 24, "Goods"), Span(25, 38, "Buyer")])])
    other = Sentence("d2", "Tom sold bread to us.", [
        Structure("frame", "Commerce_sell", Span(4, 8, "sell.v"), [Span(0, 3, "Seller"), Span(9, 14, "Goods"),
                                                                  Span(15, 20, "Buyer")])])
    pool = SlotPool().add_all([donor, other])
    assert pool.fillers(("Commerce_sell", "Buyer", "to")) == ["to the school", "to us"]
    sentence = _sentence()
    frame = sentence.structures[0]
    assert slot_key(frame, frame.args[2], sentence.text) == ("Commerce_sell", "Buyer", "to")
    generator = RetrievalFiller(pool, Scorer(), RetrievalConfig(masks=4, pool=5, n=20))
    result = generator.generate(_request(sentence))
    texts = [c.text for c in result.candidates]
    assert "The farmer sold a tractor to a neighbour last spring." in texts
    assert "The farmer sold his old tractor to us last spring." in texts
    assert all(c.meta["task"] == "span" for c in result.candidates)
    # the scorer prefers texts that still say "tractor": the one whose Goods became "bread" ranks last
    assert texts[-1] == "The farmer sold bread to a neighbour last spring."
    assert all(c.structures[0] is not None for c in result.candidates)


def test_unknown_words_need_the_lexicon_the_source_or_one_token_of_the_vocabulary() -> None:
    from paraspan.generate.fillers import unknown_words

    assert unknown_words("a numerial pattern", "") == ["numerial"]
    assert unknown_words("the innuclear-state talks", "") == ["innuclear"]
    assert unknown_words("Ngbyo's 2,000 tractors", "") == []  # names and numbers are not checked
    assert unknown_words("the numerial one", "a numerial one") == []  # the source's own word
    assert unknown_words("new websites", "", pieces=lambda word: 1) == []
    assert unknown_words("new websites", "", pieces=lambda word: 2) == ["websites"]


class Pieces(Scripted):
    """Counts an invented word as two tokens of the vocabulary, every other word as one."""

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        ids = super().tokenize(text, special=special)
        return ids * 2 if text.strip() in ("plouffle", "zorbing") else ids


def test_fillers_with_invented_words_or_a_lone_reflexive_are_dropped() -> None:
    backend = Pieces({"<Goods>": ["a rusty plouffle", "itself", "a rusty plough"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=4, triggers=False))
    result = generator.generate(_request(_sentence()))
    assert [c.text for c in result.candidates] == ["The farmer sold a rusty plough to a neighbour last spring."]
    assert result.stats["a word the lexicon does not know"] == 1
    assert result.stats["a reflexive pronoun alone"] == 1


def test_a_filler_keeps_the_slot_s_opening_preposition_and_does_not_stutter() -> None:
    from paraspan.generate.fillers import shape_differs, stutters

    assert shape_differs("from Hungary", "the United States")
    assert shape_differs("the farmer", "in 2011") and shape_differs("within the city", "from the city")
    assert not shape_differs("from Hungary", "from three countries") and not shape_differs("his tractor", "a plough")
    text = "Biological select agents include viruses"
    assert stutters(text, 11, 17, "agents") and not stutters(text, 11, 17, "toxic")
    backend = Scripted({"<Buyer>": ["the Smiths", "to my neighbour last", "to the Smiths"],
                        "<Goods>": ["sold a plough", "a plough"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=4, triggers=False))
    result = generator.generate(_request(_sentence()))
    assert sorted(c.text for c in result.candidates) == [
        "The farmer sold a plough to a neighbour last spring.", "The farmer sold his old tractor to the Smiths last spring."]
    assert result.stats["another opening preposition"] == 1 and result.stats["repeats the word beside it"] == 2


def test_a_new_trigger_relabels_every_annotation_of_the_same_target() -> None:
    sentence = _sentence()
    twin = Structure("frame", "Commerce_sell", Span(11, 15, "sell.v"), [Span(0, 10, "Seller")])
    sentence = Sentence(sentence.id, sentence.text, [sentence.structures[0], sentence.structures[1], twin])
    backend = Scripted({"new trigger": ["traded"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=0, triggers=True))
    for index in (0, 2):
        result = generator.generate(GenerationRequest(id=sentence.id, text=sentence.text, sentence=sentence,
                                                      structure=index))
        candidate = result.candidates[0]
        assert candidate.text.startswith("The farmer traded his old tractor")
        assert [s.anchor.label for s in candidate.structures if s is not None and s.kind == "frame"] == [
            "trade.v", "trade.v"]


def test_the_parse_of_the_new_sentence_refuses_another_phrase_type_a_stray_capital_or_a_repeated_participant(
) -> None:
    backend = Scripted({"<Goods>": ["buying a plough", "Tractors", "a rusty plough"],
                        "<Buyer>": ["to the farmer", "to two neighbours"]})
    generator = TrainedInfiller(backend, CARD, TrainedConfig(masks=4, triggers=False))
    result = generator.generate(_request(_sentence()))
    assert sorted(c.text for c in result.candidates) == [
        "The farmer sold a rusty plough to a neighbour last spring.",
        "The farmer sold his old tractor to two neighbours last spring."]
    assert result.stats["another phrase type"] == 1  # a verb phrase where a noun phrase stood
    assert result.stats["a capital inside the sentence"] == 1
    assert result.stats["names another argument's participant"] == 1  # the Seller sold to himself
    unchecked = TrainedInfiller(backend, CARD, TrainedConfig(masks=4, triggers=False, parse_checks=False))
    assert len(unchecked.generate(_request(_sentence())).candidates) == 5


def test_auto_sends_each_structure_to_the_shipped_adapter_of_its_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    from paraspan.generate.trained import AdapterPerKind

    monkeypatch.setattr("paraspan.models.adapters.shipped_names", lambda: ["framenet"])
    built: list[str] = []

    def build(name: str) -> TrainedInfiller:
        built.append(name)
        return TrainedInfiller(Scripted({"<Goods>": ["a rusty plough"]}), CARD, TrainedConfig(masks=4, triggers=False))

    generator = AdapterPerKind(build)
    sentence = _sentence()
    first = generator.generate(_request(sentence))
    again = generator.generate(_request(sentence))
    assert [c.text for c in first.candidates] == [c.text for c in again.candidates] == [
        "The farmer sold a rusty plough to a neighbour last spring."]
    entity = generator.generate(GenerationRequest(id="s1", text=sentence.text, sentence=sentence, structure=1))
    assert built == ["framenet"]  # loaded once; no entity adapter shipped in this installation
    assert not entity.candidates and "no shipped adapter for entity" in (entity.note or "")


def test_an_entity_is_not_filled_with_another_mention_of_its_sentence() -> None:
    text = "Maria Lopez moved from Lyon to Porto."
    sentence = Sentence("s2", text, [Structure("entity", "LOC", Span(23, 27)), Structure("entity", "LOC", Span(31, 36)),
                                     Structure("entity", "PER", Span(0, 11))])
    card = {**CARD, "labels": {"kinds": ["entity"], "structures": ["LOC", "PER"], "labels": ["LOC", "PER"]}}
    generator = TrainedInfiller(Scripted({"<LOC>": ["Porto", "Geneva"]}), card, TrainedConfig(masks=1, triggers=False))
    result = generator.generate(GenerationRequest(id="s2", text=text, sentence=sentence, structure=0))
    assert [c.text for c in result.candidates] == ["Maria Lopez moved from Geneva to Porto."]
    assert result.stats["names another argument's participant"] == 1


def test_a_propbank_predicate_gets_no_new_trigger() -> None:
    text = "The farmer sold his old tractor."
    srl = Structure("srl", "sell.01", Span(11, 15, "sell"), [Span(0, 10, "ARG0"), Span(16, 31, "ARG1")])
    sentence = Sentence("s3", text, [srl])
    card = {**CARD, "labels": {"kinds": ["srl"], "structures": ["sell.01"], "labels": ["ARG0", "ARG1"]}}
    backend = Scripted({"<TARGET>": ["sells", "sell"], "<ARG1>": ["a plough"]})
    result = TrainedInfiller(backend, card, TrainedConfig(masks=4)).generate(
        GenerationRequest(id="s3", text=text, sentence=sentence, structure=0))
    assert [c.text for c in result.candidates] == ["The farmer sold a plough."]
    assert not any("<TARGET>" in prompt for prompt in backend.prompts)
