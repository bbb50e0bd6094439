"""The label → relation mapping, odd inputs, the filter's decisions and the summary."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import build_filter, filters
from paraspan.filter.base import FilterDecision, decide_all
from paraspan.filter.relations import (
    NOTE_EMPTY,
    NOTE_IDENTICAL,
    RELATIONS,
    RelationFilter,
    RelationSummary,
    relate,
    relation_of,
    rouge_l,
)

E, N, C = "entailment", "neutral", "contradiction"


@pytest.mark.parametrize(("forward", "backward", "relation"), [
    (E, E, "equivalence"),
    (E, N, "forward_entailment"),
    (N, E, "reverse_entailment"),
    (C, C, "negation"),
    (N, N, "alternation"),
    (E, C, "other"),
    (C, E, "other"),
    (N, C, "other"),
    (C, N, "other"),
])
def test_all_nine_label_combinations(forward, backward, relation):
    assert relation_of(forward, backward) == relation


def test_unknown_label_is_a_bug_not_other():
    with pytest.raises(ValueError):
        relation_of("entails", "neutral")


S1, S2 = "A man is playing a guitar.", "A man is playing an instrument."


def test_relate_runs_each_judge_once_over_both_directions(scripted):
    judge = scripted({(S1, S2): E})
    [rel] = relate([(S1, S2)], [judge])
    assert (rel.forward, rel.backward, rel.relation) == (E, N, "forward_entailment")
    assert rel.agree is None and rel.judge == "scripted"
    assert judge.calls == [(S1, S2), (S2, S1)]
    assert abs(sum(rel.p_forward.values()) - 1) < 0.02


def test_identical_sentences_are_equivalent_without_the_model(scripted):
    judge = scripted({})
    [rel] = relate([("The cat sat.", "  The cat   sat. ")], [judge])
    assert rel.relation == "equivalence" and rel.note == NOTE_IDENTICAL
    assert (rel.forward, rel.backward) == (E, E)
    assert judge.calls == []


@pytest.mark.parametrize("pair", [("", "A cat."), ("A cat.", "   "), ("", "")])
def test_empty_sentence_is_other_with_a_note(scripted, pair):
    judge = scripted({})
    [rel] = relate([pair], [judge])
    assert rel.relation == "other" and rel.note == NOTE_EMPTY
    assert rel.forward is None and rel.backward is None
    assert judge.calls == []
    assert rel.to_dict()["note"] == NOTE_EMPTY


def test_agreement_of_two_judges(scripted):
    a = scripted({(S1, S2): E, (S2, S1): E}, name="a")
    b = scripted({(S1, S2): E}, name="b")
    c = scripted({(S1, S2): E, (S2, S1): E}, name="c")
    [rel] = relate([(S1, S2)], [a, b])
    assert rel.relation == "equivalence" and rel.agree is False  # the first judge's labels are reported
    assert rel.judges["b"].relation == "forward_entailment"
    assert set(rel.to_dict()["judges"]) == {"a", "b"}
    [rel] = relate([(S1, S2)], [a, c])
    assert rel.agree is True


def test_truncation_is_recorded(scripted):
    long = "word " * 100
    [rel] = relate([(long, "A short one.")], [scripted({})])
    assert rel.truncated and rel.to_dict()["truncated"] is True


def test_filter_keeps_equivalence_and_records_provenance(scripted):
    source = Sentence("s", S1)
    same = Sentence("o1", "A man plays a guitar.", source_id="s", provenance={"method": "paraphrase"})
    weaker = Sentence("o2", S2, source_id="s")
    empty = Sentence("o3", "", source_id="s")
    copy = Sentence("o4", S1, source_id="s")
    judge = scripted({(S1, same.text): E, (same.text, S1): E, (S1, S2): E})
    decisions = decide_all(RelationFilter(judge), [(out, source) for out in (same, weaker, empty, copy)])
    assert all(isinstance(d, FilterDecision) for d in decisions)
    assert len(judge.calls) == 4  # one batched call: both directions of the two judged pairs
    assert [d.keep for d in decisions] == [True, False, False, True]
    assert "forward_entailment" in decisions[1].reason and "equivalence" in decisions[1].reason
    assert NOTE_EMPTY in decisions[2].reason
    assert decisions[0].details["relation"] == "equivalence" and decisions[0].score is None
    assert same.provenance == {"method": "paraphrase", "relation": {
        "label": "equivalence", "forward": E, "backward": E, "judge": "scripted"}}
    assert weaker.provenance["relation"]["label"] == "forward_entailment"
    # keeping forward entailment too
    flt = RelationFilter(judge, accept={"equivalence", "forward_entailment"})
    assert [flt.decide(out, source).keep for out in (same, weaker)] == [True, True]


def test_filter_with_two_judges_needs_agreement(scripted):
    source, out = Sentence("s", S1), Sentence("o", S2, source_id="s")
    a = scripted({(S1, S2): E, (S2, S1): E}, name="a")
    b = scripted({(S1, S2): E}, name="b")
    decision = RelationFilter([a, b]).decide(out, source)
    assert not decision.keep and "disagree" in decision.reason
    assert out.provenance["relation"]["agree"] is False
    # agree=False: the first judge's relation decides
    assert RelationFilter([a, b], agree=False).decide(out, source).keep


def test_an_appeal_judge_hears_only_what_the_judges_refused_and_may_keep_it(scripted):
    """A costly judge asked again about the outputs the cheap one refused for their relation, and
    about nothing else (not a kept output, not an empty one); its relation, recorded, decides."""
    source = Sentence("s", S1)
    kept = Sentence("o1", "A man plays a guitar.", source_id="s")
    rescued = Sentence("o2", "It is a man that is playing a guitar.", source_id="s")
    lost = Sentence("o3", S2, source_id="s")
    empty = Sentence("o4", "", source_id="s")
    cheap = scripted({(S1, kept.text): E, (kept.text, S1): E, (S1, S2): E}, name="cheap")
    costly = scripted({(S1, rescued.text): E, (rescued.text, S1): E}, name="costly")
    flt = RelationFilter(cheap, appeal=[costly])
    decisions = decide_all(flt, [(out, source) for out in (kept, rescued, lost, empty)])
    assert [d.keep for d in decisions] == [True, True, False, False]
    assert sorted(costly.calls) == sorted([(S1, rescued.text), (S1, S2), (rescued.text, S1), (S2, S1)])
    assert "on appeal costly: relation equivalence" in decisions[1].reason
    assert rescued.provenance["relation"]["label"] == "alternation"  # the first judges' view stays
    assert rescued.provenance["relation"]["appeal"]["label"] == "equivalence"
    assert decisions[2].details["appeal"]["label"] == "alternation"  # the costly judge found no entailment
    assert "appeal" not in kept.provenance["relation"]
    # no appeal without refusals: the costly judge is not even loaded
    loads = []
    quiet = RelationFilter(cheap, load_appeal=lambda: loads.append(1) or [costly])
    assert quiet.decide(kept, source).keep and loads == []
    # built by name, the appeal is checked like the judges (no model loads)
    built = build_filter({"name": "relation", "appeal": ["llm"]})
    assert built._appeal is None and built._load_appeal is not None
    with pytest.raises(ParaspanError):
        build_filter({"name": "relation", "appeal": ["nonesuch"]})
    # and verified passes it to its relation check
    [relation] = [p for p in build_filter({"name": "verified", "appeal": ["llm"]}).parts if p.name == "relation"]
    assert relation._load_appeal is not None


def test_filter_rejects_unknown_relations(scripted):
    with pytest.raises(ParaspanError, match="paraphrase"):
        RelationFilter(scripted({}), accept={"paraphrase"})


def test_filter_needs_the_source(scripted):
    with pytest.raises(ParaspanError, match="source sentence") as err:
        RelationFilter(scripted({})).decide(Sentence("o", S2, source_id="s"))
    assert err.value.code == "E714"


def test_filter_is_registered_and_loads_its_judges_lazily(scripted, monkeypatch):
    import paraspan.filter.relations as relations

    assert filters.get("relation") is relations.relation_filter
    loaded = []

    def fake_load(spec, **options):
        loaded.append((spec, options))
        return scripted({(S1, S2): E, (S2, S1): E}, name=spec)

    monkeypatch.setattr(relations, "load_judge", fake_load)
    flt = build_filter({"name": "relation", "judges": ["minilm-nli", "llm"], "accept": ["equivalence"],
                        "threads": 2})
    assert isinstance(flt, RelationFilter) and flt.name == "relation" and loaded == []  # nothing loaded yet
    decision = flt.decide(Sentence("o", S2, source_id="s"), Sentence("s", S1))
    assert decision.keep and [spec for spec, _ in loaded] == ["minilm-nli", "llm"]
    assert loaded[0][1] == {"threads": 2, "max_length": 256}
    flt.decide(Sentence("o2", S2, source_id="s"), Sentence("s", S1))
    assert len(loaded) == 2  # loaded once
    assert build_filter("relation").name == "relation"
    assert build_filter({"name": "relation", "record_as": "rel-fwd",
                         "accept": ["equivalence", "forward_entailment"]}).name == "rel-fwd"


@pytest.mark.parametrize(("options", "message"), [
    ({"accept": ["paraphrase"]}, "unknown relation"),
    ({"judges": ["nope"]}, "unknown judge"),
    ({"judges": ["hub"]}, "hub needs a model id"),
    ({"judges": ["llm", "llm"]}, "named twice"),
    ({"judges": []}, "no judge"),
    ({"agreee": True}, "no option 'agreee'"),
    ({"agree": "sometimes"}, "bad options"),
])
def test_relation_filter_options_are_checked_when_built(options, message):
    with pytest.raises(ParaspanError, match=message):
        build_filter({"name": "relation", **options})


def test_rouge_l():
    assert rouge_l("A cat sat.", "a CAT sat") == 1.0
    assert rouge_l("", "a cat") == 0.0
    assert rouge_l("x y", "z w") == 0.0
    # LCS("the cat sat on the mat", "the cat was on a mat") = the cat on mat = 4; P=R=4/6
    assert rouge_l("the cat sat on the mat", "the cat was on a mat") == pytest.approx(4 / 6)
    assert rouge_l("a b c d", "a c") == pytest.approx(2 * 1 * 0.5 / 1.5)


def test_summary_tables(scripted):
    judge = scripted({(S1, S2): E, ("A dog.", "A cat."): C, ("A cat.", "A dog."): C})
    pairs = [(S1, S2, {"paraphrase": 1}), ("A dog.", "A cat.", {"paraphrase": 0}), ("Same.", "Same.", {}),
             ("", "x", {})]
    summary = RelationSummary()
    for (s1, s2, gold), rel in zip(pairs, relate([(a, b) for a, b, _ in pairs], [judge]), strict=True):
        summary.add(s1, s2, rel, gold)
    data = summary.to_dict()
    assert data["pairs"] == 4 and data["judged"] == 3
    assert data["combinations"]["entailment/neutral"] == pytest.approx(1 / 3, abs=1e-4)
    assert set(data["relations"]) == set(RELATIONS)
    fwd = data["relations"]["forward_entailment"]
    assert fwd["pairs"] == 1 and fwd["gold_paraphrase_share"] == 1.0 and fwd["length_diff"] == 0.0
    assert data["relations"]["negation"]["gold_paraphrase_share"] == 0.0
    assert data["relations"]["equivalence"]["rouge_l"] == 100.0
    assert data["notes"] == {NOTE_IDENTICAL: 1, NOTE_EMPTY: 1}
    from rich.console import Console

    from paraspan.cli.relations import render_relations

    console = Console(record=True, width=200)
    render_relations(summary, console)
    text = console.export_text()
    assert "forward_entailment" in text and "gold paraphrase" in text and "Table 8" in text


def test_an_unloaded_relation_filter_pickles():
    import pickle

    flt = build_filter({"name": "relation", "judges": ["minilm-nli:some/folder"], "agree": False})
    again = pickle.loads(pickle.dumps(flt))
    assert again.name == "relation" and again.accept == {"equivalence"} and again.agree is False
    assert again._load == flt._load


def test_new_content_is_not_compared(scripted):
    """Infilling writes new fillers into the frame: its outputs are not paraphrases of their source."""
    source = Sentence("s", S1)
    new = Sentence("o1", S2, source_id="s", provenance={"meaning": "new"})
    para = Sentence("o2", S2, source_id="s")
    judge = scripted({(S1, S2): E})
    d_new, d_para = decide_all(RelationFilter(judge, new_content=True), [(new, source), (para, source)])
    assert d_new.keep and "new content" in d_new.reason and "relation" not in new.provenance
    assert not d_para.keep and len(judge.calls) == 2  # only the paraphrase went to the judge
    judge.calls.clear()
    assert RelationFilter(judge, new_content=True).decide(new, source).keep and judge.calls == []  # no judge run


def test_new_content_is_refused_unless_asked_for(scripted):
    # nothing checks whether new phrases make sense, and infilling was judged mostly wrong (fn-infill-v3,
    # -v4): by default the meaning check refuses such outputs, saying how to keep them
    from paraspan.filter import build_filter
    from paraspan.filter.relations import NEW_CONTENT_REFUSED

    source = Sentence("s", S1)
    new = Sentence("o1", S2, source_id="s", provenance={"meaning": "new"})
    judge = scripted({})
    decision = RelationFilter(judge).decide(new, source)
    assert not decision.keep and decision.reason == NEW_CONTENT_REFUSED and judge.calls == []
    assert "new_content=true" in decision.reason
    assert build_filter({"name": "relation", "new_content": True}).new_content
    verified = build_filter({"name": "verified", "new_content": True})
    assert next(p for p in verified.parts if p.name == "relation").new_content
    assert not next(p for p in build_filter("verified").parts if p.name == "relation").new_content


def test_outputs_of_alternation_rules_are_not_shown_to_the_judges(scripted):
    """``unjudged_rules``: an output made only by listed rules is kept unjudged, with the reason;
    one that a listed and an unlisted rule made, or a substitute, goes to the judges."""
    from paraspan.filter.relations import ALTERNATION_RULES

    source = Sentence("s", S1)
    cleft = Sentence("o1", S2, source_id="s", provenance={"generated": {"rules": ["it-cleft"]}})
    mixed = Sentence("o2", S2, source_id="s", provenance={"generated": {"rules": ["it-cleft", "pp-to-genitive"]}})
    other = Sentence("o3", S2, source_id="s", provenance={"generated": {"substitute": "x"}})
    judge = scripted({(S1, S2): N, (S2, S1): N})
    relation = RelationFilter(judge, unjudged_rules=ALTERNATION_RULES)
    d_cleft, d_mixed, d_other = decide_all(relation, [(cleft, source), (mixed, source), (other, source)])
    assert d_cleft.keep and "it-cleft, an alternation not shown to the judges" in d_cleft.reason
    assert "relation" not in cleft.provenance
    assert not d_mixed.keep and not d_other.keep and len(judge.calls) == 4  # two outputs, both directions
    assert not RelationFilter(judge).decide(cleft, source).keep  # the plain filter judges every output


def test_verified_passes_the_alternation_rules_unless_told_otherwise():
    from paraspan.filter.relations import ALTERNATION_RULES

    def relation_part(check):
        return next(p for p in check.parts if p.name == "relation")

    assert relation_part(build_filter({"name": "verified", "labels": False, "fluency": False})).unjudged_rules \
        == frozenset(ALTERNATION_RULES)
    assert relation_part(build_filter({"name": "verified", "labels": False, "fluency": False,
                                       "unjudged_rules": []})).unjudged_rules == frozenset()
