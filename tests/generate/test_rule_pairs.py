"""``paraspan relabel --rules``: the rule rewriter's equivalents and deletions as training pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paraspan.cli.main import main
from paraspan.train.pairs import directed, read_labelled_pairs

ROWS = [
    {"id": "a", "s1": "The farmer quickly sold his old tractor to a neighbour.", "s2": "A farmer sold a tractor."},
    {"id": "b", "s1": "The farmer quickly sold his old tractor to a neighbour.", "s2": "Rain."},
]


def test_rules_write_pairs_the_training_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "pairs.jsonl", tmp_path / "rules.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in ROWS), encoding="utf-8")
    assert main(["relabel", str(src), "-o", str(out), "--rules", "--no-progress"]) == 0
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert rows and {r["judge"] for r in rows} == {"rules"}
    # each distinct sentence once: the repeated first sentence is rewritten once
    assert len({r["id"] for r in rows}) == len(rows)
    deletions = [r for r in rows if r["relation"] == "forward_entailment"]
    assert any("delete-adverb" in r["rules"] and "quickly" not in r["s2"] for r in deletions)
    assert all(len(r["s2"]) < len(r["s1"]) for r in deletions)
    assert "forward_entailment" in capsys.readouterr().err
    pairs = list(read_labelled_pairs(out))
    assert {p.relation for p in pairs} <= {"equivalence", "forward"}
    # a deletion teaches forward one way and reverse the other
    deletion = next(p for p in pairs if p.relation == "forward")
    assert {relation for _, _, relation in directed(deletion)} == {"forward", "reverse"}
