"""Sister-LU replacement, candidate FE selection, answer parsing and the infill loop (scripted model)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from paraspan.corpus.frame_index import FERelation, Frame, FrameElement, FrameIndex, LexUnit
from paraspan.corpus.phrase_types import attach_phrase_types, read_phrase_types
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ParaspanError
from paraspan.generate.base import GenerationRequest, generators
from paraspan.generate.infill import InfillConfig, Infiller, candidate_fes, make_infiller, parse_answer
from paraspan.generate.sister_lu import inflect_like, replace_lu
from paraspan.llm.backend import Prompt, Sample, SampleGroup


def _lu(i: int, name: str, frame: str, annotated: int | None = 5) -> LexUnit:
    pos = name.rsplit(".", 1)[1].upper()
    return LexUnit(i, name, pos, name.rsplit(".", 1)[0], frame, annotated=annotated)


def make_index() -> FrameIndex:
    """A hand-made frame index: Selling (Seller inherits Agent), a one-verb frame, a frame with no core FE."""
    act = Frame(1, "Intentionally_act", "An Agent does something.",
                fes={"Agent": FrameElement("Agent", 1, "Core", "The one who acts.")})
    sell = Frame(2, "Selling", "A Seller gives Goods to a Buyer in exchange for money.", fes={
        "Seller": FrameElement("Seller", 21, "Core", "The one who sells."),
        "Goods": FrameElement("Goods", 22, "Core", "What is sold."),
        "Buyer": FrameElement("Buyer", 23, "Core", "The one who buys."),
        "Time": FrameElement("Time", 24, "Peripheral", "When it happens."),
    })
    for lu in (_lu(201, "sell.v", "Selling", 10), _lu(202, "vend.v", "Selling", 0), _lu(203, "peddle.v", "Selling", 3),
               _lu(204, "sale.n", "Selling"), _lu(205, "sell off.v", "Selling", 0)):
        sell.lus[lu.name] = lu
    alone = Frame(3, "Sneezing", "Someone sneezes.", fes={"Sneezer": FrameElement("Sneezer", 31, "Core", "")})
    alone.lus["sneeze.v"] = _lu(301, "sneeze.v", "Sneezing")
    weather = Frame(4, "Weather", "Weather.", fes={"Place": FrameElement("Place", 41, "Peripheral", "")})
    for lu in (_lu(401, "rain.v", "Weather"), _lu(402, "snow.v", "Weather")):
        weather.lus[lu.name] = lu
    index = FrameIndex(frames={f.name: f for f in (act, sell, alone, weather)},
                       fe_relations=[FERelation("Inheritance", "Intentionally_act", "Agent", "Selling", "Seller"),
                                     FERelation("Inheritance", "Intentionally_act", "Agent", "Selling", "Buyer")])
    index._build()
    return index


TEXT = "Mira sold three old baskets to a stranger yesterday ."


def selling(text: str = TEXT, lu: str = "sell.v",
            parts: tuple[str, ...] = ("Mira", "three old baskets", "to a stranger", "yesterday")) -> Sentence:
    def at(part: str, label: str) -> Span:
        start = text.index(part)
        return Span(start, start + len(part), label)

    labels = ("Seller", "Goods", "Buyer", "Time")
    structure = Structure("frame", "Selling", at("sold", lu), [at(p, la) for p, la in zip(parts, labels, strict=True)])
    return Sentence("s1", text, [structure], {"doc": "mine"})


class ScriptedBackend:
    """Answers every prompt with the same scripted texts; scores each text by its length."""

    name = "scripted"
    n_ctx = 4096

    def __init__(self, answers: Sequence[str]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return [ord(c) for c in text]

    def detokenize(self, tokens: Sequence[int]) -> str:
        return "".join(chr(t) for t in tokens)

    def chat_prompt(self, system: str, user: str, *, split_at: str | None = None) -> Prompt:
        self.prompts.append(user)
        return Prompt((), tuple(self.tokenize(system + user)))

    def sample_groups(self, prompt, groups: Sequence[SampleGroup], *, top_k: int, max_tokens: int,
                      temperature: float = 1.0) -> list[Sample]:
        out = []
        for g, group in enumerate(groups):
            for i in range(group.n):
                text = self.answers[i % len(self.answers)]
                out.append(Sample(text, self.tokenize(text), [-1.0] * len(text), "stop", g, i))
        return out

    def logprobs(self, items) -> list[float]:
        return [-0.1 * len(continuation) / 10 for _, continuation in items]


class KeywordClassifier:
    """Labels a span as its intended FE unless its text contains 'xx' (then NOT_FE)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def predict(self, instances, frames=None):
        out = []
        for inst in instances:
            span = inst.text[inst.fe[0]:inst.fe[1]]
            self.seen.append(span)
            out.append(("NOT_FE" if "xx" in span else inst.label, 0.9))
        return out


