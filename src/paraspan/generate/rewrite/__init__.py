"""Syntactic rewriting with label projection and learned rule refinement (Woodsend & Lapata 2014).

- :mod:`.core`: output pieces (the one-to-one token mapping), the :class:`Rule` type, rendering.
- :mod:`.spec`: the hand-written rules (voice, extraction, splitting, reordering, genitive,
  compression, "It is" insertion, WordNet synonyms) as data: a spec per rule in ``data/rules.json``,
  its named vetoes and renderer in ``rules_*.py``, word lists in ``data/wordlists.json``.
- :mod:`.learned`: a quasi-synchronous dependency grammar extracted from aligned pairs.
- :mod:`.rules`: the rule registry and :class:`RuleSet` (default, learned or refined files).
- :mod:`.generator`: :class:`Rewriter` (the ``"rewrite"`` generator) and ``rewrite_sentence``; labels
  are carried through its token mapping by :mod:`paraspan.generate.project`.
- :mod:`.tagger`: a small stand-in SRL argument tagger; :mod:`.refine`: Algorithm 1's SVM refinement.

Importing this package loads no model.
"""

from __future__ import annotations

from paraspan.generate.rewrite.core import Piece, Rule, RuleContext
from paraspan.generate.rewrite.generator import Rewriter, rewrite_sentence
from paraspan.generate.rewrite.rules import RuleSet, rewrite_rules

__all__ = ["Piece", "Rewriter", "Rule", "RuleContext", "RuleSet", "rewrite_rules", "rewrite_sentence"]
