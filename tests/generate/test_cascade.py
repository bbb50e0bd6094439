"""The cascade: members asked in order, a rewrite that keeps the anchor then substitutes in the same chain."""

from __future__ import annotations

from typing import Any

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.generate.base import Candidate, Capabilities, GenerationRequest, GenerationResult, Stage, generators
from paraspan.generate.cascade import Cascade, Member, make_cascade
from paraspan.pipeline import AugmentConfig, Augmenter, build_filters
from tests.pipeline.conftest import SENTENCES
from tests.pipeline.fakes import FakeAligner, FakeGenerator


class Keeper:
    """Keeps every word (a rule rewriter's kind of generator) and counts its calls."""

    capabilities = Capabilities(deterministic=True)

    def __init__(self, text: str | None = "Indeed the farmer sold his tractor to a neighbour.") -> None:
        self.text, self.asked = text, []

    def generate(self, request: GenerationRequest) -> GenerationResult:
        self.asked.append((request.iteration, request.attempt))
        if self.text is None:
            return GenerationResult(request, [], note="no rule applies")
        return GenerationResult(request, [Candidate(self.text, meta={"rules": ["front"]})])


def _request(iteration: int = 1, attempt: int = 0) -> GenerationRequest:
    sentence = Sentence.from_dict(SENTENCES[0])
    return GenerationRequest("a/s0", sentence.text, ban=((11, 15),), sentence=sentence, structure=0,
                             iteration=iteration, attempt=attempt)


def test_members_are_asked_in_order_and_named():
    keeper = Keeper()
    cascade = Cascade([Member("keeper", keeper), Member("fake", FakeGenerator())])
    assert cascade.capabilities == Capabilities(honours_ban=True, deterministic=False)
    result = cascade.generate(_request())
    assert [c.meta["member"] for c in result.candidates] == ["keeper", "fake", "fake"]
    assert result.candidates[0].meta["keeps_anchor"] is True
    assert all("keeps_anchor" not in c.meta for c in result.candidates[1:])
    assert result.candidates[1].text == "The farmer traded his tractor to a neighbour."
    # a member that keeps the banned words: first iteration, first attempt (it is deterministic) only
    assert [c.meta["member"] for c in cascade.generate(_request(iteration=2)).candidates] == ["fake", "fake"]
    assert [c.meta["member"] for c in cascade.generate(_request(attempt=1)).candidates] == ["fake", "fake"]
    assert keeper.asked == [(1, 0)]


def test_no_candidate_says_why_per_member():
    cascade = Cascade([Member("keeper", Keeper(None)), Member("other", Keeper(None))])
    result = cascade.generate(_request())
    assert result.candidates == [] and result.note == "keeper: no rule applies; other: no rule applies"


def test_a_kept_anchor_does_not_end_the_chain():
    """Iteration 1 is the rewrite (anchor kept), iterations 2 and 3 are substitutes with growing bans."""
    config = AugmentConfig(iterations=3)
    cascade = Cascade([Member("keeper", Keeper()), Member("fake", FakeGenerator())])
    result = Augmenter(config, cascade, FakeAligner(), {}, build_filters(config)).process(
        Sentence.from_dict(SENTENCES[0]))
    texts = [(o.iteration, o.sentence.text, o.anchor_text) for o in result.outputs]
    assert texts == [(1, "Indeed the farmer sold his tractor to a neighbour.", "sold"),
                     (2, "The farmer traded his tractor to a neighbour.", "traded"),
                     (3, "The farmer handed over his tractor to a neighbour.", "handed over")]
    assert [o.sentence.provenance["generated"]["member"] for o in result.outputs] == ["keeper", "fake", "fake"]
    assert result.outputs[1].sentence.provenance["banned"] == ["sold"]
    assert result.note is None


