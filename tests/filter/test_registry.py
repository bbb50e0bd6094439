"""The filter registry and the spec grammar of build_filter / build_filters."""

from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import RECORDED, BaseFilter, Filter, FilterDecision, build_filter, build_filters, filters
from paraspan.filter.base import decide_all
from paraspan.filter.thresholds import PRESETS, ThresholdFilter


def prov(iteration, forward, anchor):
    return {"iteration": iteration, "paraphrase": {"forward": forward}, "aligner": {"anchor": anchor, "spans": []}}


def test_registered_names():
    assert {"threshold", "learned", "relation"} <= set(filters.names())
    assert set(filters.options("threshold")) == {"rule", "record_as"}
    assert set(filters.options("learned")) == {"path", "record_as"}
    assert {"judges", "accept", "agree", "record_as"} <= set(filters.options("relation"))


@pytest.mark.parametrize("spec", ["lax", "iteration<=2&aligner>=0.9", "lax&min_span>=0.5", "all"])
def test_strings_are_presets_or_rules_named_as_written(spec):
    flt = build_filter(spec)
    assert isinstance(flt, ThresholdFilter) and flt.name == spec


def test_mappings_name_a_factory_and_its_options():
    flt = build_filter({"name": "threshold", "rule": "iter1", "record_as": "first"})
    assert flt.name == "first" and [str(c) for c in flt.clauses] == ["iteration<=1"]
    assert build_filter({"name": "strict"}).name == "strict"  # a bare preset in a mapping


def test_presets_and_rules_decide_as_before():
    keep = Sentence("a", "x", source_id="s", provenance=prov(1, -0.5, 0.99))
    drop = Sentence("b", "y", source_id="s", provenance=prov(4, -0.5, 0.99))
    flt = build_filter("iter3&para0.6")
    assert [d.keep for d in decide_all(flt, [(keep, None), (drop, None)])] == [True, False]
    decision = flt.decide(drop)
    assert decision == FilterDecision(False, None, "iteration 4 fails iteration<=3")


@pytest.mark.parametrize("spec", ["nope", "iterations<=2", "aligner>>2", "lax&", " "])
def test_bad_specs_name_the_filters_and_presets(spec):
    if spec == "lax&":  # an empty part is skipped, as before
        assert build_filter(spec).name == "lax&"
        return
    with pytest.raises(ParaspanError) as err:
        build_filter(spec)
    hint = err.value.problem.hint
    assert "relation" in hint and "learned:PATH" in hint and "align-p95" in hint and "FIELD OP NUMBER" in hint


def test_bad_mappings():
    with pytest.raises(ParaspanError, match="does not say which filter") as err:
        build_filter({"accept": ["equivalence"]})
    assert err.value.code == "E712"
    with pytest.raises(ParaspanError, match="unknown filter 'relations'") as err:
        build_filter({"name": "relations", "accept": ["equivalence"]})
    assert "relation" in err.value.problem.hint
    with pytest.raises(ParaspanError, match="no option 'rules'"):
        build_filter({"name": "threshold", "rules": "lax"})
    with pytest.raises(ParaspanError, match="bad options"):
        build_filter("threshold")  # a registered name with a required option


def test_a_mapping_written_as_json_is_a_spec():
    # what a command's --filter takes: `paraspan infill --filter '{"name": "verified", "new_content": true}'`
    got = build_filter('{"name": "threshold", "rule": "iteration<=2"}')
    assert got.name == "iteration<=2"
    for bad, why in (('{"name": ', "as JSON"), ('{"rule": "lax"}', "does not say which filter")):
        with pytest.raises(ParaspanError, match=why) as err:
            build_filter(bad)
        assert err.value.code == "E712"


def test_build_filters_dedups_and_refuses_name_clashes():
    got = build_filters([*RECORDED, "lax", "iteration<=2"])
    assert [f.name for f in got] == [*RECORDED, "iteration<=2"]
    assert build_filters(["iter1", {"name": "threshold", "rule": "iter1"}])[0].name == "iter1"
    with pytest.raises(ParaspanError, match="recorded as 'iter1'") as err:
        build_filters(["iter1", {"name": "threshold", "rule": "iter3", "record_as": "iter1"}])
    assert err.value.code == "E713"
    assert set(RECORDED) == set(PRESETS)


class _Toy(BaseFilter):
    """A filter from outside the package: keeps outputs shorter than their source."""

    def __init__(self, slack: int = 0, record_as: str | None = None) -> None:
        self.slack = slack
        self.name = record_as or "toy"

    def decide(self, output: Sentence, source: Sentence | None = None) -> FilterDecision:
        assert source is not None
        diff = len(output.text) - len(source.text)
        return FilterDecision(diff <= self.slack, float(diff), f"{diff:+d} characters")


def toy_filter(slack: int = 0, record_as: str | None = None) -> _Toy:
    return _Toy(slack, record_as)


def test_a_filter_registered_from_outside_is_built_by_name():
    filters.register("toy", toy_filter, "keep shorter rewrites")
    try:
        flt = build_filter({"name": "toy", "slack": 2})
        assert isinstance(flt, Filter)
        source = Sentence("s", "abcd")
        pairs = [(Sentence("o1", "abcdef", source_id="s"), source), (Sentence("o2", "abcdefg", source_id="s"), source)]
        assert [(d.keep, d.score) for d in decide_all(flt, pairs)] == [(True, 2.0), (False, 3.0)]
        assert [f.name for f in build_filters(["lax", "toy"])] == ["lax", "toy"]
        with pytest.raises(ParaspanError, match="slack"):
            build_filter({"name": "toy", "slack": "wide"})
    finally:
        del filters.entries["toy"]


def test_decide_all_uses_decide_without_a_batch_method():
    class Plain:
        name = "plain"

        def decide(self, output, source=None):
            return FilterDecision(True, None, output.id)

    outs = [Sentence(str(i), "x") for i in range(3)]
    assert [d.reason for d in decide_all(Plain(), [(o, None) for o in outs])] == ["0", "1", "2"]