def infiller(answers: Sequence[str], **overrides) -> Infiller:
    return Infiller(make_index(), ScriptedBackend(answers), KeywordClassifier(), **overrides)


# ----------------------------------------------------------------------------- pieces


@pytest.mark.parametrize(("anchor", "src", "dst", "before", "expected"), [
    ("sold", "sell.v", "vend.v", "Mira", "vended"),
    ("sells", "sell.v", "peddle.v", "she", "peddles"),
    ("selling", "sell.v", "give.v", "was", "giving"),
    ("Sold", "sell.v", "give.v", "", "Gave"),
    ("sold", "sell.v", "give.v", "had", "given"),  # after "had": the participle
    # a regular verb's past is its participle too (LemmInflect lists none): the sister takes its own
    ("murdered", "murder.v", "slay.v", "was", "slain"),
    ("captured", "capture.v", "take.v", "has", "taken"),
    ("captured", "capture.v", "take.v", "they", "took"),
    ("sold", "sell.v", "take place.v", "it", "took place"),  # multiword target: inflect its first word
    ("sell", "sell.v", "give.v", "to", "give"),
])
def test_inflect_like(anchor, src, dst, before, expected):
    assert inflect_like(anchor, src, dst, before) == expected


def test_inflect_like_refuses_a_word_that_is_not_a_form_of_the_lu():
    assert inflect_like("basket", "sell.v", "give.v") is None


def test_replace_lu_moves_every_span():
    sentence = selling()
    index = make_index()
    text, structure = replace_lu(sentence.text, sentence.structures[0], index.frames["Selling"].lus["vend.v"],
                                 "vended")
    assert text == "Mira vended three old baskets to a stranger yesterday ."
    assert structure.anchor is not None and structure.anchor.label == "vend.v"
    assert structure.anchor.text_in(text) == "vended"
    assert [a.text_in(text) for a in structure.args] == ["Mira", "three old baskets", "to a stranger", "yesterday"]
    assert structure.extra["lu_id"] == 202


def test_candidate_fes_follow_the_paper_criteria():
    index = make_index()
    sentence = selling()
    structure = sentence.structures[0]
    # Seller inherits Agent: out; Goods: core, no agent ancestor: in; Buyer inherits Agent but is a PP
    # (FrameNet's PT layer says so): in; Time is not core: out.
    structure.args[2].extra["pt"] = "PP"
    chosen = candidate_fes(structure, index, sentence.text)
    assert [s.label for s in chosen] == ["Goods", "Buyer"]
    structure.args[2].extra["pt"] = "NP"
    assert [s.label for s in candidate_fes(structure, index, sentence.text)] == ["Goods"]


def test_candidate_fes_read_the_phrase_type_from_the_parse_without_a_pt_layer():
    from paraspan.models import load_spacy

    index = make_index()
    sentence = selling()
    chosen = candidate_fes(sentence.structures[0], index, sentence.text, load_spacy())
    assert [s.label for s in chosen] == ["Goods", "Buyer"]  # "to a stranger" opens with a preposition


@pytest.mark.parametrize(("answer", "blanks", "expected"), [
    ("a goat | to Sam", 2, ["a goat", "to Sam"]),
    ("Answer: a goat | to Sam", 2, ["a goat", "to Sam"]),
    ('"a goat"', 1, ["a goat"]),
    ("a goat", 2, None),  # too few
    ("a goat | to Sam | today", 2, None),  # too many
    ("a goat | ", 2, None),  # empty phrase
    ("<mask> | to Sam", 2, None),
    ("a goat\nto Sam", 2, None),
    ("Sentence: Mira sold a goat | x", 2, None),
    ("!! | ?", 2, None),
])
def test_parse_answer_is_strict(answer, blanks, expected):
    assert parse_answer(answer, blanks) == expected


