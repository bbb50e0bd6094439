from __future__ import annotations

import pytest

from paraspan.text.detok import detokenize, token_span_to_chars


def test_guessed_spacing_and_offsets():
    tokens = ["He", "said", ",", '"', "I", "do", "n't", "know", '"', "(", "really", ")", "."]
    text, offsets = detokenize(tokens)
    assert text == 'He said, "I don\'t know" (really).'
    assert [text[s:e] for s, e in offsets] == tokens
    assert token_span_to_chars(offsets, 4, 7) == (10, 22)


def test_explicit_space_after_is_used_as_is():
    text, offsets = detokenize(["New", "York", "-", "based"], [True, False, False, False])
    assert text == "New York-based"
    assert offsets[-1] == (9, 14)


def test_empty_and_mismatched():
    assert detokenize([]) == ("", [])
    with pytest.raises(ValueError):
        detokenize(["a", "b"], [True])
