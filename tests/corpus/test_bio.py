"""CoNLL NER (BIO) reader and writer."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from paraspan.corpus.bio import read_bio, write_bio
from paraspan.corpus.formats import read_corpus, write_corpus
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError, FormatError
from tests.conftest import need_shared

FIXTURES = Path(__file__).parent / "fixtures"


def _ents(sentence: Sentence) -> list[tuple[str, str]]:
    return [(s.label, s.anchor.text_in(sentence.text)) for s in sentence.structures if s.anchor is not None]


def _write(tmp_path: Path, content: str, name: str = "x.bio") -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_wikiann_style_language_prefix() -> None:
    first, second = read_bio(FIXTURES / "wikiann_like.bio")
    assert first.id == "wikiann_like:1"
    assert first.text == "Anna Lind visited Oslo."
    assert first.meta["lang"] == "en"
    assert _ents(first) == [("PER", "Anna Lind"), ("LOC", "Oslo")]
    entity = first.structures[0]
    assert entity.kind == "entity" and entity.args == []
    assert entity.anchor is not None and entity.anchor.label is None
    assert _ents(second) == [("ORG", "Nordic Council"), ("LOC", "Bergen")]


def test_space_separated_iob1_with_docstart() -> None:
    first, second = read_bio(FIXTURES / "conll03_like.iob")
    assert first.text == "Peter Blom met Ada Clark Ben in Rome."
    assert "lang" not in first.meta
    # IOB1: B- only separates two adjacent entities of the same type
    assert _ents(first) == [("PER", "Peter Blom"), ("PER", "Ada Clark"), ("PER", "Ben"), ("LOC", "Rome")]
    assert _ents(second) == [("ORG", "Acme")]
    assert list(read_bio(FIXTURES / "conll03_like.iob", scheme="iob1"))[0].structures == first.structures


def test_iobes_and_whitespace_only_separator() -> None:
    first, second = read_bio(FIXTURES / "iobes.bio", scheme="iobes")
    assert _ents(first) == [("PER", "Dr. Ruth Vega"), ("LOC", "Lima")]
    assert second.text == "Ok" and second.structures == []


def test_mixed_prefixes_are_kept(tmp_path: Path) -> None:
    path = _write(tmp_path, "en:Paris\tB-LOC\nfr:est\tO\n")
    (sentence,) = read_bio(path)
    assert sentence.text == "en:Paris fr:est" and "lang" not in sentence.meta


def test_orphan_i_in_iob2_file_warns(tmp_path: Path) -> None:
    path = _write(tmp_path, "A\tB-PER\nB\tI-PER\nC\tI-LOC\n\nD\tO\n")
    with pytest.warns(UserWarning, match=r"line 3"):
        (first, _) = read_bio(path)
    assert _ents(first) == [("PER", "A B"), ("LOC", "C")]


def test_bad_scheme_option(tmp_path: Path) -> None:
    with pytest.raises(FormatError):
        list(read_bio(_write(tmp_path, "A\tO\n"), scheme="bilou2"))


@pytest.mark.parametrize(
    ("content", "scheme", "line"),
    [
        ("A\tO\nB\tI-\n", "auto", 2),  # I- without a type
        ("A\tO\n\nB\tX-PER\n", "auto", 3),  # unknown prefix
        ("A\tO\nB\tPER\n", "auto", 2),  # no prefix at all
        ("A\tO\nB\n", "auto", 2),  # token without a tag
        ("A\tB\tO\nB\tO\n", "auto", 2),  # column count changes
        ("A\tO\nB\tI-PER\n", "iob2", 2),  # IOB2: I- must continue a span
        ("A\tB-PER\nB\tO\n", "iobes", 2),  # IOBES: B- must be closed by E-
        ("A\tB-PER\nB\tI-PER\n\nC\tO\n", "iobes", 2),  # unclosed at the end of a sentence
        ("A\tO\nB\tE-PER\n", "iob2", 2),  # E- is not IOB2
    ],
)
def test_malformed_lines(tmp_path: Path, content: str, scheme: str, line: int) -> None:
    path = _write(tmp_path, content)
    with pytest.raises(CorpusError) as info:
        list(read_bio(path, scheme=scheme))
    assert (info.value.problem.file, info.value.problem.line) == (str(path), line)
    assert info.value.problem.hint


def test_round_trip(tmp_path: Path) -> None:
    for name in ("wikiann_like.bio", "conll03_like.iob", "iobes.bio"):
        original = list(read_bio(FIXTURES / name))
        out = tmp_path / f"{name}.out"
        assert write_bio(original, out) == len(original)
        again = list(read_bio(out, scheme="iob2"))
        assert [s.text for s in again] == [s.text for s in original]
        assert [s.structures for s in again] == [s.structures for s in original]
        assert [s.meta for s in again] == [s.meta for s in original]
    assert (tmp_path / "wikiann_like.bio.out").read_text(encoding="utf-8").startswith("en:Anna\tB-PER\n")


def test_writer_widens_and_drops_overlaps(tmp_path: Path) -> None:
    text = "Visit New York City today"
    sentence = Sentence("s", text, [
        Structure("entity", "LOC", Span(8, 12)),  # "ew Y": widened to "New York"
        Structure("entity", "GPE", Span(10, 19)),  # overlaps the first: dropped
        Structure("srl", "visit.01", Span(0, 5, "visit")),  # not an entity: ignored
    ])
    out = tmp_path / "w.bio"
    with pytest.warns(UserWarning, match="1 overlapping"):
        assert write_corpus([sentence], out, "bio") == 1
    assert out.read_text(encoding="utf-8").splitlines() == [
        "Visit\tO", "New\tB-LOC", "York\tI-LOC", "City\tO", "today\tO", ""]


def test_writer_no_warning_without_overlaps(tmp_path: Path) -> None:
    sentences = list(read_corpus(FIXTURES / "wikiann_like.bio", "bio"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_bio(sentences, tmp_path / "ok.bio")


@pytest.mark.shared
def test_wnut17_dev_counts() -> None:
    path = need_shared("data", "ner", "wnut17", "emerging.dev.conll")
    with pytest.warns(UserWarning, match=r"line 1674"):
        sentences = list(read_bio(path))
    for sentence in sentences:
        sentence.validate()
    lines = path.read_text(encoding="utf-8").splitlines()
    starts = sum(1 for line in lines if line.split("\t")[-1].startswith("B-"))
    assert len(sentences) == 1009
    assert starts == 835  # B- tags
    # 835 B- tags, but line 1674 opens "Turn Up Green" (creative-work) with an I- tag right
    # after a person: it is read as an entity of its own, as conlleval does.
    assert sum(len(s.structures) for s in sentences) == 836


@pytest.mark.shared
def test_wikiann_en_dev_loads() -> None:
    path = need_shared("data", "ner", "wikiann-en", "dev")
    sentences = entities = 0
    for sentence in read_bio(path, scheme="iob2"):
        sentences += 1
        entities += len(sentence.structures)
        assert sentence.meta["lang"] == "en"
    assert (sentences, entities) == (10000, 14146)


def test_writer_retokenizes_stale_tokens(tmp_path: Path) -> None:
    # the text was edited after reading: the old offsets would cut "Lisbon" in half
    sentence = Sentence("s", "We flew to Lisbon", [Structure("entity", "LOC", Span(11, 17))],
                        {"tokens": [[0, 2], [3, 6], [7, 9], [10, 14]]})
    out = tmp_path / "stale.bio"
    with pytest.warns(UserWarning, match="re-tokenized"):
        write_bio([sentence], out)
    assert out.read_text(encoding="utf-8").splitlines()[-2] == "Lisbon\tB-LOC"


def test_writer_keeps_combining_marks_with_their_base(tmp_path):
    out = tmp_path / "g.bio"
    sentences = [Sentence("h", "हिंदी में", [Structure("entity", "LANG", Span(0, 5))]),
                 Sentence("c", "Cafe\u0301 noir", [Structure("entity", "ORG", Span(0, 5))])]
    write_bio(sentences, out)
    tokens = [line.split("\t")[0] for line in out.read_text(encoding="utf-8").splitlines() if line]
    assert tokens == ["हिंदी", "में", "Cafe\u0301", "noir"]
    back = list(read_bio(out))
    assert [s.text for s in back] == ["हिंदी में", "Cafe\u0301 noir"]
    assert [[(t.anchor.start, t.anchor.end) for t in s.structures] for s in back] == [[(0, 5)], [(0, 5)]]


def test_writer_counts_kinds_it_cannot_hold_or_refuses_them(tmp_path):
    sentence = Sentence("f", "The farmer sold it.", [Structure("frame", "Commerce_sell", Span(11, 15, "sell.v")),
                                                        Structure("srl", "sell.01", Span(11, 15))])
    with pytest.warns(UserWarning, match=r"bio: 1 frame structure\(s\) left out"):
        assert write_bio([sentence], tmp_path / "a.bio") == 1
    with pytest.raises(FormatError) as info:
        write_corpus([sentence], tmp_path / "b.bio", "bio", strict=True)
    assert info.value.code == "E043" and not (tmp_path / "b.bio").exists()
