"""``paraspan paraphrase`` through the one pipeline (issue 65): each input line's own ban and keep spans are
what its generator is asked, the sentence as plain text, and the candidates come back from the run store."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from paraspan.errors import ParaspanError
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult, generators
from paraspan.generate.paraphrase_spans import BAN, KEEP, make_span_generator, span_sentence
from paraspan.registry import Entry

TEXT = "The company sold its shares to investors in March."


class Recording:
    """Returns the text upper-cased (and a blank candidate); remembers every request it was asked."""

    capabilities = Capabilities(honours_ban=True)
    seen: ClassVar[list[GenerationRequest]] = []

    def generate(self, request: GenerationRequest) -> GenerationResult:
        Recording.seen.append(request)
        if "nothing" in request.text:
            return GenerationResult(request, [], note="nothing to say (here)")
        return GenerationResult(request, [Candidate(request.text.upper(), {"forward": -1.0, "score": -1.5},
                                                    meta={"cluster": 2}), Candidate(" ", {})])


def make_recording(n: int = 5) -> Recording:
    return Recording()


@pytest.fixture
def recording(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(generators.entries, "recording", Entry("recording", make_recording))
    Recording.seen.clear()


def test_a_span_sentence_is_one_structure_over_the_whole_text() -> None:
    sentence = span_sentence("3", TEXT, ban=[(12, 16)], keep=[(41, 49), (0, 3)])
    [structure] = sentence.structures
    assert structure.anchor is not None and (structure.anchor.start, structure.anchor.end) == (0, len(TEXT))
    assert [(a.start, a.end, a.label) for a in structure.args] == [(12, 16, BAN), (41, 49, KEEP), (0, 3, KEEP)]
    assert span_sentence("4", "  ").structures == []  # nothing to paraphrase: the loop skips it


def test_the_generator_is_asked_with_the_lines_own_spans_through_the_pipeline(recording: None) -> None:
    from paraspan.cli.paraphrase import _Runs
    from paraspan.cli.paraphrase_relation import ParaphraseInput

    items = [ParaphraseInput(1, "a", TEXT, ((12, 16),), ((41, 49),)), ParaphraseInput(2, 7, "Rain.", (), ()),
             ParaphraseInput(3, "x", "nothing here", (), ()), ParaphraseInput(4, "blank", "", (), ())]
    run = _Runs("1", "1", 0, False, "default", "auto", 2)
    got = run.generate({"name": "recording"}, items, 3, "testing")
    asked = {r.text: r for r in Recording.seen}
    assert set(asked) == {TEXT, "Rain.", "nothing here"}  # a blank line is never asked
    first = asked[TEXT]
    assert (first.ban, first.keep, first.protect, first.n) == (((12, 16),), ((41, 49),), (), 3)
    assert first.sentence is None and first.structure is None and first.ban_texts == ()  # plain text, as given
    assert asked["Rain."].ban == () and asked["Rain."].keep == ()  # no ban: nothing banned, not the whole text
    [upper, blank] = got[1].candidates
    assert (upper.text, upper.scores, upper.meta["cluster"]) == (TEXT.upper(), {"forward": -1.0, "score": -1.5}, 2)
    assert blank.text == " " and got[1].note is None
    assert got[3].candidates == [] and got[3].note == "nothing to say (here)"
    assert got[4].candidates == [] and got[4].note == "empty text"
    assert run.plan["workers"] == 1


def test_the_factory_answers_for_its_inner_generator() -> None:
    from paraspan.api import run_config

    spans = "own-spans"
    config = run_config(generator=spans, overrides=['generator.generator={"name": "rewrite", "max_lexical": 0}'])
    assert config.generator.options["generator"] == {"name": "rewrite", "max_lexical": 0}
    with pytest.raises(ParaspanError) as bad:
        run_config(generator=spans, overrides=['generator.generator={"name": "rewrite", "beam": 3}'])
    assert bad.value.code == "E003" and "beam" in str(bad.value)
    with pytest.raises(ParaspanError) as refused:  # the paraphraser's own check: a direction's rules are generators
        run_config(generator=spans, overrides=['generator.generator={"name": "paraphrase", "relation": "forward"}'])
    assert refused.value.code == "E974"
    with pytest.raises(ParaspanError) as nameless:
        run_config(generator=spans, overrides=['generator.generator={"families": "all"}'])
    assert nameless.value.code == "E880"
    from paraspan.pipeline.components import generator_relation, generator_versions

    assert generator_relation({"name": spans, "generator": {"name": "generalize"}}) == "forward"
    versions = generator_versions(run_config(generator=spans, overrides=['generator.generator={"name": "generalize"}']))
    assert versions == generator_versions(run_config(generator="generalize"))


def test_a_request_without_a_sentence_goes_through_as_it_is(recording: None) -> None:
    wrapped: Any = make_span_generator({"name": "recording"})
    request = GenerationRequest("r", TEXT, ban=((0, 3),))
    [result] = wrapped.generate_batch([request])
    assert Recording.seen == [request] and result.request is request
    assert result.candidates[0].structures[0].anchor.end == len(TEXT) and result.candidates[1].structures == [None]
