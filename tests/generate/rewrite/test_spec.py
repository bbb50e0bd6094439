"""Rules as data: the spec and word-list files, their errors, content-derived versions, failing rules."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from paraspan.errors import CorpusError
from paraspan.generate.rewrite.core import Piece, Rule, RuleContext
from paraspan.generate.rewrite.generator import Rewriter, RuleFailure
from paraspan.generate.rewrite.rules import RuleSet, hand_rules, rewrite_rules
from paraspan.generate.rewrite.spec import load_specs, shipped_path
from paraspan.generate.rewrite.wordlists import load_wordlists, word_list
from paraspan.generate.rewrite.wordlists import shipped_path as shipped_wordlists
from paraspan.models import load_spacy


def _shipped() -> dict:
    return json.loads(shipped_path().read_text(encoding="utf-8"))


def _write(tmp_path: Path, data: dict, name: str = "rules.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def test_every_hand_rule_is_a_spec_with_a_hashed_version():
    specs = load_specs()
    assert len(specs) >= 21
    names = {r.name for r in hand_rules()}
    assert set(specs) <= names
    for name, spec in specs.items():
        rule = rewrite_rules.get(name)
        assert rule.kind == "hand" and len(rule.version) == 12 and rule.version == spec.version
    assert len({spec.version for spec in specs.values()}) == len(specs)


def test_version_follows_the_content(tmp_path):
    data = _shipped()
    before = load_specs(_write(tmp_path, data, "a.json"))["active-to-passive"].version
    assert load_specs(_write(tmp_path, data, "b.json"))["active-to-passive"].version == before
    data["rules"]["active-to-passive"]["vetoes"].remove("generic-you-subject")
    assert load_specs(_write(tmp_path, data, "c.json"))["active-to-passive"].version != before


def test_a_rule_from_another_spec_file_applies_it(tmp_path):
    data = _shipped()
    data["rules"] = {"it-cleft": data["rules"]["it-cleft"]}
    data["rules"]["it-cleft"]["vetoes"] = []
    spec = load_specs(_write(tmp_path, data))["it-cleft"]
    doc = load_spacy()("The farmer sold the tractor.")
    assert spec.apply(doc, RuleContext())


def test_spec_that_does_not_parse_names_file_and_line(tmp_path):
    path = tmp_path / "rules.json"
    path.write_text('{"format": "paraspan-rewrite-rules",\n "rules": {\n  "x": }\n}', encoding="utf-8")
    with pytest.raises(CorpusError) as err:
        load_specs(path)
    assert err.value.code == "E470" and err.value.problem.file == str(path) and err.value.problem.line == 3


def test_unknown_veto_is_an_error_at_its_line_when_the_rules_load(tmp_path):
    data = _shipped()
    data["rules"]["genitive-to-pp"]["vetoes"].append("kind-not-a-possession")
    path = _write(tmp_path, data)
    with pytest.raises(CorpusError) as err:
        load_specs(path)
    problem = err.value.problem
    assert err.value.code == "E472" and "kind-not-a-possession" in problem.message
    assert "genitive-to-pp" in problem.message
    assert path.read_text(encoding="utf-8").splitlines()[problem.line - 1].strip().startswith('"kind-not-a-possession"')
    assert problem.hint.startswith("use one of: kind-not-possession")  # the nearest known name first


@pytest.mark.parametrize(("change", "code", "needle"), [
    (lambda r: r.update(renderer="nowhere"), "E472", "renderer"),
    (lambda r: r.update(sites="nowhere"), "E472", "site source"),
    (lambda r: r.update(family="poetry"), "E472", "family"),
    (lambda r: r.update(colour="red"), "E471", "colour"),
    (lambda r: r.pop("renderer"), "E471", "renderer"),
    (lambda r: r.update(where={"v": {"TAG": ["VBD"]}}), "E471", "TAG"),
    (lambda r: r.update(where={"v": {"SHAPE": {"IN": ["Xx"]}}}), "E472", "token attribute"),
    (lambda r: r.update(where={"v": {"LEMMA": {"IN": ["@no-such-list"]}}}), "E472", "word list"),
    (lambda r: r.update(args={"colour": 1}), "E472", "argument"),
])
def test_bad_spec_is_an_error_with_file_line_and_fix(tmp_path, change, code, needle):
    data = _shipped()
    change(data["rules"]["it-cleft"])
    path = _write(tmp_path, data)
    with pytest.raises(CorpusError) as err:
        load_specs(path)
    assert err.value.code == code and needle in err.value.problem.message
    assert err.value.problem.file == str(path) and err.value.problem.line and err.value.problem.hint


def test_word_lists_give_each_entry_its_reason():
    lists = load_wordlists()
    assert len(lists) >= 50
    for wl in lists.values():
        assert wl.words and all(wl.reasons[w].strip() for w in wl.words)
    assert word_list("governed-preps").values["insist"] == "on"
    assert "escape" in word_list("no-passive").words


def test_missing_or_malformed_word_list_file_is_an_error(tmp_path):
    with pytest.raises(CorpusError) as err:
        load_wordlists(tmp_path / "none.json")
    assert err.value.code == "E473"
    data = json.loads(shipped_wordlists().read_text(encoding="utf-8"))
    data["lists"]["focus"]["entries"][0].pop("reason")
    path = _write(tmp_path, data, "lists.json")
    with pytest.raises(CorpusError) as err:
        load_wordlists(path)
    assert err.value.code == "E473" and '"focus"' in err.value.problem.message
    assert path.read_text(encoding="utf-8").splitlines()[err.value.problem.line - 1].strip().startswith('"focus"')
    with pytest.raises(CorpusError) as err:
        word_list("no-such-list")
    assert err.value.code == "E474"


def _broken(doc, ctx) -> list[list[Piece]]:
    raise IndexError("a misparse this rule did not foresee")


def test_a_failing_rule_is_logged_with_rule_and_sentence_or_raised_when_strict(caplog):
    from paraspan.corpus.schema import Sentence

    rules = RuleSet([Rule("broken", "reorder", "hand", _broken), rewrite_rules.get("it-cleft")])
    sentence = Sentence("s1", "The farmer sold the tractor.", [])
    with caplog.at_level(logging.WARNING, logger="paraspan.generate.rewrite.generator"):
        out = Rewriter(rules, nlp=load_spacy()).rewrite_sentence(sentence)
    assert [o.provenance["rules"] for o in out] == [["it-cleft"]]
    assert "broken" in caplog.text and "s1" in caplog.text and "IndexError" in caplog.text
    with pytest.raises(RuleFailure) as err:
        Rewriter(rules, nlp=load_spacy(), strict=True).rewrite_sentence(sentence)
    assert err.value.rule == "broken" and err.value.sentence_id == "s1"


def test_two_vetoes_under_one_name_are_refused():
    from paraspan.generate.rewrite.spec import veto

    def another(site) -> bool:
        return False

    load_specs()  # the rules modules registered theirs
    with pytest.raises(ValueError, match="two veto functions named 'headline'"):
        veto("headline")(another)


def test_a_rule_survives_pickling():
    import pickle

    rule = pickle.loads(pickle.dumps(rewrite_rules.get("it-cleft")))
    doc = load_spacy()("The farmer sold the tractor.")
    assert rule.apply(doc, RuleContext()) and rule.version == rewrite_rules.get("it-cleft").version


def test_version_covers_the_helpers_and_their_word_lists():
    functions, lists = load_specs()["delete-adverb"].depends_on()
    names = {fn.__qualname__ for fn in functions}
    assert {"downward", "quoted", "tidy"} <= names  # helpers the vetoes and the renderer call
    assert {"downward", "downward-heads", "no-delete-adverbs"} <= set(lists)  # named in a helper or the spec