def test_the_factory_builds_registered_members_and_refuses_bad_blocks():
    cascade = generators.build("cascade", {"members": [{"name": "rewrite"}, {"name": "synonym_replace", "p": 0.5}]},
                               {"seed": 3})
    assert [m.name for m in cascade.members] == ["rewrite", "synonym_replace"]
    assert cascade.members[1].generator.seed == 3  # the run's seed reaches the members that take one
    assert cascade.info["members"] == ["rewrite", "synonym_replace"]
    for bad in ([], [{"p": 0.5}], [{"name": "cascade"}]):
        with pytest.raises(ParaspanError) as err:
            make_cascade(bad)
        assert err.value.code == "E880"
    with pytest.raises(ParaspanError) as err:
        make_cascade([{"name": "no-such-generator"}])
    assert err.value.code == "E001"


def test_a_bad_member_option_fails_when_the_config_is_checked():
    from paraspan.pipeline.components import check

    with pytest.raises(ParaspanError) as err:
        check(AugmentConfig(generator={"name": "cascade", "members": [{"name": "rewrite", "bogus": 1}]}))
    assert err.value.code == "E003" and "bogus" in str(err.value)
    with pytest.raises(ParaspanError) as err:
        check(AugmentConfig(generator={"name": "cascade", "members": [{"name": "nope"}]}))
    assert err.value.code == "E001"


def test_the_default_rewriter_member_leaves_out_the_voice_rules():
    """Judged over the cascade runs, 26 of 71 passives were right (benchmarks/README.md)."""
    from paraspan.generate.cascade import DEFAULT_MEMBERS
    from paraspan.generate.rewrite import Rewriter

    block = dict(DEFAULT_MEMBERS[0])
    assert block.pop("name") == "rewrite" and DEFAULT_MEMBERS[1]["name"] == "substitute"
    names = {r.name for r in Rewriter(**block).rules.rules}
    assert "active-to-passive" not in names and {"it-cleft", "split-conjoined-clauses", "pp-to-genitive"} <= names


class Counting(FakeGenerator):
    """The fake substituter, counting the requests it is asked (by iteration)."""

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[int] = []

    def generate(self, request: GenerationRequest) -> GenerationResult:
        self.asked.append(request.iteration)
        return super().generate(request)


class Refuse:
    """A chooser that refuses the candidates of one member."""

    name = "refuse"

    def __init__(self, member: str) -> None:
        self.member = member

    def decide(self, output: Sentence, source: Sentence) -> Any:
        from paraspan.filter.base import FilterDecision

        member = output.provenance.get("generated", {}).get("member")
        return FilterDecision(member != self.member, None, f"from {member}" if member == self.member else "ok")


def _augment(cascade: Cascade, chooser: Any = None, iterations: int = 3) -> Any:
    config = AugmentConfig(iterations=iterations)
    return Augmenter(config, cascade, FakeAligner(), {}, build_filters(config), chooser=chooser).process(
        Sentence.from_dict(SENTENCES[0]))


def _written(result: Any) -> list[tuple[int, str, str]]:
    return [(o.iteration, o.sentence.text, o.sentence.provenance["generated"]["member"]) for o in result.outputs]


def test_stopping_early_asks_a_later_member_only_where_no_output_was_found():
    """The rewrite of iteration 1 is the output: the substituter is not asked then, and the
    chain's outputs are those of asking every member."""
    both = {}
    for stop_early in (True, False):
        fake = Counting()
        result = _augment(Cascade([Member("keeper", Keeper()), Member("fake", fake)], stop_early=stop_early))
        both[stop_early] = (_written(result), fake.asked, result.note, result.stats["calls"])
    assert both[True][0] == both[False][0] == [
        (1, "Indeed the farmer sold his tractor to a neighbour.", "keeper"),
        (2, "The farmer traded his tractor to a neighbour.", "fake"),
        (3, "The farmer handed over his tractor to a neighbour.", "fake")]
    assert both[True][1] == [2, 3] and both[False][1] == [1, 2, 3]
    assert both[True][2] is None and both[True][3] == both[False][3] == 3  # one call per chain attempt either way


