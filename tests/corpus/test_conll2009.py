"""CoNLL-2009 SRL reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraspan.corpus.conll2009 import read_conll2009
from paraspan.corpus.formats import read_corpus
from paraspan.corpus.schema import Sentence, Structure
from paraspan.errors import CorpusError

SMALL = Path(__file__).parent / "fixtures" / "small.conll2009"


def _args(sentence: Sentence, structure: Structure) -> list[tuple[str | None, str]]:
    return [(a.label, a.text_in(sentence.text)) for a in structure.args]


def _row(i: int, form: str, head: str, fill: str = "_", pred: str = "_", *args: str) -> str:
    lemma = form.lower()
    return "\t".join([str(i), form, lemma, lemma, "NN", "NN", "_", "_", head, head, "DEP", "DEP", fill, pred,
                      *args])


def test_reads_predicates_and_subtree_args() -> None:
    first, second = read_conll2009(SMALL)
    assert first.id == "small:1"
    assert first.text == "The committee approved the new budget for schools."
    approve, budget = first.structures
    assert approve.kind == "srl" and approve.label == "approve.01"
    assert approve.anchor is not None and approve.anchor.label == "approve"
    assert _args(first, approve) == [("A0", "The committee"), ("A1", "the new budget for schools")]
    # a nominal predicate (FILLPRED = Y on a noun)
    assert _args(first, budget) == [("A1", "for schools")]
    assert second.text == "Prices fell sharply."
    assert _args(second, second.structures[0]) == [("A1", "Prices"), ("AM-MNR", "sharply")]
    assert second.meta["conllu"]["head"] == [2, 0, 2, 2]
    assert second.meta["conllu"]["xpos"][0] == "NNS"


def test_registry_name_and_trim_option() -> None:
    sentences = list(read_corpus(SMALL, "conll2009", trim_punct=True))
    assert len(sentences) == 2


@pytest.mark.parametrize(
    ("lines", "line", "code"),
    [
        # too few columns
        ([_row(1, "Dogs", "2", "_", "_", "A0"), "2\tbark\tbark"], 2, "E201"),
        # non-integer head
        ([_row(1, "Dogs", "two", "_", "_", "A0"), _row(2, "bark", "0", "Y", "bark.01", "_")], 1, "E203"),
        # ID not an integer
        ([_row(1, "Dogs", "2", "_", "_", "A0"), "x" + _row(2, "bark", "0", "Y", "bark.01", "_")[1:]], 2, "E202"),
        # predicate without an APRED column
        ([_row(1, "Dogs", "2", "Y", "dog.01"), _row(2, "bark", "0", "Y", "bark.01")], 1, "E205"),
        # APRED column count differs between rows
        ([_row(1, "Dogs", "2", "_", "_", "A0"), _row(2, "bark", "0", "Y", "bark.01")], 2, "E205"),
        # bad FILLPRED
        ([_row(1, "Dogs", "2", "N", "_", "A0"), _row(2, "bark", "0", "Y", "bark.01", "_")], 1, "E201"),
    ],
)
def test_malformed_lines(tmp_path: Path, lines: list[str], line: int, code: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(read_conll2009(path))
    assert (info.value.problem.file, info.value.problem.line, info.value.code) == (str(path), line, code)
    assert info.value.problem.hint
