"""The IBM Model 2 baseline on a tiny bitext, and grow-diag-final-and."""

from __future__ import annotations

from paraspan.align.base import AlignTask
from paraspan.align.ibm2 import IBM2Aligner, grow_diag_final_and, read_bitext, train_direction

BITEXT = [
    ("the cat sleeps", "the cat naps"),
    ("the dog sleeps", "the dog naps"),
    ("a cat eats", "a cat dines"),
    ("the dog eats", "the dog dines"),
    ("a bird sleeps", "a bird naps"),
]


def test_em_learns_the_lexical_table() -> None:
    vocab: dict[str, int] = {}
    pairs = [([vocab.setdefault(w, len(vocab)) for w in s.split()], [vocab.setdefault(w, len(vocab)) for w in t.split()])
             for s, t in BITEXT]
    links = train_direction(pairs, iterations=10)
    assert links[0] == [0, 1, 2]  # the->the, cat->cat, naps->sleeps
    assert links[2] == [0, 1, 2]


def test_grow_diag_final_and() -> None:
    fwd = {(0, 0), (1, 1), (2, 3)}
    bwd = {(0, 0), (1, 1), (1, 2)}
    # (1, 2) is a neighbour of (1, 1) with target 2 unaligned: grown; (2, 3): final-and.
    assert grow_diag_final_and(fwd, bwd) == {(0, 0), (1, 1), (1, 2), (2, 3)}
    assert grow_diag_final_and(set(), set()) == set()


def test_aligner_spans_and_nulls(tmp_path) -> None:
    bitext = tmp_path / "extra.txt"
    bitext.write_text("".join(f"{s} ||| {t}\n" for s, t in BITEXT), encoding="utf-8")
    assert read_bitext(bitext)[0] == BITEXT[0]
    aligner = IBM2Aligner([bitext], iterations=10)
    tasks = [
        AlignTask("1", "the cat sleeps", "the cat naps", (8, 14)),  # sleeps -> naps
        AlignTask("2", "the dog eats", "the dog dines", (0, 7)),  # "the dog" -> "the dog"
        AlignTask("3", "the cat sleeps", "", (4, 7)),  # empty target: null
    ]
    results = aligner.align(tasks)
    assert results[0].pred == (8, 12)
    assert results[1].pred == (0, 7)
    assert results[2].pred is None


def test_aligner_without_bitext_and_identical_sentences() -> None:
    text = "Anna lives in Oslo ."
    results = IBM2Aligner().align([AlignTask("1", text, text, (14, 18)), AlignTask("2", text, text, (0, 4))])
    assert [r.pred for r in results] == [(14, 18), (0, 4)]
