"""Spelling variants for looking lemmas up in FrameNet's lexicon, which lists both spellings."""

from __future__ import annotations

import pytest

from paraspan.text.lexical_units import spelling_variants


@pytest.mark.parametrize(("lemma", "variants"), [
    ("recognise", ["recognise", "recognize"]),
    ("utilize", ["utilize", "utilise"]),
    ("analyse", ["analyse", "analyze"]),
    ("colour", ["colour", "color"]),
    ("centre", ["centre", "center"]),
    ("organisation", ["organisation", "organization"]),
    ("know", ["know"]),
    ("rise", ["rise"]),  # too short for an ending to be a suffix
    ("take off", ["take off"]),
])
def test_spelling_variants(lemma, variants):
    assert spelling_variants(lemma) == variants
