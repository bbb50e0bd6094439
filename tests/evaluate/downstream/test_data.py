from __future__ import annotations

from paraspan.corpus.schema import Sentence, Span
from paraspan.evaluate.downstream.data import (
    Tokenizer,
    document_of,
    exhaustive,
    sample_subset,
    split_by_document,
)
from tests.evaluate.downstream.toy import frame_corpus


def test_tokenizer_uses_meta_tokens_and_maps_spans():
    s = Sentence("a", "New York is big.", [], {"tokens": [[0, 8], [9, 11], [12, 15], [15, 16]]})
    tok = Tokenizer()(s)
    assert tok.words == ["New York", "is", "big", "."]
    assert tok.token_span(Span(4, 11)) == (0, 1)
    assert tok.token_span(Span(15, 16)) == (3, 3)


def test_tokenizer_falls_back_to_spacy_without_tokens():
    tok = Tokenizer()(Sentence("a", "Anna didn't go.", []))
    assert tok.words == ["Anna", "did", "n't", "go", "."]
    assert tok.token_span(Span(5, 11)) == (1, 2)


def test_sample_subset_is_seeded_and_ordered():
    corpus = frame_corpus(40)
    a, b, c = sample_subset(corpus, 25, 0), sample_subset(corpus, 25, 0), sample_subset(corpus, 25, 1)
    assert len(a) == 10 and [s.id for s in a] == [s.id for s in b] and [s.id for s in a] != [s.id for s in c]
    ids = [s.id for s in corpus]
    assert [ids.index(s.id) for s in a] == sorted(ids.index(s.id) for s in a)
    assert sample_subset(corpus, 100, 3) == corpus
    assert len(sample_subset(corpus, 2.5, 0)) == 1  # a fraction of a percent: 100 of 20,000 is 0.5


def test_fractional_percents_parse_and_keep_whole_ones_whole():
    import importlib.util
    from pathlib import Path

    import pytest

    path = Path(__file__).resolve().parents[3] / "benchmarks" / "downstream.py"
    spec = importlib.util.spec_from_file_location("downstream_benchmark", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    got = module.parse_percents("0.5,2.5,10")
    assert got == [0.5, 2.5, 10] and [str(p) for p in got] == ["0.5", "2.5", "10"]
    for bad in ("0", "ten", "101"):
        with pytest.raises(SystemExit):
            module.parse_percents(bad)


def test_split_by_document_keeps_documents_whole():
    corpus = [Sentence(f"doc{d}-{k:04d}", "x y", []) for d in range(10) for k in range(1, 4)]
    train, test = split_by_document(corpus, 0.3)
    assert {document_of(s) for s in train}.isdisjoint({document_of(s) for s in test})
    assert len(train) + len(test) == 30 and 6 <= len(test) <= 12
    assert split_by_document(corpus, 0.3) == (train, test)


def test_exhaustive_only_for_gold_full_text():
    assert exhaustive(Sentence("fn15:doc:1", "a", []))
    assert not exhaustive(Sentence("fn15:lu12:3", "a", []))
    assert not exhaustive(Sentence("x~rw0", "a", [], source_id="x"))
