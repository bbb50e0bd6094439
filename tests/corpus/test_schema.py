from __future__ import annotations

import pytest

from paraspan.corpus.schema import KINDS, Sentence, Span, Structure
from paraspan.errors import CorpusError


def _sentence(**overrides):
    data = {
        "id": "s1",
        "text": "The farmer sold his tractor.",
        "structures": [
            {
                "kind": "frame",
                "label": "Commerce_sell",
                "anchor": {"start": 11, "end": 15, "label": "sell.v"},
                "args": [{"start": 0, "end": 10, "label": "Seller"}, {"start": 16, "end": 27, "label": "Goods"}],
            }
        ],
        "meta": {},
    }
    data.update(overrides)
    return data


def test_parse_and_span_text():
    sentence = Sentence.from_dict(_sentence())
    frame = sentence.structures[0]
    assert frame.anchor.text_in(sentence.text) == "sold"
    assert [a.text_in(sentence.text) for a in frame.args] == ["The farmer", "his tractor"]
    assert not sentence.is_augmented


def test_to_dict_keeps_input_key_order_and_unknown_keys():
    data = {"text": "Hi there.", "meta": {"z": 1}, "id": "x", "custom": [1], "structures": []}
    assert list(Sentence.from_dict(data).to_dict()) == ["text", "meta", "id", "custom", "structures"]
    assert Sentence.from_dict(data).to_dict() == data


def test_augmented_fields_round_trip():
    data = _sentence(source_id="s0", provenance={"method": "paraphrase", "iteration": 1})
    sentence = Sentence.from_dict(data)
    assert sentence.is_augmented
    assert sentence.to_dict() == data


def test_new_sentence_has_canonical_key_order():
    sentence = Sentence("a", "Hello world", [Structure("entity", "LOC", Span(6, 11))])
    assert list(sentence.to_dict()) == ["id", "text", "structures", "meta"]
    assert sentence.to_dict()["structures"][0]["anchor"] == {"start": 6, "end": 11, "label": None}


@pytest.mark.parametrize(
    ("mutate", "code", "fragment"),
    [
        (lambda d: d["structures"][0]["args"][0].update(end=99), "E130", "out of range"),
        (lambda d: d["structures"][0]["args"][0].update(start=-1), "E130", "out of range"),
        (lambda d: d["structures"][0]["args"][0].update(start=5, end=5), "E131", "empty span"),
        (lambda d: d["structures"][0]["args"][0].update(start=10, end=11), "E132", "whitespace"),
        (lambda d: d["structures"][0].update(kind="relation"), "E122", "unknown kind"),
        (lambda d: d["structures"][0]["args"][0].update(label=""), "E115", "label"),
        (lambda d: d["structures"][0]["args"][0].update(start="0"), "E114", "integer"),
        (lambda d: d["structures"][0]["args"][0].update(start=True), "E114", "integer"),
        (lambda d: d["structures"][0].pop("label"), "E123", "label"),
        (lambda d: d.update(id=""), "E102", "id"),
        (lambda d: d.update(text=None), "E103", "text"),
        (lambda d: d.update(structures={}), "E104", "list"),
        (lambda d: d.update(meta=[]), "E105", "meta"),
        (lambda d: d["structures"][0].update(args="x"), "E125", "args"),
    ],
)
def test_invalid_sentences_are_reported_with_code(mutate, code, fragment):
    data = _sentence()
    mutate(data)
    with pytest.raises(CorpusError) as info:
        Sentence.from_dict(data, file="c.jsonl", line=7)
    err = info.value
    assert err.code == code
    assert fragment in str(err)
    assert str(err).startswith("c.jsonl:7: ")
    assert " — " in str(err)  # every problem comes with a fix hint


def test_entity_needs_anchor():
    with pytest.raises(CorpusError, match="anchor"):
        Sentence.from_dict({"id": "e", "text": "Paris", "structures": [{"kind": "entity", "label": "LOC", "args": []}]})


def test_all_problems_are_collected():
    data = _sentence()
    data["structures"][0]["args"][0].update(end=99)
    data["structures"][0]["args"][1].update(start=20, end=20)
    with pytest.raises(CorpusError) as info:
        Sentence.from_dict(data)
    assert len(info.value.problems) == 2


def test_kinds():
    assert {"frame", "srl", "entity"} <= KINDS
