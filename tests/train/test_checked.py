"""Teach only what the checks accept: training directions the word check refuses are left out (made-up pairs;
a scripted check, then the check ``paraspan paraphrase --relation`` applies)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from paraspan.errors import ParaspanError
from paraspan.train.checked import check_pairs, check_training_pairs, describe_check
from paraspan.train.pairs import (
    LabelledPair,
    PairExampleConfig,
    build_pair_examples,
    directed,
    read_labelled_pairs,
    relation_counts,
    write_labelled_pairs,
)


def _words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


class AddsNothing:
    """A scripted check: a forward target adds no word, a reverse target loses none, an equivalent one
    keeps every word (in any order); it records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, list[tuple[str, str]]]] = []

    def __call__(self, relation: str, pairs: Sequence[tuple[str, str]]) -> list[str | None]:
        self.asked.append((relation, list(pairs)))
        out: list[str | None] = []
        for source, target in pairs:
            added, lost = _words(target) - _words(source), _words(source) - _words(target)
            bad = {"forward": added and "added", "reverse": lost and "lost",
                   "equivalence": (added or lost) and "reworded"}[relation]
            out.append(bad or None)
        return out


PAIRS = [
    # a deletion: forward s1 → s2 and reverse s2 → s1 both pass
    LabelledPair("del", "The old farmer sold his tractor yesterday.", "The farmer sold his tractor.", "forward", 1),
    # a free rewrite judged forward: adds "machine", loses "tractor" either way
    LabelledPair("free", "The farmer sold his tractor yesterday.", "The farmer sold a machine.", "forward", 2),
    # a reordering: equivalent both ways
    LabelledPair("eq", "Yesterday the farmer sold his tractor.", "The farmer sold his tractor yesterday.",
                 "equivalence", 3),
    # judged equivalent, but one way adds words and the other loses them: neither direction stays
    LabelledPair("reword", "The farmer sold his tractor.", "The farmer sold his tractor to Anna.", "equivalence", 4),
    # a reverse pair (s2 more specific): s1 → s2 adds words only, s2 → s1 (forward) drops words only
    LabelledPair("rev", "A man is cooking.", "A tall man is cooking rice quickly.", "reverse", 5),
    # no relation: passes through untouched (build_pair_examples counts it as before)
    LabelledPair("alt", "A dog runs.", "A cat sleeps.", None, 6),
]


def test_only_the_directions_the_check_accepts_are_kept_and_counted_per_relation() -> None:
    check = AddsNothing()
    kept, report = check_pairs(PAIRS, check, PairExampleConfig(ban_share=0.0))
    assert [(p.id, p.ways) for p in kept] == [("del", "both"), ("eq", "both"), ("rev", "both"), ("alt", "both")]
    assert report["forward"] == {"checked": 3, "kept": 2, "dropped": 1, "why": {"added": 1}}
    assert report["reverse"] == {"checked": 3, "kept": 2, "dropped": 1, "why": {"lost": 1}}
    assert report["equivalence"] == {"checked": 4, "kept": 2, "dropped": 2, "why": {"reworded": 2}}
    # one call per relation, in PAIR_RELATIONS order, and the pair without a relation is never asked about
    assert [relation for relation, _ in check.asked] == ["equivalence", "forward", "reverse"]
    assert all("A dog runs." not in pair for _, asked in check.asked for pair in asked)
    examples = build_pair_examples(kept, PairExampleConfig(ban_share=0.0))
    assert relation_counts(examples) == {"equivalence": 2, "forward": 2, "reverse": 2}