# ----------------------------------------------------------------------------- the loop


def test_infill_places_new_spans_by_offset_and_records_provenance():
    inf = infiller(["two goats | to her cousin", "a basket of figs | to the baker"], candidates=2,
                   conditioning="fe", shots=0)
    sentence = selling()
    sentence.structures[0].args[2].extra["pt"] = "PP"
    result = inf.infill(sentence)
    assert result.stats["parsed"] == 2 and result.stats["unparseable"] == 0
    assert len(result.candidates) == 2
    assert len(result.outputs) == 1  # keep=1: the lowest perplexity
    for new in result.candidates:
        structure = new.structures[0]
        assert new.source_id == "s1"
        assert structure.anchor is not None
        assert structure.anchor.label in ("vend.v", "peddle.v")  # a verb sister, never sale.n or sell off.v
        assert structure.anchor.text_in(new.text) in ("vended", "peddled")
        spans = {a.label: a.text_in(new.text) for a in structure.args}
        assert spans["Seller"] == "Mira" and spans["Time"] == "yesterday"
        assert (spans["Goods"], spans["Buyer"]) in {("two goats", "to her cousin"), ("a basket of figs", "to the baker")}
        prov = new.provenance
        assert prov is not None
        assert prov["lu_from"] == "sell.v" and prov["lu_to"] == structure.anchor.label
        assert prov["conditioning"] == "fe" and prov["fe_fidelity"] == 1.0
        assert prov["masked"] == ["Goods", "Buyer"]
        assert prov["perplexity"] > 1
        new.validate()
    # lowest perplexity = shortest text under the scripted scorer
    assert result.outputs[0].text == min((c.text for c in result.candidates), key=len)


def test_unparseable_answers_are_dropped_and_counted():
    inf = infiller(["two goats | to her cousin", "just one phrase", "a | b | c", "<mask> | x"], candidates=4, shots=0)
    sentence = selling()
    sentence.structures[0].args[2].extra["pt"] = "PP"
    result = inf.infill(sentence)
    assert result.stats["sampled"] == 4
    assert result.stats["unparseable"] == 3
    assert result.stats["parsed"] == 1


def test_strict_filter_keeps_only_fidelity_one():
    answers = ["two goats | to her cousin", "xx | to the baker"]
    sentence = selling()
    sentence.structures[0].args[2].extra["pt"] = "PP"
    strict = infiller(answers, candidates=2, keep=5, shots=0).infill(sentence)
    assert strict.stats["passed_filter"] == 1
    assert [c.provenance["fe_fidelity"] for c in strict.candidates] == [1.0, 0.5]
    assert [c.provenance["kept"] for c in strict.candidates] == [True, False]
    assert len(strict.outputs) == 1 and "two goats" in strict.outputs[0].text
    loose = infiller(answers, candidates=2, keep=5, shots=0, strict=False).infill(sentence)
    assert len(loose.outputs) == 2


def test_targets_unannotated_uses_only_lus_without_annotations():
    inf = infiller(["two goats | to Sam"], targets="unannotated", max_targets=5, candidates=1, shots=0)
    result = inf.infill(selling())
    assert {c.structures[0].anchor.label for c in result.candidates} == {"vend.v", "sell off.v"}
    forms = {c.structures[0].anchor.text_in(c.text) for c in result.candidates}
    assert forms == {"vended", "sold off"}  # a multiword target LU inflects its first word


def test_conditioning_levels_change_the_prompt():
    prompts = {}
    for level in ("none", "fe", "frame+fe"):
        inf = infiller(["two goats"], conditioning=level, candidates=1, shots=0)
        inf.infill(selling())
        prompts[level] = inf.backend.prompts[-1]
    task = {k: v.split("Now the task:")[1] for k, v in prompts.items()}
    assert "<mask>" in task["none"] and "FE Type" not in task["none"] and "Frame:" not in task["none"]
    # each FE with the phrase type its filler must keep (read from the parse)
    assert "FE Type: Goods (noun phrase), Buyer (phrase starting with 'to')." in task["fe"]
    assert "Frame:" not in task["fe"]
    assert "Frame: Selling." in task["frame+fe"] and "Goods: What is sold." in task["frame+fe"]
    assert "Lexical Unit: vend.v." in task["frame+fe"] or "Lexical Unit: peddle.v." in task["frame+fe"]


