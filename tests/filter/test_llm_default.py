"""The LLM judge on the default 1.5B model (loaded once; slow)."""

from __future__ import annotations

import numpy as np
import pytest

from paraspan.filter.judges import load_judge
from paraspan.filter.relations import relate

pytestmark = pytest.mark.slow


def test_default_llm_judge_with_the_cross_encoder():
    llm = load_judge("llm", threads=1)
    pairs = [("A man is playing a guitar.", "A man is playing an instrument."),
             ("A woman is slicing an onion.", "There is no woman slicing an onion.")]
    out = llm.judge([a for a, _ in pairs], [b for _, b in pairs])
    assert out.probs.shape == (2, 3) and np.allclose(out.probs.sum(1), 1, atol=1e-4)
    assert out.labels()[0] == "entailment"  # the plainest case there is; the benchmark measures the rest
    [first, _] = relate(pairs, [load_judge("minilm-nli", threads=1), llm])
    assert first.agree in (True, False) and set(first.judges) == {"minilm-nli", "llm"}
