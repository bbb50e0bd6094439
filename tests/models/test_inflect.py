"""Lemmas and inflections through LemmInflect."""

from __future__ import annotations

from paraspan.models.inflect import inflect, inflections, lemmas, load_lemminflect


def test_inflections_of_sell() -> None:
    forms = inflections("sell", "VERB")
    assert forms["VBD"] == ["sold"] and "sells" in forms["VBZ"] and "selling" in forms["VBG"]
    every = {f for fs in inflections("sell").values() for f in fs}
    assert {"sold", "sells", "selling"} <= every


def test_lemmas() -> None:
    assert lemmas("sold", "VERB") == ["sell"]
    assert "sell" in lemmas("sold")
    assert lemmas("geese", "NOUN") == ["goose"]


def test_inflect_one_form() -> None:
    assert inflect("sell", "VBD") == "sold"
    assert inflect("goose", "NNS") == "geese"
    assert inflect("big", "JJR") == "bigger"


def test_out_of_vocabulary_words_fall_back_to_rules() -> None:
    assert lemmas("blorfed", "VERB") == ["blorf"]
    assert "blorfed" in inflections("blorf", "VERB")["VBD"]


def test_loader_is_cached() -> None:
    assert load_lemminflect() is load_lemminflect()
