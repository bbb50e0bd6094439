"""The paraphraser: verification helpers, bad inputs, end to end on the small model."""

from __future__ import annotations

import pytest

from paraspan.generate.base import GenerationRequest, Generator, generators
from paraspan.generate.paraphrase import (
    ParaphraseConfig,
    Paraphraser,
    _keeps_span,
    clean_output,
    normalise,
    overlap_problems,
    skip_reason,
    span_problems,
)
from paraspan.llm.llama_backend import LlamaBackend
from paraspan.provenance import Generated
from paraspan.text.constraints import expand_ban

TEXT = "The company sold its shares to investors in March."
SOLD = (TEXT.index("sold"), TEXT.index("sold") + 4)
MARCH = (TEXT.index("in March"), TEXT.index("in March") + 8)
FAST = ParaphraseConfig(n=3, samples=3, constraint_sets=2)


@pytest.mark.parametrize(("raw", "clean"), [
    ('"The firm sold it."', "The firm sold it."),
    ("Paraphrase: The firm sold it.", "The firm sold it."),
    ("Here is the paraphrased sentence: \u201cThe firm sold it.\u201d", "The firm sold it."),
    ('Sure! Here\'s a rewrite: "The firm sold it".', "The firm sold it."),
    ("The sentence is: The firm sold it.", "The sentence is: The firm sold it."),  # not a known preamble
    ("  The firm: a story.  ", "The firm: a story."),
])
def test_clean_output(raw: str, clean: str) -> None:
    assert clean_output(raw) == clean


def test_normalise_and_kept_spans() -> None:
    assert normalise("The  Firm, sold!") == "the firm sold"
    assert _keeps_span("Investors got it in March.", "in March", at_start=False)
    assert not _keeps_span("Investors got it in Marching.", "in March", at_start=False)
    assert _keeps_span("Later, the company sold it.", "The company", at_start=True)
    assert not _keeps_span("Later, the company sold it.", "The company", at_start=False)


def test_skip_reasons() -> None:
    assert skip_reason("") == "empty text"
    assert skip_reason("   ") == "empty text"
    assert "no letters" in (skip_reason("!!! 123 ???") or "")
    assert "not English" in (skip_reason("Привет, как дела?") or "")
    assert skip_reason("Café au lait is served at noon.") is None


def test_span_checks() -> None:
    assert span_problems("abc", [[0, 3]], "ban") == []
    problems = span_problems("abc", [[0, 4], [2, 2], "x", [0, 1.5], [1, 2]], "ban")
    assert len(problems) == 4 and "out of range" in problems[0] and "two integers" in problems[2]
    assert "whitespace" in span_problems("a  b", [[1, 3]], "keep")[0]
    assert overlap_problems([(0, 4)], [(3, 6)]) and not overlap_problems([(0, 3)], [(3, 6)])


def test_registered_generator(small_backend: LlamaBackend) -> None:
    from paraspan.generate.paraphrase import make_paraphraser

    assert generators.get("paraphrase") is make_paraphraser
    assert {"model", "samples", "constraint_sets", "rescore_top", "seed", "threads"} <= set(generators.options("paraphrase"))
    paraphraser = Paraphraser(small_backend, FAST)
    assert isinstance(paraphraser, Generator) and paraphraser.capabilities.honours_ban
    # in the pipeline the dual score is off unless asked for (--rescore-top, or backward=True)
    assert make_paraphraser("small", threads=1, batch=8).config.backward is False
    assert make_paraphraser("small", threads=1, batch=8, rescore_top=1).config.backward is True
    assert make_paraphraser("small", threads=1, batch=8, backward=True).config.backward is True


def test_end_to_end_on_the_small_model(small_backend: LlamaBackend) -> None:
    paraphraser = Paraphraser(small_backend, FAST)
    result = paraphraser.generate(GenerationRequest("a", TEXT, ban=(SOLD,), keep=(MARCH,)))
    assert result.stats["sampled"] == 6
    bans = expand_ban("sold")
    assert len(result.candidates) <= 3
    for candidate in result.candidates:
        assert bans.find_leaks(candidate.text) == []
        assert "in March" in candidate.text
        assert set(candidate.scores) == {"forward", "backward", "score"}
        assert candidate.scores["score"] == pytest.approx(candidate.scores["forward"] + candidate.scores["backward"])
        assert isinstance(candidate.meta["cluster"], int)
    if not result.candidates:
        assert result.note and result.note.startswith("no candidate survived")
    scores = [c.scores["score"] for c in result.candidates]
    assert scores == sorted(scores, reverse=True)


def test_same_seed_same_paraphrases(small_backend: LlamaBackend) -> None:
    request = GenerationRequest("a", "Anna bought a red bicycle for her brother.", ban=((5, 11),))
    first = Paraphraser(small_backend, FAST).generate(request)
    again = Paraphraser(small_backend, FAST).generate(request)
    other = Paraphraser(small_backend, FAST, seed=1).generate(request)
    assert [(c.text, c.scores) for c in first.candidates] == [(c.text, c.scores) for c in again.candidates]
    assert [c.text for c in first.candidates] != [c.text for c in other.candidates]


