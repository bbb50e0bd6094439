"""CoNLL-U + PropBank columns (Universal PropBank) reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraspan.corpus.conll import DepTree
from paraspan.corpus.conllu_srl import read_conllu_srl
from paraspan.corpus.formats import read_corpus
from paraspan.corpus.schema import Sentence, Structure
from paraspan.errors import CorpusError
from tests.conftest import need_shared

SMALL = Path(__file__).parent / "fixtures" / "srl_small.conllu"


def _args(sentence: Sentence, structure: Structure) -> list[tuple[str | None, str]]:
    return [(a.label, a.text_in(sentence.text)) for a in structure.args]


def _word(i: int, form: str, head: str, sense: str = "_", *args: str, misc: str = "_") -> str:
    return "\t".join([str(i), form, form.lower(), "X", "X", "_", head, "dep", "_", misc, sense, *args])


def _error(tmp_path: Path, lines: list[str]) -> CorpusError:
    path = tmp_path / "bad.conllu"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(read_conllu_srl(path))
    assert info.value.problem.file == str(path)
    assert info.value.problem.hint
    return info.value


def test_predicate_args_from_head_subtrees() -> None:
    first = next(read_conllu_srl(SMALL))
    assert first.id == "inv-0001"
    assert first.text == "Maria didn't send the letters to her brother."
    (send,) = first.structures
    assert send.kind == "srl" and send.label == "send.01"
    assert send.anchor is not None and send.anchor.label == "send"
    assert send.anchor.text_in(first.text) == "send"
    assert _args(first, send) == [("ARG0", "Maria"), ("ARGM-NEG", "n't"), ("ARG1", "the letters"),
                                  ("ARG2", "to her brother")]
    assert first.meta["comments"] == {"newdoc id": "invented-doc-1"}


def test_multiword_token_words_keep_their_forms() -> None:
    first = next(read_conllu_srl(SMALL))
    forms = [first.text[s:e] for s, e in first.meta["tokens"]]
    assert forms == ["Maria", "did", "n't", "send", "the", "letters", "to", "her", "brother", "."]
    conllu = first.meta["conllu"]
    assert conllu["upos"][0] == "PROPN" and conllu["head"][0] == 4 and conllu["deprel"][0] == "nsubj"
    assert conllu["lemma"][1] == "do"


def test_argument_is_cut_at_its_predicate() -> None:
    second = list(read_conllu_srl(SMALL))[1]
    assert second.id == "srl_small:2"  # no sent_id: file stem and position
    sell, leave = second.structures
    # "man" heads "The man who sold us the car": for "sold" the hull stops before the predicate
    assert _args(second, sell) == [("ARG0", "The man who"), ("R-ARG0", "who"), ("ARG2", "us"),
                                   ("ARG1", "the car")]
    assert _args(second, leave) == [("ARG0", "The man who sold us the car"), ("ARG1", "town")]


def test_unannotated_sentence_and_empty_node() -> None:
    third = list(read_conllu_srl(SMALL))[2]
    assert third.text == "Great little shop"
    assert third.structures == []
    assert len(third.meta["tokens"]) == 3  # the empty node 2.1 is not a word
    assert third.meta["comments"] == {"propbank": "no-up"}


def test_text_from_space_after_without_text_comment() -> None:
    last = list(read_conllu_srl(SMALL))[-1]
    assert last.text == "Stop it!"
    assert _args(last, last.structures[0]) == [("ARG1", "it")]


def test_trim_punct_option() -> None:
    plain = list(read_conllu_srl(SMALL))[3]
    trimmed = list(read_corpus(SMALL, "conllu-srl", trim_punct=True))[3]
    assert _args(plain, plain.structures[0]) == [("ARG1", '"Fine,"'), ("ARG0", "she")]
    assert _args(trimmed, trimmed.structures[0]) == [("ARG1", "Fine"), ("ARG0", "she")]


def test_dep_tree_hull_cut_both_sides() -> None:
    # 0 <- 1 -> 2 -> 3 ; predicate 2 inside the subtree of 1
    tree = DepTree([1, -1, 1, 2])
    assert tree.arg_hull(1) == (0, 3)
    assert tree.arg_hull(1, predicate=2) == (0, 1)
    assert tree.arg_hull(3, predicate=2) == (3, 3)
    assert DepTree([1, 0]).subtree_bounds(0) == (0, 1)  # a cycle does not hang


@pytest.mark.parametrize(
    ("lines", "line", "code"),
    [
        # too few columns
        (["# text = A b", _word(1, "A", "2", "_", "_"), "2\tb\tb\tX"], 3, "E201"),
        # non-integer head
        (["# text = A b", _word(1, "A", "x", "_", "_"), _word(2, "b", "0", "b.01", "V")], 2, "E203"),
        # head outside the sentence
        (["# text = A b", _word(1, "A", "7", "_", "ARG0"), _word(2, "b", "0", "b.01", "V")], 2, "E203"),
        # word IDs out of sequence
        (["# text = A b", _word(1, "A", "2", "_", "_"), _word(3, "b", "0", "b.01", "V")], 3, "E202"),
        # a word with an argument column too few
        (["# text = A b", _word(1, "A", "2", "_", "ARG0"), _word(2, "b", "0", "b.01")], 3, "E205"),
        # two predicates but one argument column: points at the second predicate
        (["# text = A b", _word(1, "A", "2", "a.01", "V"), _word(2, "b", "0", "b.01", "_")], 3, "E205"),
        # an argument column but no predicate
        (["# text = A b", _word(1, "A", "2", "_", "ARG0"), _word(2, "b", "0", "_", "_")], 2, "E205"),
        # tokens that do not spell the text
        (["# text = A c", _word(1, "A", "2", "_", "_"), _word(2, "b", "0", "b.01", "V")], 3, "E206"),
        # comment lines with no sentence
        (["# sent_id = x"], 1, "E208"),
    ],
)
def test_malformed_lines(tmp_path: Path, lines: list[str], line: int, code: str) -> None:
    error = _error(tmp_path, lines)
    assert error.problem.line == line
    assert error.code == code


def test_error_line_counts_earlier_sentences(tmp_path: Path) -> None:
    lines = ["# text = A b", _word(1, "A", "2", "_", "ARG0"), _word(2, "b", "0", "b.01", "V"), "",
             "# text = A b", _word(1, "A", "2", "_", "ARG0"), _word(2, "b", "zero", "b.01", "V")]
    assert _error(tmp_path, lines).problem.line == 7


@pytest.mark.shared
def test_ewt_dev_counts() -> None:
    path = need_shared("data", "srl", "up-english-ewt", "en_ewt-up-dev.conllu")
    sentences = predicates = args = 0
    for sentence in read_conllu_srl(path):
        sentence.validate()
        sentences += 1
        predicates += len(sentence.structures)
        args += sum(len(s.args) for s in sentence.structures)
    # 4,977 senses in column 11. Counting every row whose column 11 is not "_" gives 5,158:
    # that also counts the empty cells of the 28 "# propbank = no-up" sentences (179 rows) and
    # of the 2 empty nodes, which are not predicates.
    assert sentences == 2002
    assert predicates == 4977
    assert args == 9682