def test_stopping_early_goes_on_to_the_next_member_when_the_check_refuses():
    fake = Counting()
    result = _augment(Cascade([Member("keeper", Keeper()), Member("fake", fake)]), chooser=Refuse("keeper"),
                      iterations=1)
    assert _written(result) == [(1, "The farmer traded his tractor to a neighbour.", "fake")]
    assert fake.asked == [1]
    # the candidate rows of both members, numbered on within the attempt; the refused one says why
    rows = [(c.candidate, c.chosen, c.meta.get("refused")) for c in result.candidates]
    assert rows == [(0, False, "from keeper"), (1, True, None), (2, False, None)]


def test_stopping_early_says_why_as_asking_every_member_does():
    for chooser, expected in ((None, "no paraphrase (keeper: no rule applies; other: no rule applies)"),
                              (Refuse("keeper"), "no placed candidate passed refuse (from keeper)")):
        notes = []
        for stop_early in (True, False):
            first = Keeper(None) if chooser is None else Keeper()
            result = _augment(Cascade([Member("keeper", first), Member("other", Keeper(None))],
                                      stop_early=stop_early),
                              chooser=chooser, iterations=1)
            notes.append(result.note)
        assert notes[0] == notes[1] == f"structure 0: iteration 1: {expected}"


def test_stop_early_is_an_option_and_can_be_turned_off():
    assert generators.build("cascade", {"members": [{"name": "rewrite"}]}, {}).stop_early is True
    cascade = generators.build("cascade", {"members": [{"name": "rewrite"}], "stop_early": False}, {})
    assert cascade.stop_early is False and cascade.stages() is None


class Staged(Keeper):
    """A member with stages of its own (as the substituter with two targets): "first" then "second"."""

    capabilities = Capabilities(honours_ban=True)

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[str] = []

    def stages(self) -> list[Stage]:
        def ask(name: str) -> Any:
            def run(requests: Any) -> list[GenerationResult]:
                self.calls.append(name)
                return [GenerationResult(r, [Candidate(f"{name} text.")]) for r in requests]
            return run
        return [Stage("first", lambda r: True, ask("first")), Stage("second", lambda r: r.iteration <= 1, ask("second"))]


def test_a_members_own_stages_are_asked_one_at_a_time():
    member = Staged()
    cascade = Cascade([Member("keeper", Keeper()), Member("staged", member)])
    stages = cascade.stages()
    assert [s.name for s in stages] == ["keeper", "staged:first", "staged:second"]
    assert stages[2].asks(_request()) and not stages[2].asks(_request(iteration=2))
    got = stages[2].generate_batch([_request()])[0].candidates
    assert member.calls == ["second"] and got[0].text == "second text." and got[0].meta["member"] == "staged"


def test_code_versions_name_the_rules_each_generator_runs(monkeypatch):
    """What a run store records: the rewriter's version and its rules' (only the families it uses),
    a cascade's under its members' names, nothing for a generator without versioned code."""
    from paraspan.generate.rewrite import generator as rewriter
    from paraspan.generate.rewrite.rules import RuleSet
    from paraspan.pipeline.components import generator_versions

    def versions(block: dict[str, Any]) -> dict[str, str]:
        return generator_versions(AugmentConfig.from_dict({"generator": block}))

    reliable = versions({"name": "rewrite"})
    every = RuleSet.default()
    assert reliable["rewriter"] == rewriter.REWRITER_VERSION
    assert reliable["rule:it-cleft"] == every.get("it-cleft").version
    assert "rule:active-to-passive" not in reliable  # voice is not among the default families
    assert versions({"name": "rewrite", "families": "all"})["rule:active-to-passive"] == \
        every.get("active-to-passive").version
    cascade = versions({"name": "cascade"})
    assert cascade == {f"rewrite:{k}": v for k, v in reliable.items()}  # the substituter has none
    assert versions({"name": "mention_replace"}) == {}
    monkeypatch.setattr(rewriter, "REWRITER_VERSION", "999")
    assert versions({"name": "cascade"})["rewrite:rewriter"] == "999"
