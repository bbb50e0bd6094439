"""spaCy DocBin writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from paraspan.corpus.bio import read_bio
from paraspan.corpus.conllu_srl import read_conllu_srl
from paraspan.corpus.docbin import read_docbin, sentence_from_doc, write_docbin
from paraspan.corpus.formats import write_corpus
from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import CorpusError

spacy = pytest.importorskip("spacy")

FIXTURES = Path(__file__).parent / "fixtures"


def _read(path: Path) -> list:
    from spacy.tokens import DocBin

    return list(DocBin().from_disk(path).get_docs(spacy.blank("en").vocab))


def test_entities_spans_and_user_data(tmp_path: Path) -> None:
    sentences = list(read_bio(FIXTURES / "wikiann_like.bio"))
    out = tmp_path / "ner.spacy"
    assert write_docbin(sentences, out) == 2
    docs = _read(out)
    assert [d.text for d in docs] == [s.text for s in sentences]
    first = docs[0]
    # tokens come from meta["tokens"]
    assert [t.text for t in first] == ["Anna", "Lind", "visited", "Oslo", "."]
    assert [(e.text, e.label_) for e in first.ents] == [("Anna Lind", "PER"), ("Oslo", "LOC")]
    assert [(s.text, s.label_) for s in first.spans["entity"]] == [("Anna Lind", "PER"), ("Oslo", "LOC")]
    assert first.user_data["paraspan"]["id"] == sentences[0].id
    assert [s.to_dict() for s in read_docbin(out)] == [s.to_dict() for s in sentences]


def test_srl_anchors_and_args(tmp_path: Path) -> None:
    sentences = list(read_conllu_srl(FIXTURES / "srl_small.conllu"))
    out = tmp_path / "srl.spacy"
    write_corpus(sentences, out, "docbin")
    docs = _read(out)
    first = docs[0]
    assert first.text == "Maria didn't send the letters to her brother."
    assert [t.text for t in first][:3] == ["Maria", "did", "n't"]
    assert [(s.text, s.label_) for s in first.spans["srl"]] == [("send", "send.01")]
    assert [(s.text, s.label_) for s in first.spans["srl_args"]] == [
        ("Maria", "ARG0"), ("n't", "ARGM-NEG"), ("the letters", "ARG1"), ("to her brother", "ARG2")]
    assert len(first.ents) == 0
    assert "srl" not in docs[2].spans or len(docs[2].spans["srl"]) == 0


def test_without_tokens_uses_spacy_and_expands(tmp_path: Path) -> None:
    text = "Ms. Ada  Lovelace wrote notes.\n"
    sentence = Sentence("s", text, [
        Structure("entity", "PER", Span(4, 12)),  # "Ada  Lov" ends mid-token: expanded
        Structure("entity", "PERSON", Span(9, 17)),  # overlaps the first in doc.ents: skipped
        Structure("frame", "Text_creation", Span(18, 23, "write.v"), [Span(4, 17, "Author"), Span(24, 29, "Text")]),
    ])
    out = tmp_path / "plain.spacy"
    with pytest.warns(UserWarning, match="1 overlapping"):
        write_docbin([sentence], out)
    (doc,) = _read(out)
    assert doc.text == text
    assert [(e.text, e.label_) for e in doc.ents] == [("Ada  Lovelace", "PER")]
    assert [(s.text, s.label_) for s in doc.spans["entity"]] == [("Ada  Lovelace", "PER"), ("Lovelace", "PERSON")]
    assert [(s.text, s.label_) for s in doc.spans["frame"]] == [("wrote", "Text_creation")]
    assert [(s.text, s.label_) for s in doc.spans["frame_args"]] == [("Ada  Lovelace", "Author"), ("notes", "Text")]


def test_tokens_with_odd_gaps_spell_the_text(tmp_path: Path) -> None:
    text = "  Hi  there,friend "
    sentence = Sentence("s", text, [Structure("entity", "X", Span(12, 18))],
                        {"tokens": [[2, 4], [6, 11], [12, 18]]})  # "," is not a token
    out = tmp_path / "gaps.spacy"
    write_docbin([sentence], out)
    (doc,) = _read(out)
    assert doc.text == text
    assert [(e.text, e.label_) for e in doc.ents] == [("friend", "X")]
    assert "," in [t.text for t in doc]


def test_srl_round_trip_through_user_data(tmp_path: Path) -> None:
    sentences = list(read_conllu_srl(FIXTURES / "srl_small.conllu"))
    out = tmp_path / "rt.spacy"
    write_docbin(sentences, out)
    assert [s.to_dict() for s in read_docbin(out)] == [s.to_dict() for s in sentences]


def test_plain_docbin_gives_entities() -> None:
    nlp = spacy.blank("en")
    doc = nlp.make_doc("Ada met Bo")
    doc.ents = [doc.char_span(0, 3, label="PER")]
    sentence = sentence_from_doc(doc, "x:1")
    assert [(s.label, s.anchor.text_in(sentence.text)) for s in sentence.structures if s.anchor] == [("PER", "Ada")]


def test_read_docbin_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.spacy"
    bad.write_bytes(b"not a docbin")
    with pytest.raises(CorpusError) as info:
        list(read_docbin(bad))
    assert info.value.problem.file == str(bad)


def test_fast_msgpack_reads_the_same_and_restores_srsly(tmp_path: Path) -> None:
    import srsly.msgpack as smp

    from paraspan.corpus.docbin import fast_msgpack

    sentences = [Sentence(f"s{i}", f"Ada Lovelace met Babbage in London {i} .",
                          [Structure("entity", "PER", Span(0, 12, "PER")),
                           Structure("entity", "LOC", Span(28, 34, "LOC"))]) for i in range(20)]
    plain = tmp_path / "plain.spacy"
    write_docbin(sentences, plain)
    before = [(s.text, [(st.anchor.start, st.anchor.end, st.label) for st in s.structures if st.anchor])
              for s in read_docbin(plain)]
    with fast_msgpack():
        fast = tmp_path / "fast.spacy"
        write_docbin(sentences, fast)
        inside = [(s.text, [(st.anchor.start, st.anchor.end, st.label) for st in s.structures if st.anchor])
                  for s in read_docbin(fast)]
        assert "get_all" in vars(smp.msgpack_decoders)  # the lookup is cached inside the block
    assert inside == before and fast.read_bytes() == plain.read_bytes()
    assert "get_all" not in vars(smp.msgpack_decoders) and "get_all" not in vars(smp.msgpack_encoders)