def test_few_shot_examples_come_from_the_corpus_with_their_original_spans():
    other = selling("Jo sold a red bicycle to Ann on Monday .", parts=("Jo", "a red bicycle", "to Ann", "on Monday"))
    other.id = "s2"
    inf = infiller(["two goats"], candidates=1, shots=1, examples=[other])
    inf.infill(selling())
    prompt = inf.backend.prompts[-1]
    example = prompt.split("Example 1:")[1].split("Now the task:")[0]
    assert "Jo sold <mask>" in example
    assert "Answer: a red bicycle" in example


def test_without_examples_generate_draws_them_from_the_sentences_it_was_asked_about(tmp_path):
    # before, `augment --generator infill` (no examples) showed only the built-in example, whose
    # answer the default model copied as a filler (judged fn-infill-v3: "a box of warm blankets")
    other = selling("Jo sold a red bicycle to Ann on Monday .", parts=("Jo", "a red bicycle", "to Ann", "on Monday"))
    other.id = "s2"
    inf = infiller(["two goats | to her cousin"], candidates=1, shots=1)
    inf.generate(GenerationRequest("s2", other.text, sentence=other, structure=0))
    assert "gives <mask> to the shelter" in inf.backend.prompts[-1]  # nothing seen yet: the built-in example
    inf.generate(GenerationRequest("s1", TEXT, sentence=selling(), structure=0))
    example = inf.backend.prompts[-1].split("Example 1:")[1].split("Now the task:")[0]
    assert "Jo sold <mask>" in example and "Answer: a red bicycle" in example
    # given examples are the only ones: what is asked about is not added
    fixed = infiller(["two goats | to her cousin"], candidates=1, shots=1, examples=[other])
    assert not fixed.learns_examples
    fixed.generate(GenerationRequest("s1", TEXT, sentence=selling(), structure=0))
    assert "s1" not in fixed._example_ids


@pytest.mark.parametrize(("sentence", "reason"), [
    (Sentence("a", "Ann sneezed .", [Structure("frame", "Sneezing", Span(4, 12, "sneeze.v"), [Span(0, 3, "Sneezer")])]),
     "no sister LU"),
    (Sentence("b", "It rained here .", [Structure("frame", "Weather", Span(3, 9, "rain.v"), [Span(10, 14, "Place")])]),
     "the frame has no core FEs"),
    (Sentence("c", "Mira sold it off .", [Structure("frame", "Selling", Span(5, 9, "sell off.v"), [Span(0, 4, "Seller")],
                                                   {"anchor_rest": [[13, 16]]})]),
     "multiword LU with a discontinuous target"),
    (Sentence("d", "The sale ended .", [Structure("frame", "Selling", Span(4, 8, "sale.n"), [])]), "not a verb LU"),
    (Sentence("e", "Ann flew .", [Structure("frame", "Flying", Span(4, 8, "fly.v"), [Span(0, 3, "Flyer")])]),
     "not in the frame index"),
    (Sentence("f", "Mira sold .", [Structure("frame", "Selling", Span(5, 9, "sell.v"), [Span(0, 4, "Seller")])]),
     "no candidate FE"),
])
def test_bad_input_is_skipped_with_a_reason(sentence, reason):
    inf = infiller(["x"])
    result = inf.infill(sentence)
    assert result.outputs == [] and result.candidates == []
    assert any(reason in note for note in result.notes), result.notes
    assert inf.backend.prompts == []  # no model call for a skipped structure


def test_contiguous_multiword_target_is_replaced_whole():
    text = "Mira sold off three old baskets to a stranger ."
    sentence = Sentence("m", text, [Structure("frame", "Selling", Span(5, 13, "sell off.v"), [
        Span(0, 4, "Seller"), Span(14, 31, "Goods")])])
    inf = infiller(["a crate of pears"], candidates=1, shots=0)
    result = inf.infill(sentence)
    new = result.candidates[0]
    assert new.structures[0].anchor.text_in(new.text) in ("vended", "peddled", "sold")
    assert new.structures[0].args[1].text_in(new.text) == "a crate of pears"


