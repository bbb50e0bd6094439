"""open-sesame CoNLL reader and writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraspan.corpus.formats import read_corpus, write_corpus
from paraspan.corpus.opensesame import read_opensesame, write_opensesame
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError
from tests.conftest import need_shared

FIXTURES = Path(__file__).parent / "fixtures"
SMALL = FIXTURES / "small_opensesame.conll"


def _rows(*rows: tuple[str, ...]) -> str:
    return "\n".join("\t".join(r) for r in rows) + "\n"


def _error(tmp_path: Path, content: str) -> CorpusError:
    path = tmp_path / "bad.conll"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CorpusError) as info:
        list(read_opensesame(path))
    assert info.value.problem.file == str(path)
    assert info.value.problem.hint
    return info.value


def _spans(sentence: Sentence, structure: Structure) -> list[tuple[str | None, str]]:
    return [(a.label, a.text_in(sentence.text)) for a in structure.args]


def test_blocks_over_the_same_tokens_make_one_sentence() -> None:
    first, second = read_opensesame(SMALL)
    assert first.id == "small_opensesame:1"
    assert first.text == "The old baker sold bread to the village."
    assert [s.label for s in first.structures] == ["Commerce_sell", "People_by_vocation"]
    sell = first.structures[0]
    assert sell.kind == "frame"
    assert sell.anchor is not None and sell.anchor.label == "sell.v"
    assert sell.anchor.text_in(first.text) == "sold"
    assert _spans(first, sell) == [("Seller", "The old baker"), ("Goods", "bread"), ("Buyer", "to the village")]
    assert [tuple(t) for t in first.meta["tokens"]][:3] == [(0, 3), (4, 7), (8, 13)]
    assert second.id == "small_opensesame:2"


def test_frame_element_on_the_target_is_kept() -> None:
    first = next(read_opensesame(SMALL))
    baker = first.structures[1]
    assert _spans(first, baker) == [("Age", "old"), ("Person", "baker")]


def test_discontinuous_target_keeps_its_parts() -> None:
    second = list(read_opensesame(SMALL))[1]
    attack = second.structures[0]
    assert attack.anchor is not None
    assert attack.anchor.text_in(second.text) == "nuclear"
    assert [second.text[s:e] for s, e in attack.extra["anchor_rest"]] == ["tests"]


def test_b_b_is_two_spans(tmp_path: Path) -> None:
    path = tmp_path / "bb.conll"
    path.write_text(_rows(("0", "people", "_", "_", "B-Entity"), ("1", "who", "_", "_", "B-Entity"),
                          ("2", "became", "become.v", "Becoming", "O")), encoding="utf-8")
    (sentence,) = read_opensesame(path)
    assert _spans(sentence, sentence.structures[0]) == [("Entity", "people"), ("Entity", "who")]


def test_fifteen_column_layout(tmp_path: Path) -> None:
    def row(i: int, tok: str, lu: str, frame: str, fe: str) -> tuple[str, ...]:
        return (str(i + 1), tok, "_", tok.lower(), "NN", "_", "0", "_", "_", "_", "_", lu, frame, "_", fe)

    path = tmp_path / "full.conll"
    path.write_text(_rows(row(0, "Dogs", "_", "_", "B-Agent"), row(1, "bark", "bark.v", "Noise", "O")),
                    encoding="utf-8")
    (sentence,) = read_opensesame(path)
    (frame,) = sentence.structures
    assert frame.label == "Noise" and frame.anchor is not None and frame.anchor.label == "bark.v"
    assert _spans(sentence, frame) == [("Agent", "Dogs")]


@pytest.mark.parametrize(
    ("content", "line", "code"),
    [
        # wrong column count on the second line
        (_rows(("0", "a", "_", "_", "O"), ("1", "b", "_", "O")), 2, "E201"),
        # an unknown layout on the first line
        (_rows(("0", "a", "_", "O")), 1, "E201"),
        # index not an integer
        (_rows(("0", "a", "be.v", "Being", "O"), ("x", "b", "_", "_", "O")), 2, "E202"),
        # index out of sequence
        (_rows(("0", "a", "be.v", "Being", "O"), ("2", "b", "_", "_", "O")), 2, "E202"),
        # I- without a type
        (_rows(("0", "a", "be.v", "Being", "O"), ("1", "b", "_", "_", "I-")), 2, "E204"),
        # unknown prefix
        (_rows(("0", "a", "be.v", "Being", "O"), ("1", "b", "_", "_", "X-Theme")), 2, "E204"),
        # no target in the block (blank line, then the block starting on line 3)
        ("0\ta\tbe.v\tBeing\tO\n\n" + _rows(("0", "a", "_", "_", "O")), 3, "E207"),
        # two frames in one block
        (_rows(("0", "a", "be.v", "Being", "O"), ("1", "b", "be.v", "Other", "O")), 1, "E207"),
    ],
)
def test_malformed_lines(tmp_path: Path, content: str, line: int, code: str) -> None:
    error = _error(tmp_path, content)
    assert error.problem.line == line
    assert error.code == code


def test_round_trip(tmp_path: Path) -> None:
    original = list(read_opensesame(SMALL))
    out = tmp_path / "out.conll"
    assert write_opensesame(original, out) == 2
    again = list(read_opensesame(out))
    assert [s.to_dict() for s in again] == [
        {**s.to_dict(), "id": f"out:{i}"} for i, s in enumerate(original, start=1)
    ]


def test_registry_names_resolve(tmp_path: Path) -> None:
    sentences = list(read_corpus(SMALL, "opensesame"))
    assert write_corpus(sentences, tmp_path / "x.conll", "opensesame") == 2


def test_writer_tokenizes_srl_without_tokens(tmp_path: Path) -> None:
    text = "Kim gave Lee a book."
    srl = Structure("srl", "give.01", Span(4, 8, "give"),
                    [Span(0, 3, "ARG0"), Span(9, 12, "ARG2"), Span(13, 19, "ARG1"), Span(14, 19, "ARGX")])
    sentence = Sentence("s1", text, [srl, Structure("entity", "PER", Span(0, 3))])
    out = tmp_path / "srl.conll"
    with pytest.warns(UserWarning, match="overlapping"):
        write_opensesame([sentence], out)
    (back,) = read_opensesame(out)
    assert back.text == text
    (frame,) = back.structures
    assert frame.label == "give.01" and frame.anchor is not None and frame.anchor.label == "give"
    assert _spans(back, frame) == [("ARG0", "Kim"), ("ARG2", "Lee"), ("ARG1", "a book")]


def test_writer_skips_sentences_without_frames(tmp_path: Path) -> None:
    with pytest.warns(UserWarning, match="without frame"):
        n = write_opensesame([Sentence("e", "Nothing here.", [])], tmp_path / "e.conll")
    assert n == 0


@pytest.mark.shared
def test_framenet17_dev() -> None:
    path = need_shared("data", "framenet", "fn17-opensesame", "dev.conll")
    sentences = frames = fes = 0
    for sentence in read_opensesame(path):
        sentence.validate()
        sentences += 1
        frames += len(sentence.structures)
        fes += sum(len(s.args) for s in sentence.structures)
    assert (sentences, frames, fes) == (326, 2272, 4029)


def test_writer_counts_entities_it_cannot_hold_or_refuses_them(tmp_path):
    import warnings

    from paraspan.errors import FormatError

    sentence = Sentence("f", "Anna sold it.", [Structure("frame", "Commerce_sell", Span(5, 9, "sell.v")),
                                                Structure("entity", "PER", Span(0, 4))])
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        write_opensesame([sentence], tmp_path / "a.conll")
    assert any("open-sesame: 1 entity structure(s) left out" in str(w.message) for w in seen)
    with pytest.raises(FormatError) as info:
        write_opensesame([sentence], tmp_path / "b.conll", strict=True)
    assert info.value.code == "E043" and not (tmp_path / "b.conll").exists()
