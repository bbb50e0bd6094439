"""Constraint expansion, the word guard and the leak check."""

from __future__ import annotations

import pytest

from paraspan.text.constraints import (
    BanSet,
    VocabIndex,
    WordGuard,
    banned_token_ids,
    case_variants,
    content_words,
    expand_ban,
    expand_bans,
    inflected_forms,
    trailing_word,
)


def test_sold_bans_every_form_of_sell() -> None:
    bans = expand_ban("sold")
    assert {"sell", "sells", "selling", "sold"} <= bans.forms
    assert bans.prefix_forms == bans.forms
    for variant in ("SOLD", "Sold", "sold", "Selling", "SELLS"):
        assert bans.blocks_word(variant)


def test_case_variants() -> None:
    assert case_variants("sold") == ["sold", "Sold", "SOLD"]
    assert case_variants("iPhone") == ["iPhone", "iphone", "Iphone", "IPHONE"]


def test_every_lemma_is_expanded() -> None:
    forms = set(inflected_forms("left"))  # adjective "left" and verb "leave"
    assert {"left", "leave", "leaves", "leaving"} <= forms
    assert {"share", "shares", "shared", "sharing"} <= set(inflected_forms("shares"))


def test_unknown_words_use_the_rules() -> None:
    assert {"blorf", "blorfs", "blorfing", "blorfed"} <= set(inflected_forms("blorfed"))


def test_leak_check_uses_word_boundaries() -> None:
    bans = expand_ban("sold")
    assert bans.find_leaks("They SOLD it, then kept selling.") == ["SOLD", "selling"]
    assert bans.find_leaks("The soldier resold the seller's car.") == []
    assert bans.find_leaks("a re-sell offer") == ["sell"]  # hyphens separate words
    assert bans.find_leaks("sold_out") == ["sold"]  # "_" separates words too
    assert BanSet().find_leaks("anything") == []


def test_function_word_span_bans_only_that_word() -> None:
    bans = expand_ban("the")
    assert bans.forms == {"the"} and not bans.prefix_forms
    assert bans.blocks_word("The")
    for other in ("there", "theory", "these", "them"):
        assert not bans.blocks_word(other)
    assert bans.find_leaks("There is the theory.") == ["the"]


def test_function_words_are_dropped_from_content_spans() -> None:
    bans = expand_ban("the company")
    assert "company" in bans.forms and "companies" in bans.forms
    assert "the" not in bans.forms
    assert expand_ban("in 1990").forms == {"in", "1990"}  # no content word: exact words only


def test_prefixes_of_content_forms_are_blocked() -> None:
    bans = expand_ban("corroborate")
    assert bans.blocks_word("cor") and bans.blocks_word("corrobor")
    assert not bans.blocks_word("co")  # shorter than 3 characters
    assert not bans.blocks_word("corroborative")  # a complete other word is not a prefix ...
    guard = WordGuard(bans)
    # ... but it cannot be reached: every way of spelling it passes a banned prefix
    assert not guard.allows("", " corro")
    assert not guard.allows("co", "rrob")
    assert guard.allows("", " co")
    assert guard.allows("", " confirm")


def test_guard_catches_words_assembled_from_pieces() -> None:
    guard = WordGuard(expand_ban("sold"))
    assert not guard.allows("", " sold")
    assert not guard.allows("s", "old")  # " s" + "old"
    assert not guard.allows("", " SOL")
    assert guard.allows("", " soldier")  # one token, a different word
    assert guard.allows("s", "ailed")
    assert guard.allows("sol", ".")  # the word before the piece was checked when it was written
    assert not guard.allows("", "(sold")  # words inside a piece are checked too
    assert WordGuard(BanSet()).allows("", " sold")


def test_trailing_word() -> None:
    assert trailing_word("The comp") == "comp"
    assert trailing_word("The comp ") == ""
    assert trailing_word("") == ""


def test_content_words_for_random_sets() -> None:
    assert content_words("The company sold its shares to the investors in 1990.") == [
        "company", "sold", "shares", "investors"]


def test_union_keeps_both() -> None:
    both = expand_bans(["sold", "the"])
    assert both.blocks_word("selling") and both.blocks_word("the") and not both.blocks_word("there")
    assert both.sources == ("sold", "the")


def test_banned_token_ids_on_a_synthetic_vocab() -> None:
    pieces = ["", " sold", "sold", " Sol", " sol", "se", " sell", " soldier", " the", " there", "The", " s", "old"]
    index = VocabIndex.from_pieces(pieces)
    banned = {pieces[i] for i in banned_token_ids(expand_ban("sold"), index)}
    assert banned == {" sold", "sold", " Sol", " sol", " sell"}
    banned = {pieces[i] for i in banned_token_ids(expand_ban("the"), index)}
    assert banned == {" the", "The"}


@pytest.fixture(scope="module")
def small_vocab() -> VocabIndex:
    from paraspan.llm.llama_backend import LlamaBackend

    backend = LlamaBackend.load("small", max_parallel=1, n_ctx=256)
    index = backend.vocab_index
    backend.close()
    return index


def test_prefix_token_banning_on_the_small_models_vocabulary(small_vocab: VocabIndex) -> None:
    pieces = small_vocab.pieces
    banned = {pieces[i] for i in banned_token_ids(expand_ban("sold"), small_vocab)}
    for piece in (" sold", " sell", " selling", " sells", "sold", " Sold"):
        if piece.strip().lower() in small_vocab.by_word:
            assert piece in banned
    assert all(len(p.strip()) >= 3 or p.strip().lower() in {"sold", "sell"} for p in banned)
    for piece in banned:  # nothing that is not a form or a 3+ prefix of one
        core = piece[1:] if piece.startswith(" ") else piece
        assert any(f.startswith(core.lower()) for f in ("sell", "sells", "selling", "sold")), piece
    the = {pieces[i] for i in banned_token_ids(expand_ban("the"), small_vocab)}
    assert " the" in the and " there" not in the and " these" not in the


def test_protected_words_are_numbers_names_and_argument_words():
    from paraspan.text.constraints import protected_words

    text = "Five inspectors from Hungary visited 12 sites under the Chemical Weapons Convention last year."
    got = protected_words(text, [(37, 45)])  # "12 sites" is an argument
    assert {"five", "12", "hungary", "chemical", "weapons", "convention", "sites"} <= got
    assert not {"inspectors", "visited", "last", "year"} & got
