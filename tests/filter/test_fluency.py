"""The fluency filter, on the small packaged model (SmolLM2-135M: a few short sentences, seconds)."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import build_filter, decide_all, filters
from paraspan.filter.fluency import FluencyFilter, calibrate, calibrated_threshold, percentile
from paraspan.llm.llama_backend import LlamaBackend, text_logprobs

SOURCE = "They met in the summer of 2001."
BROKEN = "They met in the of 2001 summer."  # a rule rewrite's word moved out of its phrase
FLUENT = "They met during the summer of 2001."


def sent(sid: str, text: str, source_id: str | None = None) -> Sentence:
    return Sentence(id=sid, text=text, source_id=source_id)


@pytest.fixture(scope="module")
def backend() -> Iterator[LlamaBackend]:
    backend = LlamaBackend.load("small", n_ctx=1024, max_parallel=4, n_threads=1)
    yield backend
    backend.close()


@pytest.fixture
def counted(backend: LlamaBackend, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of texts in each ``logprobs`` call of the backend."""
    calls: list[int] = []
    original = backend.logprobs

    def logprobs(items):  # type: ignore[no-untyped-def]
        calls.append(len(items))
        return original(items)

    monkeypatch.setattr(backend, "logprobs", logprobs)
    return calls


def make(backend: LlamaBackend, threshold: float = -0.5) -> FluencyFilter:
    return FluencyFilter(threshold, functools.partial(text_logprobs, backend), model="small")


def test_a_broken_sentence_scores_below_its_fluent_source(backend: LlamaBackend) -> None:
    flt = make(backend)
    source = sent("s", SOURCE)
    broken = flt.decide(sent("o1", BROKEN, "s"), source)
    fluent = flt.decide(sent("o2", FLUENT, "s"), source)
    assert broken.score is not None and fluent.score is not None
    assert broken.score < -0.5 < fluent.score
    assert not broken.keep and fluent.keep


def test_the_decision_records_score_and_reason(backend: LlamaBackend) -> None:
    decision = make(backend).decide(sent("o", BROKEN, "s"), sent("s", SOURCE))
    d = decision.details
    assert decision.score == pytest.approx(d["output_logprob"] - d["source_logprob"], abs=1e-3)
    assert d["delta"] == decision.score and d["threshold"] == -0.5 and d["model"] == "small"
    assert decision.reason.startswith(f"mean log-prob {d['output_logprob']:.2f} vs source {d['source_logprob']:.2f}")
    assert "< -0.50" in decision.reason


def test_a_batch_is_one_call_with_each_source_once(backend: LlamaBackend, counted: list[int]) -> None:
    flt = make(backend)
    s1, s2 = sent("s1", SOURCE), sent("s2", "The cat sat on the mat.")
    pairs = [(sent("a", BROKEN, "s1"), s1), (sent("b", FLUENT, "s1"), s1), (sent("c", "The cat sat on mat the.", "s2"), s2)]
    decisions = decide_all(flt, pairs)
    assert counted == [5]  # one call: three outputs and two distinct sources
    assert [d.keep for d in decisions] == [False, True, False]
    one_by_one = [flt.decide(out, src) for out, src in pairs]
    assert [d.keep for d in one_by_one] == [d.keep for d in decisions]
    # llama.cpp's kernels round differently for other batch shapes: close, not always bit-equal
    assert [d.score for d in one_by_one] == pytest.approx([d.score for d in decisions], abs=0.05)


def test_a_missing_or_empty_source_is_a_clear_error(backend: LlamaBackend) -> None:
    flt = make(backend)
    with pytest.raises(ParaspanError) as err:
        flt.decide_batch([(sent("o", FLUENT, "s"), sent("s", SOURCE)), (sent("p", BROKEN, "x"), None)])
    assert err.value.code == "E860" and "'p'" in str(err.value)
    with pytest.raises(ParaspanError) as err:
        flt.decide(sent("o", FLUENT, "s"), sent("s", "  "))
    assert err.value.code == "E862"


def test_an_empty_output_is_rejected_without_scoring_it(backend: LlamaBackend, counted: list[int]) -> None:
    decision = make(backend).decide(sent("o", " ", "s"), sent("s", SOURCE))
    assert not decision.keep and decision.score is None and decision.reason == "empty output"
    assert counted == [1]  # the source only


def test_the_registered_filter_takes_the_calibrated_threshold_or_an_override() -> None:
    assert "fluency" in filters
    shipped = build_filter({"name": "fluency", "model": "small"})
    assert shipped.name == "fluency" and shipped.threshold == calibrated_threshold("small") < 0
    assert shipped._scorer is None  # building loads no model
    lax = build_filter({"name": "fluency", "model": "small", "threshold": -10, "record_as": "fluency_lax"})
    assert lax.threshold == -10.0 and lax.name == "fluency_lax"
    assert lax.decide(sent("o", BROKEN, "s"), sent("s", SOURCE)).keep  # the override decides
    strict = build_filter({"name": "fluency", "model": "small", "threshold": 5})
    assert not strict.decide(sent("o", SOURCE, "s"), sent("s", SOURCE)).keep  # d = 0 < 5


def test_a_model_without_calibration_needs_a_threshold(tmp_path) -> None:  # type: ignore[no-untyped-def]
    gguf = str(tmp_path / "mine.gguf")
    with pytest.raises(ParaspanError) as err:
        build_filter({"name": "fluency", "model": gguf})
    assert err.value.code == "E861" and "threshold" in str(err.value)
    assert build_filter({"name": "fluency", "model": gguf, "threshold": -1.0}).threshold == -1.0  # nothing loaded
    with pytest.raises(ParaspanError) as err:
        build_filter({"name": "fluency", "threshold": "low"})
    assert err.value.code == "E004"


def test_calibration_takes_the_5th_percentile_of_both_directions() -> None:
    scores = {"a": -3.0, "b": -3.5, "c": -2.0, "d": -2.2}
    calls: list[list[str]] = []

    def scorer(texts):  # type: ignore[no-untyped-def]
        calls.append(list(texts))
        return [scores[t] for t in texts]

    deltas = [-0.5, 0.5, -0.2, 0.2]
    assert calibrate(scorer, [("a", "b"), ("c", "d")]) == pytest.approx(percentile(deltas, 0.05))
    assert len(calls) == 1 and sorted(calls[0]) == ["a", "b", "c", "d"]
    assert percentile([1.0, 2.0, 3.0], 0.5) == 2.0 and percentile([4.0], 0.05) == 4.0
