"""Downstream learning curves: does augmented data make a tagger better?

Learners (frame identification, SRL argument labelling, spaCy NER) train on {10, 25, 50, 100}%
of the gold data with and without the augmented sentences derived from that subset, over seeds;
see :mod:`~paraspan.evaluate.downstream.curves`. Nothing heavy is imported here.
"""

from __future__ import annotations

from paraspan.evaluate.downstream.augment import Augmenter, augmenters, get_augmenter, lexical_substitution
from paraspan.evaluate.downstream.curves import Curve, CurveConfig, paired_stats, run_curve
from paraspan.evaluate.downstream.learners import HeadConfig, RunResult, Score, learners

__all__ = ["Augmenter", "Curve", "CurveConfig", "HeadConfig", "RunResult", "Score", "augmenters", "get_augmenter",
           "learners", "lexical_substitution", "paired_stats", "run_curve"]