def test_configuration_errors():
    with pytest.raises(ParaspanError, match="conditioning"):
        infiller(["x"], conditioning="everything")
    with pytest.raises(ParaspanError, match="target"):
        infiller(["x"], targets="some")
    with pytest.raises(ParaspanError, match="frame index"):
        Infiller(None, ScriptedBackend(["x"]), KeywordClassifier())


def test_frames_are_an_option_of_the_registered_factory(tmp_path):
    from pathlib import Path

    release = Path(__file__).resolve().parents[1] / "corpus" / "fixtures" / "framenet" / "fndata-0.1"
    assert generators.get("infill") is make_infiller
    assert "frames" in generators.options("infill")
    with pytest.raises(ParaspanError, match="generator.frames"):
        generators.build("infill", {"model": "small"})  # no frames: the error says how to pass them
    inf = Infiller(str(release), ScriptedBackend(["x"]), KeywordClassifier())
    assert "Trading" in inf.frames
    with pytest.raises(ParaspanError, match="no such file"):
        Infiller(str(tmp_path / "missing"), ScriptedBackend(["x"]), KeywordClassifier())


def test_follows_the_generator_contract():
    inf = infiller(["two goats | to her cousin"], candidates=1, shots=0)
    assert inf.capabilities.needs_structure and not inf.capabilities.honours_ban
    sentence = selling()
    sentence.structures[0].args[2].extra["pt"] = "PP"
    result = inf.generate(GenerationRequest("s1", sentence.text, sentence=sentence, structure=0))
    assert len(result.candidates) == 1
    cand = result.candidates[0]
    assert "two goats" in cand.text and cand.scores["fe_fidelity"] == 1.0
    assert cand.scores["score"] == pytest.approx(-math.log(cand.scores["perplexity"]))
    placed = cand.structures[0]
    assert placed is not None and placed.anchor.text_in(cand.text) == cand.text[placed.anchor.start:placed.anchor.end]
    assert [a.text_in(cand.text) for a in placed.args if a.label == "Goods"] == ["two goats"]
    plain = inf.generate(GenerationRequest("t", "plain text"))
    assert plain.candidates == [] and "annotated sentence" in plain.note
    assert InfillConfig().conditioning == "frame+fe"


def test_small_model_end_to_end_counts_add_up(small_backend):
    """The real loop on SmolLM2-135M: answers may not parse, but every sample is accounted for."""
    from paraspan.filter.fe_classifier import FEClassifier

    inf = Infiller(make_index(), small_backend, FEClassifier.load(), candidates=3, shots=1, examples=[selling()])
    result = inf.infill(selling())
    stats = result.stats
    assert stats["sampled"] == 3
    assert stats["unparseable"] + stats["parsed"] + stats["duplicate"] == 3
    assert len(result.candidates) == stats["parsed"]
    for new in result.candidates:
        new.validate()
        assert 0.0 <= new.provenance["fe_fidelity"] <= 1.0
        assert new.provenance["perplexity"] > 1.0


PT_DOC = """<?xml version="1.0" encoding="UTF-8"?>
<fullTextAnnotation xmlns="http://framenet.icsi.berkeley.edu">
  <sentence ID="1"><text>Mira sold three old baskets to a stranger yesterday .</text>
    <annotationSet ID="77" frameName="Selling" luName="sell.v" status="MANUAL">
      <layer rank="1" name="Target"><label start="5" end="8" name="Target"/></layer>
      <layer rank="1" name="FE"><label start="28" end="40" name="Buyer"/></layer>
      <layer rank="1" name="PT"><label start="0" end="3" name="NP"/><label start="28" end="40" name="PP"/></layer>
    </annotationSet>
  </sentence>
</fullTextAnnotation>
"""


