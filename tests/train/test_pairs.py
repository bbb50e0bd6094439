"""Paraphrase training examples from relabelled pairs (no model)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from paraspan.errors import ParaspanError
from paraspan.text.constraints import expand_bans
from paraspan.train.lora import TrainConfig
from paraspan.train.pairs import (
    MIN_PER_RELATION,
    LabelledPair,
    PairExampleConfig,
    avoid_words,
    build_pair_examples,
    directed,
    keep_phrases,
    read_labelled_pairs,
    relation_counts,
    render_paraphrase_prompt,
    select_examples,
    split_pairs,
)
from paraspan.train.run import prepare_pair_examples


def _relabelled(path: Path, rows: list[tuple[str, str, str]]) -> Path:
    """A file in `paraspan relabel`'s output format."""
    with path.open("w", encoding="utf-8") as handle:
        for i, (s1, s2, relation) in enumerate(rows):
            handle.write(json.dumps({"id": f"p{i}", "s1": s1, "s2": s2, "forward": "entailment",
                                     "backward": "neutral", "relation": relation, "agree": None,
                                     "judge": "minilm-nli", "truncated": False}) + "\n")
    return path


def _pairs(relation: str, count: int, start: int = 0) -> list[tuple[str, str, str]]:
    return [(f"The tall farmer number {i} quickly sold his old tractor yesterday.",
             f"The farmer number {i} sold a tractor.", relation) for i in range(start, start + count)]


def test_relabel_output_is_read_and_each_pair_teaches_both_directions(tmp_path: Path) -> None:
    path = _relabelled(tmp_path / "rel.jsonl", [("A man is cooking food.", "A man is cooking.", "forward_entailment"),
                                                ("A dog runs.", "A cat sleeps.", "alternation"),
                                                ("A boy jumps.", "A kid is jumping.", "equivalence")])
    pairs = list(read_labelled_pairs(path))
    assert [p.relation for p in pairs] == ["forward", None, "equivalence"]
    assert directed(pairs[0]) == [("A man is cooking food.", "A man is cooking.", "forward"),
                                  ("A man is cooking.", "A man is cooking food.", "reverse")]
    assert directed(pairs[1]) == []
    assert [r for _, _, r in directed(pairs[2])] == ["equivalence", "equivalence"]
    examples = build_pair_examples(pairs, PairExampleConfig(ban_share=0.0, keep_share=0.0))
    assert relation_counts(examples) == {"equivalence": 2, "forward": 1, "reverse": 1}
    forward = next(e for e in examples if e.structure == "forward")
    assert forward.prompt == "### paraphrase forward\nA man is cooking food.\n=> "
    assert forward.answer == "A man is cooking."


def test_plain_pair_files_with_a_relation_column(tmp_path: Path) -> None:
    three = tmp_path / "three.tsv"
    three.write_text("A man is cooking food.\tA man is cooking.\tforward\n", encoding="utf-8")
    four = tmp_path / "four.tsv"
    four.write_text("x1\tA man is cooking.\tA man is cooking food.\treverse_entailment\n", encoding="utf-8")
    header = tmp_path / "header.csv"
    header.write_text("relation,s1,s2\nequivalence,A boy jumps.,A kid is jumping.\n", encoding="utf-8")
    assert [(p.id, p.relation) for p in read_labelled_pairs(three)] == [("1", "forward")]
    assert [(p.id, p.relation) for p in read_labelled_pairs(four)] == [("x1", "reverse")]
    assert [(p.s1, p.relation) for p in read_labelled_pairs(header)] == [("A boy jumps.", "equivalence")]


def test_a_one_column_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("A man cooks.\tA man is cooking.\tequivalence\nonly one column here\n", encoding="utf-8")
    with pytest.raises(ParaspanError) as caught:
        list(read_labelled_pairs(path))
    assert caught.value.code == "E520"
    assert str(caught.value).startswith(f"{path}:2: the line has 1 column(s)")


def test_a_relation_the_judges_cannot_give_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = _relabelled(tmp_path / "rel.jsonl", [("A man cooks.", "A man is cooking.", "equivalence"),
                                                ("A man cooks.", "A woman cooks.", "paraphrase")])
    with pytest.raises(ParaspanError) as caught:
        list(read_labelled_pairs(path))
    assert caught.value.code == "E521"
    assert f"{path}:2:" in str(caught.value) and "'paraphrase'" in str(caught.value)
    assert "forward_entailment" in str(caught.value)


def test_pairs_without_a_relation_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "pairs.tsv"
    path.write_text("A man cooks.\tA man is cooking.\n", encoding="utf-8")
    with pytest.raises(ParaspanError) as caught:
        list(read_labelled_pairs(path))
    assert caught.value.code == "E523" and f"{path}:1:" in str(caught.value)
    raw = tmp_path / "raw.jsonl"
    raw.write_text(json.dumps({"id": "a", "s1": "A man cooks.", "s2": "A man is cooking."}) + "\n")
    with pytest.raises(ParaspanError, match="relabel"):
        list(read_labelled_pairs(raw))