def test_a_pair_keeps_the_one_direction_that_passes() -> None:
    def forward_only(relation: str, pairs: Sequence[tuple[str, str]]) -> list[str | None]:
        return [None if relation == "forward" else "no content word added" for _ in pairs]

    pair = LabelledPair("p", "The old farmer sold his tractor.", "The farmer sold a tractor.", "forward", 1)
    kept, report = check_pairs([pair], forward_only)
    assert [p.ways for p in kept] == ["s1>s2"]
    assert directed(kept[0]) == [(pair.s1, pair.s2, "forward")]
    assert report["reverse"]["why"] == {"no content word added": 1}
    # read backwards (a reverse pair), the forward direction is s2 > s1
    backwards = LabelledPair("b", pair.s2, pair.s1, "reverse", 1)
    kept, _ = check_pairs([backwards], forward_only)
    assert [p.ways for p in kept] == ["s2>s1"] and directed(kept[0]) == [(pair.s1, pair.s2, "forward")]
    nothing, _ = check_pairs([pair], lambda relation, pairs: ["refused"] * len(pairs))
    assert nothing == []


def test_directions_that_would_not_teach_are_not_checked() -> None:
    check = AddsNothing()
    long = LabelledPair("long", "A man cooks.", "A tall man with a red hat cooks rice in a big pot today.", "reverse", 1)
    gold = LabelledPair("gold", "Prices rose sharply in May.", "Prices rose in May.", "equivalence", 2,
                        gold={"paraphrase": 0})
    kept, report = check_pairs([long, gold], check, relations=["forward", "reverse"])
    assert kept == [long, gold] and report == {} and check.asked == []


def test_checked_pairs_written_and_read_back_teach_the_same(tmp_path: Path) -> None:
    kept, _ = check_pairs(PAIRS + [LabelledPair("one", "The old farmer sold it.", "The farmer sold it.", "forward",
                                                7, gold={"nli": "entailment"})],
                          lambda relation, pairs: [None if relation != "reverse" else "lost" for _ in pairs])
    path = tmp_path / "checked.jsonl"
    assert write_labelled_pairs(path, kept) == len(kept)
    back = list(read_labelled_pairs(path))
    assert [(p.id, p.s1, p.s2, p.relation, p.ways, p.gold) for p in back] == \
        [(p.id, p.s1, p.s2, p.relation, p.ways, p.gold) for p in kept]
    config = PairExampleConfig(ban_share=0.0)
    assert build_pair_examples(back, config) == build_pair_examples(kept, config)
    assert relation_counts(build_pair_examples(back, config)) == {"equivalence": 4, "forward": 4}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"s1": "A b.", "s2": "A c.", "relation": "equivalence", "ways": "s1-s2"}) + "\n")
    with pytest.raises(ParaspanError) as caught:
        list(read_labelled_pairs(bad))
    assert caught.value.code == "E523" and f"{bad}:1:" in str(caught.value) and "s1>s2" in str(caught.value)


def test_training_and_dev_pairs_are_checked_and_the_card_records_it() -> None:
    pairs, dev, record = check_training_pairs(PAIRS, PAIRS[:2], AddsNothing(), PairExampleConfig(ban_share=0.0))
    assert record["applied"] and record["train"]["forward"]["kept"] == 2 and record["dev"]["forward"]["dropped"] == 1
    assert [p.id for p in pairs] == ["del", "eq", "rev", "alt"] and [p.id for p in dev or []] == ["del"]
    assert describe_check(record).startswith("word check kept equivalence 2 of 4 (dropped: reworded 2); forward 2 of 3")
    same, no_dev, off = check_training_pairs(PAIRS, None, None)
    assert same == PAIRS and no_dev is None and off == {"applied": False}
    assert "off" in describe_check(off)


def test_the_command_checks_with_the_word_check_of_paraphrase_relation() -> None:
    """The check ``train-generator`` passes is ``paraphrase --relation``'s (spaCy's small parser, WordNet)."""
    from paraspan.cli.train import _word_check

    source = "The quick verdict followed a long hearing, during which the nurse spoke for herself."
    assert _word_check("forward", [(source, "The verdict followed a hearing."),
                                   (source, "The nurse spoke for herself in a long hearing that followed a verdict."),
                                   (source, "The verdict followed a hearing in Paris.")]) == \
        [None, "rearranged", "added"]
