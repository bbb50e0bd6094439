"""Diversity metrics on hand-made pairs."""

from __future__ import annotations

import json

import pytest

from paraspan.errors import CorpusError
from paraspan.evaluate.diversity import (
    bag_of_words,
    dependency_tree,
    diversity_report,
    intersection_over_union,
    length_ratio,
    one_minus_bleu,
    read_paraphrase_file,
    tree_edit_distance,
)


def test_intersection_over_union() -> None:
    assert bag_of_words("The cat, the CAT!") == {"the", "cat"}
    assert intersection_over_union("The cat sat.", "the cat sat") == 100.0
    assert intersection_over_union("a b c d", "a b x y") == pytest.approx(100 * 2 / 6)
    assert intersection_over_union("a b", "c d") == 0.0


def test_one_minus_bleu() -> None:
    assert one_minus_bleu("The cat sat on the mat.", "The cat sat on the mat.") == pytest.approx(0.0)
    assert one_minus_bleu("Dogs run fast", "The cat sat on the mat.") == pytest.approx(100.0)
    mid = one_minus_bleu("The cat sat on a rug.", "The cat sat on the mat.")
    assert 0 < mid < 100


def test_length_ratio() -> None:
    assert length_ratio("one two three four", "one two") == 2.0
    assert length_ratio("x", "") == 1.0


@pytest.fixture(scope="module")
def nlp():  # type: ignore[no-untyped-def]
    from paraspan.models.nlp import load_spacy

    return load_spacy(exclude=("ner",))


def test_tree_edit_distance(nlp) -> None:  # type: ignore[no-untyped-def]
    same = "The company sold its shares."
    assert tree_edit_distance(same, same, nlp) == 0
    assert tree_edit_distance(same, "The firm sold its stock.", nlp) == 0  # same shape and labels
    assert tree_edit_distance(same, "Its shares were sold by the company.", nlp) > 0


def test_tree_is_cut_at_three_levels(nlp) -> None:  # type: ignore[no-untyped-def]
    tree = dependency_tree(nlp("The very old man in the big house sold his car."))

    def depth(node) -> int:  # type: ignore[no-untyped-def]
        return 1 + max((depth(c) for c in node.children), default=0)

    assert tree.name == "DOC" and depth(tree) == 4  # virtual root + 3 levels
    assert all(c.name != "punct" for c in tree.children[0].children)


def test_report_and_collective_diversity(nlp) -> None:  # type: ignore[no-untyped-def]
    report = diversity_report([
        ("The company sold its shares.", ["The firm sold its stock.", "Its shares were sold by the company."]),
        ("Nothing here.", []),
    ], nlp=nlp)
    assert report.sources == 1 and report.pairs == 2 and report.sources_with_two_or_more == 1
    assert 0 < report.one_minus_bleu <= 100
    assert 0 < report.intersection_over_union < 100
    assert report.collective_one_minus_bleu > 0
    data = report.to_dict()
    assert set(data) >= {"one_minus_bleu", "intersection_over_union", "tree_edit_distance", "length_ratio"}
    assert diversity_report([], trees=False).pairs == 0


def test_read_paraphrase_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "p.jsonl"
    good.write_text(json.dumps({"id": "a", "text": "x y", "paraphrases": [{"text": "y x"}, "z"]}) + "\n")
    assert read_paraphrase_file(str(good)) == [("x y", ["y x", "z"])]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"id": "a", "text": "x", "paraphrases": []}) + "\n{oops\n")
    with pytest.raises(CorpusError) as err:
        read_paraphrase_file(str(bad))
    assert f"{bad}:2:" in str(err.value)
