"""The fluency filter, on the small packaged model (SmolLM2-135M: a few short sentences, seconds)."""

from __future__ import annotations

import functools
from collections.abc import Iterator

import pytest

from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError
from paraspan.filter import build_filter, decide_all, filters
from paraspan.filter import fluency as fluency_module
from paraspan.filter.fluency import (
    DEFAULT_STATISTIC,
    FluencyFilter,
    _ScorerLoader,
    calibrate,
    calibrated_threshold,
    calibrated_thresholds,
    fluency_filter,
    percentile,
    shared_drop,
)
from paraspan.llm.llama_backend import LlamaBackend, text_logprobs, text_token_logprobs

SOURCE = "They met in the summer of 2001."
BROKEN = "They met in the of 2001 summer."  # a rule rewrite's word moved out of its phrase
FLUENT = "They met during the summer of 2001."
# sentences written for these tests: one word moved out of its phrase, and a fluent reordering
LONG = "The committee approved the new budget for the city schools after a long debate on Tuesday."
LONG_BROKEN = "The committee approved the budget new for the city schools after a long debate on Tuesday."
LONG_FLUENT = "After a long debate on Tuesday, the committee approved the new budget for the city schools."


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
    assert shipped.statistic == DEFAULT_STATISTIC == "shared-drop"
    lax = build_filter({"name": "fluency", "model": "small", "threshold": -100, "record_as": "fluency_lax"})
    assert lax.threshold == -100.0 and lax.name == "fluency_lax"
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


# -- the shared-drop statistic


def shared(backend: LlamaBackend, threshold: float | None = None) -> FluencyFilter:
    tau = calibrated_threshold("small", "shared-drop") if threshold is None else threshold
    return FluencyFilter(tau, functools.partial(text_token_logprobs, backend), model="small", statistic="shared-drop")


def test_token_logprobs_are_the_values_whose_mean_logprobs_gives(backend: LlamaBackend) -> None:
    texts = [SOURCE, BROKEN, LONG]
    means = text_logprobs(backend, texts)
    per_token = text_token_logprobs(backend, texts)
    for text, mean, (ids, values) in zip(texts, means, per_token, strict=True):
        assert ids == backend.tokenize(text) and len(values) == len(ids)
        assert sum(values) / len(values) == pytest.approx(mean, abs=1e-9)  # same batches, same numbers


def test_shared_drop_rejects_a_moved_word_that_the_mean_accepts(backend: LlamaBackend) -> None:
    mean = make(backend, calibrated_threshold("small", "mean"))
    drop = shared(backend)
    source = sent("s", LONG)
    broken, fluent = sent("o1", LONG_BROKEN, "s"), sent("o2", LONG_FLUENT, "s")
    assert mean.decide(broken, source).keep  # the mean dilutes one bad word over 18 tokens
    got_broken, got_fluent = drop.decide(broken, source), drop.decide(fluent, source)
    assert not got_broken.keep and got_fluent.keep
    assert got_broken.score is not None and got_fluent.score is not None
    assert got_broken.score < drop.threshold < got_fluent.score
    # and on the short pair: the broken sentence's most-disturbed shared token drops far more
    short_broken = drop.decide(sent("o3", BROKEN, "s"), sent("s", SOURCE))
    short_fluent = drop.decide(sent("o4", FLUENT, "s"), sent("s", SOURCE))
    assert short_broken.score < short_fluent.score and not short_broken.keep and short_fluent.keep  # type: ignore[operator]


def test_the_shared_drop_decision_says_its_statistic_and_values(backend: LlamaBackend) -> None:
    decision = shared(backend).decide(sent("o", LONG_BROKEN, "s"), sent("s", LONG))
    d = decision.details
    assert d["statistic"] == "shared-drop" and d["model"] == "small"
    assert d["largest_drop"] == pytest.approx(-decision.score) and d["threshold"] == calibrated_threshold("small")  # type: ignore[operator]
    assert d["shared_tokens"] >= len(backend.tokenize(LONG)) - 2  # one word moved: all but it align
    assert d["delta"] == pytest.approx(d["output_logprob"] - d["source_logprob"], abs=1e-3)
    assert decision.reason.startswith(f"shared-drop: largest drop of a shared token's log-prob {d['largest_drop']:.2f}")
    assert f"> {-d['threshold']:.2f}" in decision.reason
    mean = make(backend).decide(sent("o", LONG_BROKEN, "s"), sent("s", LONG))
    assert mean.details["statistic"] == "mean" and mean.reason.startswith("mean log-prob")


