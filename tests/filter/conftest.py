"""Shared helpers for the filter tests: a scripted judge that needs no model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from paraspan.filter.judges import LABELS, Judgements


class ScriptedJudge:
    """Answers from a table {(premise, hypothesis): label}; anything else is neutral. Counts calls."""

    def __init__(self, answers: dict[tuple[str, str], str], name: str = "scripted") -> None:
        self.answers = answers
        self.name = name
        self.calls: list[tuple[str, str]] = []

    def judge(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Judgements:
        probs = np.full((len(premises), 3), 0.05, dtype=np.float32)
        for i, pair in enumerate(zip(premises, hypotheses, strict=True)):
            self.calls.append(pair)
            probs[i, LABELS.index(self.answers.get(pair, "neutral"))] = 0.9
        return Judgements(probs, np.array([len(p) > 200 for p in premises], dtype=bool))


@pytest.fixture
def scripted():
    return ScriptedJudge
