"""Learned rules: extraction consistent with the alignment, generalisation, application, files."""

from __future__ import annotations

import json

import pytest

from paraspan.errors import CorpusError
from paraspan.generate.rewrite.core import render
from paraspan.generate.rewrite.learned import (
    AlignedPair,
    Pattern,
    apply_pattern,
    extract_pair,
    identity_links,
    learn_rules,
    load_learned,
    read_multimwa,
    save_rules,
)
from paraspan.generate.rewrite.rules import RuleSet
from paraspan.models import load_spacy


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def test_identity_alignment_and_reordering_rule(nlp):
    d1, d2 = nlp("Yesterday, the farmer sold the tractor."), nlp("The farmer sold the tractor yesterday.")
    links = identity_links(d1, d2)
    assert (0, 5) in links  # yesterday ↔ yesterday (lemma, case-insensitive)
    patterns = extract_pair(d1, d2, links)
    verb = [p for p in patterns if p.head_pos == "VERB"]
    assert len(verb) == 1
    p = verb[0]
    kept = [p.src[t] for t in p.tgt if isinstance(t, int)]
    assert "punct" in p.src and kept[-2:] == ["npadvmod", "punct"] and kept[:2] == ["nsubj", "^"]
    # identical trees give no rule at all
    assert extract_pair(d1, nlp("Yesterday, the farmer sold the tractor."), identity_links(d1, d1)) == []
    # a repeated word ("the") that identity alignment cannot place is not a substitution rule
    assert all(q.head_pos != "NOUN" for q in patterns)
    # the rule generalises to other words with the same configuration
    doc = nlp("Today, the baker sold the bread.")
    texts = [render(doc, pieces)[0] for pieces in apply_pattern(p, doc)]
    assert texts == ["The baker sold the bread today."]


def test_deletion_and_insertion(nlp):
    d1, d2 = nlp("He also sold the old car."), nlp("He sold the car.")
    patterns = extract_pair(d1, d2, identity_links(d1, d2))
    described = {p.describe() for p in patterns}
    assert "[nsubj advmod VERB dobj punct] → [nsubj VERB dobj punct]" in described
    assert "[det amod NOUN] → [det NOUN]" in described


def test_inconsistent_alignment_gives_no_rule(nlp):
    d1, d2 = nlp("The farmer sold the tractor."), nlp("The tractor sold the farmer.")
    # "the" (0) aligned twice: only one-to-one links count, and the subject's subtree now has an
    # aligned word whose image is outside every target dependent → no rule at the verb
    assert extract_pair(d1, d2, [(0, 3), (0, 0), (1, 1), (2, 2), (3, 3), (4, 4), (5, 5)]) == []


def test_min_count_and_file_round_trip(nlp, tmp_path):
    pair = AlignedPair("he also sold the car .".split(), "he sold the car .".split(), None, None,
                       [(0, 0), (2, 1), (3, 2), (4, 3), (5, 4)])
    rare = AlignedPair("she left .".split(), "she left early .".split(), None, None, [(0, 0), (1, 1), (2, 3)])
    rules, stats = learn_rules([pair, pair, pair, rare], nlp, min_count=3)
    assert stats["pairs"] == 4
    assert [c for _, c in rules] == [3]
    path = tmp_path / "learned.json"
    save_rules(rules, path, sources={"test": True})
    loaded = load_learned(path)
    assert [r.name for r in loaded] == [rules[0][0].name] and loaded[0].count == 3 and loaded[0].kind == "learned"
    assert rules[0][0].name in RuleSet.from_file(path).names()
    assert Pattern.from_dict(json.loads(path.read_text())["rules"][0]["pattern"]) == rules[0][0]


def test_multimwa_reader_reports_bad_lines(tmp_path):
    good = "0:0\tthe cat sat\tN/A\tthe cat sat down\tN/A\t1\t1\t0-0 1-1 2-2\t\n"
    path = tmp_path / "a.tsv"
    path.write_text(good + "1:1\tonly\tthree\n", encoding="utf-8")
    it = read_multimwa(path)
    first = next(it)
    assert first.tokens1 == ["the", "cat", "sat"] and first.links == [(0, 0), (1, 1), (2, 2)]
    with pytest.raises(CorpusError) as err:
        next(it)
    assert err.value.problem.line == 2
    bad_links = tmp_path / "b.tsv"
    bad_links.write_text(good.replace("0-0", "0:0"), encoding="utf-8")
    with pytest.raises(CorpusError):
        list(read_multimwa(bad_links))


def test_shipped_rules_load():
    rules = RuleSet.default()
    learned = [r for r in rules.rules if r.kind == "learned"]
    assert len(learned) >= 20
    assert all(r.count is not None and r.count >= 3 for r in learned)