def test_a_shared_drop_batch_is_one_call(backend: LlamaBackend, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    original = backend.token_logprobs

    def token_logprobs(items):  # type: ignore[no-untyped-def]
        calls.append(len(items))
        return original(items)

    monkeypatch.setattr(backend, "token_logprobs", token_logprobs)
    s1 = sent("s1", SOURCE)
    decisions = shared(backend).decide_batch([(sent("a", BROKEN, "s1"), s1), (sent("b", FLUENT, "s1"), s1),
                                              (sent("c", " ", "s1"), s1)])
    assert calls == [3]  # two outputs and their one source; the empty output is not scored
    assert [d.keep for d in decisions] == [False, True, False] and decisions[2].reason == "empty output"


def test_shared_drop_aligns_the_shared_tokens() -> None:
    source = ([1, 2, 3, 4], [-1.0, -2.0, -3.0, -4.0])
    # 9 is new (not compared); 2 got 4 nats more surprising, 3 and 4 kept their log-probs
    output = ([1, 9, 2, 3, 4], [-1.0, -8.0, -6.0, -3.0, -4.0])
    assert shared_drop(source, output) == pytest.approx(-4.0)
    assert shared_drop(source, source) == 0.0
    assert shared_drop(source, ([7, 8], [-9.0, -9.0])) == 0.0  # nothing shared: nothing to compare


def test_the_statistic_option_is_validated() -> None:
    mean = build_filter({"name": "fluency", "model": "small", "statistic": "mean"})
    assert mean.statistic == "mean" and mean.threshold == calibrated_threshold("small", "mean")
    assert mean.threshold != calibrated_threshold("small", "shared-drop")  # each statistic its own τ
    assert mean._scorer is None and mean._load == _ScorerLoader("small", 1, "mean")
    assert build_filter({"name": "fluency", "model": "small"})._load == _ScorerLoader("small", 1, "shared-drop")
    with pytest.raises(ParaspanError) as err:
        build_filter({"name": "fluency", "model": "small", "statistic": "max"})
    assert err.value.code == "E004" and "statistic" in str(err.value)
    with pytest.raises(ParaspanError) as err:
        fluency_filter("small", statistic="max")  # type: ignore[arg-type]
    assert err.value.code == "E004" and "shared-drop | mean" in str(err.value)
    with pytest.raises(ValueError, match="unknown fluency statistic"):
        FluencyFilter(-1.0, lambda texts: [], statistic="max")


def test_thresholds_are_per_model_and_statistic(monkeypatch: pytest.MonkeyPatch) -> None:
    new = '{"models": {"m": {"mean": {"threshold": -1.0}, "shared-drop": {"threshold": -6.0}}, "n": {"mean": {}}}}'
    monkeypatch.setattr(fluency_module, "_calibration_text", lambda: new)
    assert calibrated_thresholds("shared-drop") == {"m": -6.0} and calibrated_thresholds("mean") == {"m": -1.0}
    with pytest.raises(ParaspanError) as err:
        calibrated_threshold("n", "shared-drop")
    assert err.value.code == "E861" and "'shared-drop'" in str(err.value)
    old = '{"models": {"m": {"threshold": -1.5}}}'  # the older layout: the mean only
    monkeypatch.setattr(fluency_module, "_calibration_text", lambda: old)
    assert calibrated_thresholds("mean") == {"m": -1.5} and calibrated_thresholds("shared-drop") == {}


def test_new_content_must_also_keep_the_mean_log_prob(backend: LlamaBackend) -> None:
    """An infilled sentence shares few tokens with its source: its mean log-prob is checked too."""
    source = sent("s", SOURCE)
    word_salad = "The hikers fence up a the of shoes blue quickly soup."
    loose = FluencyFilter(1e9 * -1, functools.partial(text_token_logprobs, backend), model="small",
                          statistic="shared-drop", new_content_threshold=-0.5)
    paraphrase = sent("o1", word_salad, "s")
    new = Sentence("o2", word_salad, source_id="s", provenance={"meaning": "new"})
    assert loose.decide(paraphrase, source).keep  # shared-drop alone, with no limit: kept
    got = loose.decide(new, source)
    assert not got.keep and got.reason.startswith("new content: mean log-prob")
    assert got.details["new_content_threshold"] == -0.5
    # the registered filter takes the mean statistic's calibrated threshold for new content
    from paraspan.filter import build_filter

    assert build_filter({"name": "fluency", "model": "small"}).new_content_threshold == calibrated_threshold(
        "small", "mean")


def test_a_word_edit_must_also_pass_the_word_edit_threshold() -> None:
    """A one-word substitute whose neighbour became 4 nats more surprising: within the calibrated τ
    (−7), not within the word-edit threshold (−3); a rewritten sentence with the same drop passes."""
    from paraspan.filter.fluency import is_word_edit

    src_text, edit_text, reworded = "He was able to obtain it .", "He was capable to obtain it .", "It was obtained by him ."
    table = {src_text: ([1, 2, 3, 4, 5, 6, 7], [-1.0] * 7), edit_text: ([1, 2, 8, 4, 5, 6, 7], [-1.0, -1.0, -2.0, -5.0,
                                                                                                 -1.0, -1.0, -1.0]),
             reworded: ([2, 9, 9, 7], [-5.0, -1.0, -1.0, -1.0])}

    def scorer(texts):  # type: ignore[no-untyped-def]
        return [table[t] for t in texts]

    assert is_word_edit(src_text, edit_text) and not is_word_edit(src_text, reworded)
    assert is_word_edit("a b c", "a x y z c") and not is_word_edit("a b c d e", "x b c d y")
    strict = FluencyFilter(-7.0, scorer, statistic="shared-drop", word_edit_threshold=-3.0)
    source = sent("s", src_text)
    edit, other = strict.decide_batch([(sent("e", edit_text, "s"), source), (sent("r", reworded, "s"), source)])
    assert not edit.keep and "a word edit" in edit.reason and edit.details["word_edit"] is True
    assert edit.details["threshold"] == -3.0
    assert other.keep and other.score == pytest.approx(-4.0) and other.details["threshold"] == -7.0
    lax = FluencyFilter(-7.0, scorer, statistic="shared-drop")  # no word-edit threshold: τ alone
    assert lax.decide(sent("e", edit_text, "s"), source).keep
    assert fluency_filter("small").word_edit_threshold == -3.0  # the registered filter's default


def test_scores_are_remembered_across_calls() -> None:
    """The pipeline decides one candidate at a time: a source (and a rewrite several structures
    share) is scored once, not once per call; a text seen again gets the same decision; the memo
    keeps ``memo_size`` texts, the least recently used dropped first."""
    scored: list[str] = []

    def scorer(texts):  # type: ignore[no-untyped-def]
        scored.extend(texts)
        return [([1, 2, 3], [-1.0, -2.0, -1.0 - len(t) / 100]) for t in texts]

    flt = FluencyFilter(-7.0, scorer, statistic="shared-drop", memo_size=3)
    source = sent("s", SOURCE)
    first = flt.decide(sent("o1", FLUENT, "s"), source)
    again = flt.decide(sent("o2", FLUENT, "s"), source)  # another structure's chain, the same rewrite
    assert scored == [SOURCE, FLUENT]
    assert (again.keep, again.score, again.reason) == (first.keep, first.score, first.reason)
    flt.decide(sent("o3", BROKEN, "s"), source)
    assert scored == [SOURCE, FLUENT, BROKEN]
    flt.decide(sent("o4", LONG, "s"), source)  # a fourth text: FLUENT, the least recently used, goes
    assert len(flt._memo) == 3 and FLUENT not in flt._memo and SOURCE in flt._memo
    flt.decide(sent("o5", FLUENT, "s"), source)
    assert scored == [SOURCE, FLUENT, BROKEN, LONG, FLUENT]