def test_too_few_pairs_of_a_relation_names_the_count_and_the_minimum(tmp_path: Path) -> None:
    rows = _pairs("equivalence", 60) + _pairs("forward_entailment", 5, start=100)
    pairs = list(read_labelled_pairs(_relabelled(tmp_path / "rel.jsonl", rows)))
    config = TrainConfig(base="small", dev_examples=0)
    with pytest.raises(ParaspanError) as caught:
        prepare_pair_examples(pairs, config, relations=["equivalence", "forward"])
    assert caught.value.code == "E522"
    assert "only 5 training examples of the relation forward" in str(caught.value)
    assert f"at least {MIN_PER_RELATION}" in str(caught.value) and "--relations equivalence" in str(caught.value)
    train, _, facts = prepare_pair_examples(pairs, config, relations=["equivalence"])
    assert facts["relation_counts"]["train"] == {"equivalence": 120} and len(train) == 120
    with pytest.raises(ParaspanError, match="E526|not allowed"):
        prepare_pair_examples(pairs, config, relations=["more-general"])


def test_avoid_words_are_source_content_words_the_target_has_in_no_form() -> None:
    source, target = "Anna quickly bought 3 old bicycles in Vienna.", "Anna purchased 3 old bikes in Vienna."
    rng = random.Random(0)
    for _ in range(20):
        avoid = avoid_words(source, target, rng, 2)
        assert 1 <= len(avoid) <= 2
        assert not expand_bans(avoid).find_leaks(target)
        assert not {"Anna", "Vienna", "3", "old"} & set(avoid)
    assert avoid_words("The dog runs.", "The dog runs fast.", rng, 2) == []
    prompt = render_paraphrase_prompt(source, "equivalence", ["bought"])
    assert prompt.splitlines()[:2] == ["### paraphrase equivalence", "avoid: bought"]


def test_keep_phrases_are_runs_of_source_words_the_target_copies_verbatim() -> None:
    source = "The old committee, led by Anna Berg, approved the new budget on Monday."
    target = "Led by Anna Berg, the old committee passed the new budget on Monday."
    rng = random.Random(0)
    seen = set()
    for _ in range(30):
        keep = keep_phrases(source, target, rng, 3)
        assert 1 <= len(keep) <= 3
        for phrase in keep:
            assert phrase in source and phrase.strip(",.") == phrase
            assert " ".join(w.strip(",.") for w in phrase.split()) in target.replace(",", "")
            assert "approved" not in phrase
        assert keep == sorted(keep, key=source.index)
        seen.update(keep)
    assert {"old committee", "by Anna Berg", "the new budget on Monday"} <= seen  # "led" is "Led" there
    assert keep_phrases("A dog runs.", "A cat sleeps.", rng, 2) == []  # only function words shared
    prompt = render_paraphrase_prompt(source, "equivalence", ["approved"], ["led by Anna Berg", "x | y"])
    assert prompt.splitlines()[:3] == ["### paraphrase equivalence", "avoid: approved", "keep: led by Anna Berg"]


def test_a_share_of_examples_names_phrases_to_keep_and_the_answer_has_them() -> None:
    pairs = [LabelledPair(str(i), f"The farmer number {i} quickly sold his old tractor.",
                          f"The farmer number {i} sold his old tractor fast.", "equivalence", i + 1) for i in range(40)]
    examples = build_pair_examples(pairs, PairExampleConfig(ban_share=0.0, keep_share=0.5))
    keeps = [line[len("keep: "):] for e in examples for line in e.prompt.splitlines() if line.startswith("keep: ")]
    assert 20 <= len(keeps) <= 60
    answers = {e.answer for e in examples}
    for listed in keeps:
        for phrase in listed.split(" | "):
            assert any(phrase in a for a in answers)
    assert not any("keep: " in e.prompt for e in build_pair_examples(pairs, PairExampleConfig(keep_share=0.0)))


def test_examples_are_balanced_across_relations_and_dev_holds_whole_pairs() -> None:
    pairs = [LabelledPair(str(i), f"Sentence number {i} is here today.", f"Sentence number {i} is here.",
                          "forward" if i % 5 == 0 else "equivalence", i + 1) for i in range(100)]
    examples = build_pair_examples(pairs, PairExampleConfig(ban_share=0.0))
    picked = select_examples(examples, 60, ["equivalence", "forward", "reverse"])
    assert relation_counts(picked) == {"equivalence": 20, "forward": 20, "reverse": 20}
    train, dev = split_pairs(pairs, 0.1, seed=0)
    assert len(dev) == 10 and not {p.id for p in train} & {p.id for p in dev}
    assert split_pairs(pairs, 0.1, seed=0)[1] == dev


def test_a_gold_label_that_contradicts_the_judges_leaves_the_pair_out() -> None:
    pair = LabelledPair("m", "Prices rose sharply in May.", "Prices rose in May.", "equivalence", 1,
                        gold={"paraphrase": 0})
    assert build_pair_examples([pair]) == []
    assert len(build_pair_examples([pair], PairExampleConfig(gold_check=False))) == 2
    sick = [LabelledPair("s", "A man is slicing a tomato.", "A man is slicing food.", relation, 1, gold={"nli": nli})
            for relation, nli in (("forward", "neutral"), ("reverse", "entailment"), ("forward", "entailment"),
                                  ("reverse", "neutral"))]
    assert [len(build_pair_examples([p])) for p in sick] == [0, 0, 2, 2]


def test_the_target_ends_a_sentence_when_its_source_does() -> None:
    pair = LabelledPair("e", "A man is cooking food.", "A man is cooking", "forward", 1)
    forward, reverse = sorted(build_pair_examples([pair], PairExampleConfig(ban_share=0.0)), key=lambda e: e.structure)
    assert forward.answer == "A man is cooking." and reverse.answer == "A man is cooking food."
    stsb = LabelledPair("s", "A man plays a flute.", "A man plays music.", "equivalence", 1, gold={"similarity": 2.4})
    assert build_pair_examples([stsb]) == []