def test_phrase_types_come_from_the_pt_layer_of_the_release(tmp_path):
    (tmp_path / "fulltext").mkdir()
    (tmp_path / "fulltext" / "Doc.xml").write_text(PT_DOC, encoding="utf-8")
    table = read_phrase_types(tmp_path)
    assert table == {77: {(0, 4): "NP", (28, 41): "PP"}}
    sentence = selling()
    sentence.structures[0].extra["annoset_id"] = 77
    assert attach_phrase_types([sentence], table) == 2
    assert [a.extra.get("pt") for a in sentence.structures[0].args] == ["NP", None, "PP", None]
    # criterion 3 now reads FrameNet's PT: Buyer (agentive ancestor) is a PP, so it is regenerated
    assert [s.label for s in candidate_fes(sentence.structures[0], make_index(), sentence.text)] == ["Goods", "Buyer"]
    # and the regenerated span does not keep a phrase type that no longer applies
    inf = infiller(["two goats | to her cousin"], candidates=1, shots=0)
    new = inf.infill(sentence).candidates[0]
    assert [a.extra.get("pt") for a in new.structures[0].args] == ["NP", None, None, None]


def test_fe_names_placeholders_and_loops_are_no_fillers():
    from paraspan.generate.infill import filler_problem

    names = ["Statement", "Speaker", "Message", "Addressee"]
    assert filler_problem("Speaker", names) == "a name from the prompt"
    # an FE or frame name inside a filler echoes the prompt (judged: "agent's actions", "human being
    # (destroyer)"), unless the sentence itself uses the word; adverbial FE names are ordinary words
    assert filler_problem("the speaker of the house", names) == "a name from the prompt inside the filler"
    assert filler_problem("human being (addressee)", names) == "a name from the prompt inside the filler"
    assert filler_problem("the speaker of the house", names, "The \x00 thanked the speaker .") is None
    assert filler_problem("the speakers' corner", names) is None  # another word, not the name
    assert filler_problem("at that time", [*names, "Time"]) is None
    # the phrase type the prompt names for a blank, echoed (judged fn-infill-v5: "Vitality (noun phrase)")
    assert filler_problem("Vitality (noun phrase)", names) == "the prompt's phrase type"
    assert filler_problem("that it rains (clause)", names) == "the prompt's phrase type"
    assert filler_problem("a short phrase from the book", names) is None
    assert filler_problem("something", names) == filler_problem("[Message]", names) == "placeholder"
    assert filler_problem("the truth the truth the truth about it", names) == "repetition loop"
    assert filler_problem("a very very good friend", names) is None  # twice is English, three times a loop
    # an FE definition copied from the frame+fe prompt
    assert filler_problem("Message: The content that the Speaker conveys", names) == "a definition from the prompt"
    assert filler_problem("Speaker: the mayor", names) == "a definition from the prompt"
    assert filler_problem("at 10:30", names) is None
    # a filler that copies the sentence around its blank (five words in a row)
    from paraspan.corpus.schema import Span
    from paraspan.generate.infill import outside

    text = "The new law is meant to help small firms grow faster in hard times ."
    def blank(phrase: str) -> Span:
        return Span(text.index(phrase), text.index(phrase) + len(phrase))

    context = outside(text, [blank("small firms")])
    assert filler_problem("the new law is meant to help", names, context) == "copies the sentence around it"
    assert filler_problem("local bakeries and shops", names, context) is None
    own = outside(text, [blank("firms grow faster in hard times")])
    assert filler_problem("firms grow faster in hard", names, own) is None  # the blank's own words may stay
    assert parse_answer("Speaker | the truth", 2, names) is None
    assert parse_answer("the old mayor | the truth", 2, names) == ["the old mayor", "the truth"]
    # an LU name echoed inside a filler; abbreviations are not LU names
    assert parse_answer("the mayor | held over hold over.v", 2, names) is None
    assert parse_answer("the U.S. mayor | at 9 a.m. sharp", 2, names) == ["the U.S. mayor", "at 9 a.m. sharp"]


