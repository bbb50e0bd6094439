"""Word tokens and snapping character spans to their boundaries."""

from __future__ import annotations

from paraspan.align.tokens import token_set, tokenize


def test_whitespace_tokens_are_kept() -> None:
    text = "senate majority leader lott said the senate could make an impartial ruling ."
    assert tokenize(text).words == text.split()


def test_glued_punctuation_and_clitics_split() -> None:
    words = tokenize("He didn't buy Anna's car. It cost $3,000 in the U.S., at 8:45 ...").words
    assert words == ["He", "did", "n't", "buy", "Anna", "'s", "car", ".", "It", "cost", "$", "3,000", "in", "the",
                     "U.S.", ",", "at", "8:45", "..."]


def test_offsets_round_trip() -> None:
    toks = tokenize("  The firm sold off its stock.")
    for word, s, e in zip(toks.words, toks.starts, toks.ends, strict=True):
        assert toks.text[s:e] == word
    assert toks.char_span(1, 2) == (6, 15)


def test_snap_widens_a_span_that_cuts_words() -> None:
    toks = tokenize("I purchased a car .")
    assert toks.snap(4, 8) == (2, 11)  # "rcha" -> "purchased"
    assert toks.snap(2, 11) == (2, 11)  # already on boundaries
    assert toks.snap(0, 4) == (0, 11)  # "I pu" -> "I purchased"
    assert toks.snap(1, 2) is None  # only a space
    assert toks.token_span(2, 13) == (1, 2)


def test_token_set() -> None:
    toks = tokenize("a b c d")
    assert token_set(toks, [2, 5]) == {1, 2}
    assert token_set(toks, None) == set()


def test_empty_text() -> None:
    toks = tokenize("")
    assert len(toks) == 0 and toks.snap(0, 1) is None