def test_bad_inputs_get_notes_not_errors(small_backend: LlamaBackend) -> None:
    paraphraser = Paraphraser(small_backend, FAST)

    def note(text: str, ban=(), keep=()) -> str:  # type: ignore[no-untyped-def]
        result = paraphraser.generate(GenerationRequest("x", text, ban=ban, keep=keep))
        assert result.candidates == []
        return result.note or ""

    assert note("") == "empty text"
    assert "no letters" in note("$$$ 42 %%%")
    assert "not English" in note("这是一个句子。")
    assert "out of range" in note("Short.", ban=((0, 99),))
    assert "both banned and kept" in note(TEXT, ban=(SOLD,), keep=((12, 20),))
    conflict = "He sold it and she sold it too."
    assert "form of a banned word" in note(conflict, ban=((3, 7),), keep=((19, 23),))


def test_too_long_for_the_context() -> None:
    backend = LlamaBackend.load("small", n_ctx=256, max_parallel=2, n_threads=1)
    try:
        result = Paraphraser(backend, FAST).generate(GenerationRequest("x", "A fairly long sentence. " * 20))
        assert result.candidates == [] and (result.note or "").startswith("too long")
    finally:
        backend.close()


@pytest.mark.slow
def test_default_model_one_sentence() -> None:
    backend = LlamaBackend.load("default", max_parallel=8)
    try:
        result = Paraphraser(backend, ParaphraseConfig(n=2, samples=3, constraint_sets=2)).generate(
            GenerationRequest("a", TEXT, ban=(SOLD,)))
    finally:
        backend.close()
    assert result.candidates, result.note
    bans = expand_ban("sold")
    assert all(bans.find_leaks(c.text) == [] for c in result.candidates)


def test_rescoring_only_the_best_of_each_cluster(small_backend: LlamaBackend) -> None:
    config = ParaphraseConfig(n=2, samples=4, constraint_sets=2, rescore_per_cluster=1, clusters=3)
    result = Paraphraser(small_backend, config).generate(GenerationRequest("a", TEXT, ban=(SOLD,)))
    assert result.stats.get("backward_scored", 0) <= 3
    for candidate in result.candidates:
        assert candidate.scores["backward"] > float("-inf")
        assert expand_ban("sold").find_leaks(candidate.text) == []


def test_random_bans_spare_numbers_names_and_arguments() -> None:
    from paraspan.text.constraints import BanSet

    para = Paraphraser(backend=object(), config=ParaphraseConfig(constraint_sets=8, random_fraction=1.0))
    text = "Five inspectors from Hungary quietly visited forty chemical plants near the border."
    groups, chosen = para._constraint_sets(text, BanSet(), [], protect=[(51, 66)])  # "chemical plants"
    banned = {w.lower() for words in chosen for w in words}
    assert banned and not banned & {"five", "hungary", "forty", "chemical", "plants"}
    assert {"inspectors", "quietly", "border"} <= banned


def test_a_batch_of_requests_gets_one_result_each(small_backend: LlamaBackend) -> None:
    """generate_batch: a request that cannot be paraphrased gets its note, the others their own
    candidates (their bans kept), and the batch's time is shared out by sampled tokens."""
    other = "A storm reached the coast on Friday."
    requests = [GenerationRequest("a", TEXT, ban=(SOLD,)), GenerationRequest("skip", "$$$ 42 %%%"),
                GenerationRequest("b", other, ban=((other.index("reached"), other.index("reached") + 7),))]
    results = Paraphraser(small_backend, FAST).generate_batch(requests)
    assert [r.request.id for r in results] == ["a", "skip", "b"]
    assert "no letters" in (results[1].note or "") and results[1].candidates == []
    for result, word in ((results[0], "sold"), (results[2], "reached")):
        assert result.stats["sampled"] == 6
        assert all(expand_ban(word).find_leaks(c.text) == [] for c in result.candidates)
    assert results[0].stats["sample_seconds"] + results[2].stats["sample_seconds"] > 0
    # each request's constraint sets are the ones it gets alone (they come from its text, not the batch)
    paraphraser = Paraphraser(small_backend, FAST)
    _, sets = paraphraser._constraint_sets(TEXT, expand_ban("sold"), [])
    # read through the typed model, as the content check reads them (an empty set is not written)
    assert {Generated.of_meta(c.meta).random_bans for c in results[0].candidates} <= {tuple(s) for s in sets}


def test_a_run_of_words_written_twice_is_refused() -> None:
    from paraspan.generate.paraphrase_checks import repeated_run
    from paraspan.llm.backend import Sample
    from paraspan.text.constraints import BanSet

    source = "The mayor said from Lyon that the council had approved the new bridge."
    twice = "The mayor stated from Lyon the council had approved the new bridge, that the council had approved it."
    assert repeated_run(source, twice) == "the council had"
    assert repeated_run(source, "From Lyon, the mayor announced that the council had approved the new bridge.") is None
    # what the source itself repeats may stay; runs of function words only are not counted
    assert repeated_run("He said that it was what it was.", "He stated that it was what it was.") is None
    assert repeated_run("It is what it is.", "It is what it is, it is what it is.") is None
    para = Paraphraser(backend=object(), config=ParaphraseConfig())
    pool = para._verify(source, [Sample(twice, [1], [-0.1], "stop")], BanSet(), [], {})
    assert not pool.texts and pool.rejected["repeats"] == 1