def test_phrase_shape_names_the_head_category_and_a_subjects_number_where_the_verb_shows_it():
    from paraspan.generate.fillers import phrase_shape
    from paraspan.models import load_spacy

    nlp = load_spacy(exclude=("ner", "lemmatizer"))

    def shape(text: str, part: str) -> tuple[str, ...] | None:
        doc = nlp(text)
        return phrase_shape(doc, text.index(part), text.index(part) + len(part))

    text = "Some people believe that the talks will fail ."
    assert shape(text, "Some people") == ("NP:pl",)  # "believe" shows the number
    assert shape(text, "that the talks will fail") == ("S",)
    assert shape("Some people believed the story .", "Some people") == ("NP",)  # a past form does not
    assert shape("He responded by cutting the aid .", "by cutting the aid") == ("PP:by",)
    assert shape("She wants to leave early .", "to leave early") == ("VPto",)
    assert shape("He considered easing the rules .", "easing the rules") == ("VPing",)
    assert shape("He said so .", " .") is None


def test_a_filler_keeps_its_spans_phrase_type():
    # judged fn-infill-v3 outputs: a clause's slot filled with a noun phrase, "by X-ing" with "in
    # trust", a plural subject with a singular one before a present verb ("some people trust" → "the man trust")
    answers = ["two goats | to her cousin", "two goats | from her cousin", "that she was tired | to her cousin"]
    sentence = selling()
    sentence.structures[0].args[2].extra["pt"] = "PP"
    result = infiller(answers, candidates=3, keep=5, shots=0).infill(sentence)
    assert result.stats["phrase type changed"] == 2
    assert [c.structures[0].args[1].text_in(c.text) for c in result.candidates] == ["two goats"]
    assert [c.structures[0].args[2].text_in(c.text) for c in result.candidates] == ["to her cousin"]


def test_an_fe_annotated_twice_is_no_candidate():
    # an antecedent and its relative pronoun carry the same FE ("the munitions | that | X stores"): one
    # filler each cannot replace both (judged fn-infill-v4: the same name filled into both)
    text = "They destroy the baskets that Mira sold to a stranger ."
    def at(part: str, label: str) -> Span:
        start = text.index(part)
        return Span(start, start + len(part), label)

    structure = Structure("frame", "Selling", at("sold", "sell.v"),
                          [at("the baskets", "Goods"), at("that", "Goods"), at("Mira", "Seller"),
                           at("to a stranger", "Buyer")])
    structure.args[3].extra["pt"] = "PP"
    assert [s.label for s in candidate_fes(structure, make_index(), text)] == ["Buyer"]


def test_keeps_shape_lets_any_noun_phrase_replace_a_bare_noun_but_not_the_reverse():
    from paraspan.generate.fillers import keeps_shape

    assert keeps_shape(("NP:bare",), ("NP",))  # "anthrax vaccine" → "food products"
    assert not keeps_shape(("NP",), ("NP:bare",))  # "the laboratory" → "cognition"
    assert not keeps_shape(("NP:sg",), ("NP:pl",))
    assert keeps_shape(("NP:sg:bare",), ("NP:sg",))
    assert not keeps_shape(("PP:by",), ("PP:in",))
    assert not keeps_shape(("NP",), ("NP", "NP"))


def test_bare_nouns_and_stray_capitals_are_no_fillers():
    # judged fn-infill-v4: "[person] headed the state", "manufacture [Raw materials]"
    answers = ["bicycle | to her cousin", "Fresh figs | to her cousin", "two goats | to her cousin"]
    sentence = selling()
    sentence.structures[0].args[2].extra["pt"] = "PP"
    result = infiller(answers, candidates=3, keep=5, shots=0).infill(sentence)
    assert result.stats["phrase type changed"] == 1 and result.stats["capital inside the sentence"] == 1
    assert [c.structures[0].args[1].text_in(c.text) for c in result.candidates] == ["two goats"]
    names = infiller(["Ann | to her cousin"], candidates=1, keep=5, shots=0).infill(sentence)
    assert len(names.candidates) == 1  # a name keeps its capital


def test_a_preposition_without_its_object_is_no_prepositional_phrase():
    # judged (FrameNet train verb frames): a Donor filled with "from", a Path with "across"
    from paraspan.generate.fillers import keeps_shape, phrase_shape
    from paraspan.models import load_spacy

    nlp = load_spacy(exclude=("ner", "lemmatizer"))

    def shape(text: str, part: str) -> tuple[str, ...] | None:
        return phrase_shape(nlp(text), text.index(part), text.index(part) + len(part))

    wanted = shape("The gift came from her aunt .", "from her aunt")
    assert wanted == ("PP:from",)
    got = shape("The gift came from .", "from")
    assert got == ("P:from",) and not keeps_shape(wanted, got)


def test_a_capitalised_common_noun_the_tagger_calls_a_name_is_astray_capital():
    # judged: "Activities", "Components" as fillers (tagged NNPS/NNP, so the capital check passed them)
    from paraspan.generate.fillers import stray_capital
    from paraspan.models import load_spacy

    nlp = load_spacy(exclude=("ner", "lemmatizer"))

    def stray(text: str, part: str) -> bool:
        return stray_capital(nlp(text), text.index(part), text.index(part) + len(part))

    assert stray("They manufacture Activities for children .", "Activities")
    assert stray("They sold Components to the firm .", "Components")
    assert stray("They sold the Components to the firm .", "the Components")  # not only the first word
    # names: a capitalised WordNet lemma, a name of several words, an acronym, a name WordNet lacks
    assert not stray("They met Democrats in Ohio .", "Democrats")
    assert not stray("The United Nations sent aid .", "United Nations")
    assert not stray("She met NATO officials .", "NATO officials")
    assert not stray("She sold it to Ann .", "Ann")


def test_an_lu_suffix_after_a_space_and_one_participant_in_two_roles_are_no_fillers():
    # judged: "the moon v." (an LU name's residue); "accumulating the Soviet Union" (the Agent's words
    # filled in as the Theme)
    from paraspan.generate.fillers import one_participant_twice

    assert parse_answer("the moon v. | to her cousin", 2) is None
    assert parse_answer("the case of Roe v. Wade | to her cousin", 2) is not None
    assert one_participant_twice(["the Soviet Union"], ["Soviet Union"])
    assert one_participant_twice(["a goat", "the goat"], [])
    assert not one_participant_twice(["two goats", "to her cousin"], ["Mira", "yesterday"])
    result = infiller(["Mira | to her cousin", "two goats | to her cousin"], candidates=2, keep=5,
                      shots=0).infill(selling())
    assert result.stats["another FE's words"] == 1
    assert [c.structures[0].args[1].text_in(c.text) for c in result.candidates] == ["two goats"]


def test_a_sister_verb_that_takes_no_object_is_not_given_one():
    # judged infill outputs: "North Korea and the USSR acceded X", "presided the board" (sister LUs that
    # WordNet lists with no frame that has a direct object, placed before one)
    from paraspan.generate.sister_lu import takes_object

    assert takes_object("sell") and takes_object("sell off")
    assert takes_object("arrive") is False and takes_object("preside") is False
    assert takes_object("xyzzy") is None  # WordNet does not know it: nothing to say
    index = make_index()
    sell = index.frames["Selling"]
    for name in [n for n in sell.lus if n != "sell.v"]:
        del sell.lus[name]
    sell.lus["arrive.v"] = _lu(206, "arrive.v", "Selling", 0)
    index._build()
    infiller_ = Infiller(index, ScriptedBackend(["two goats | to her cousin"]), KeywordClassifier(), candidates=1,
                         keep=5, shots=0)
    result = infiller_.infill(selling())
    assert result.stats["an object for a verb that takes none"] == 1 and not result.candidates


def test_a_filler_that_holds_another_fes_words_or_a_gloss_is_refused_and_a_first_filler_is_capitalised():
    # judged fn-infill-v6: "Russia's military forces" built by Russia, "the Iran- Iraq war" that began during
    # the Iran - Iraq war, "cars ( vehicle )", "members who …" starting the sentence in lower case
    from paraspan.generate.fillers import one_participant_twice
    from paraspan.generate.infill import _fit_punctuation, filler_problem

    assert one_participant_twice(["Russia's military forces"], ["Russia"])
    assert one_participant_twice(["The Iran- Iraq war"], ["during the Iran - Iraq war"])
    assert not one_participant_twice(["his own book"], ["he"])  # a pronoun is no participant to repeat
    assert filler_problem("cars ( vehicle )") == "a gloss in brackets"
    text = "Mira sold three old baskets ."
    assert _fit_punctuation("my aunt", text, Span(0, 4)) == "My aunt"
    assert _fit_punctuation("two goats", text, Span(10, 27)) == "two goats"
