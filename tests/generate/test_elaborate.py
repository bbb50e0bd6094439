"""Reverse entailments by insertion (:mod:`paraspan.generate.elaborate`), with a scripted LLM."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from paraspan.generate.base import GenerationRequest
from paraspan.generate.elaborate import ElaborateConfig, Elaborator, Site, assemble, clause_of, sites
from paraspan.llm.backend import Prompt, Sample
from paraspan.models import load_spacy


@pytest.fixture(scope="module")
def nlp() -> Any:
    return load_spacy()


class ScriptedBackend:
    """Answers each prompt with the continuations ``script(user message)`` gives; the prompt's one
    token is the number of the user message, so the answer can be looked up."""

    name = "scripted"

    def __init__(self, script: Callable[[str], Sequence[str]]) -> None:
        self.script = script
        self.users: list[str] = []

    def chat_prompt(self, system: str, user: str, *, split_at: str | None = None) -> Prompt:
        self.users.append(user)
        return Prompt((), (len(self.users) - 1,))

    def tokenize(self, text: str, *, special: bool = False) -> list[int]:
        return []

    def sample_batch(self, jobs: Sequence[Any], *, top_k: int = 10, temperature: float = 1.0) -> list[list[Sample]]:
        return [[Sample(text, [1], [-0.5 - i / 10], "stop") for i, text in enumerate(
            self.script(self.users[job.prompt.suffix[0]]))] for job in jobs]


def _phrases(nlp: Any, text: str) -> list[str]:
    return [s.phrase for s in sites(nlp(text))]


def test_sites_are_definite_subjects_and_nouns_that_end_the_sentence(nlp: Any) -> None:
    assert _phrases(nlp, "The painting went to Anna Berg.") == ["The painting", "Anna Berg"]
    # a noun in a phrase after the verb's object may be what a clause after it is about
    assert _phrases(nlp, "The museum sold the painting to Anna Berg.") == ["The museum"]
    # a subject's phrase runs on; the clause goes after all of it
    assert _phrases(nlp, "The mayor of Leeds opened the new bridge.") == ["The mayor of Leeds", "the new bridge"]
    # a bare plural subject is a group; an indefinite or a date gets none
    assert _phrases(nlp, "Analysts expect a cut.") == ["Analysts"]
    assert _phrases(nlp, "A man sold the boat on Friday.") == []
    # a question, a quotation, a coordination
    assert _phrases(nlp, "Did the museum sell the painting?") == []
    assert "The museum" not in _phrases(nlp, '"The museum sold it," Anna said.')
    assert _phrases(nlp, "The museum and the gallery sold paintings.") == []
    # a sentence that begins inside a quotation whose opening mark it lacks
    assert _phrases(nlp, "The old museum is closing at last,'' the mayor told Reuters.") == ["the mayor", "Reuters"]
    # a PTB quotation later in the sentence is no lone closing mark
    assert "The museum" in _phrases(nlp, "The museum called the painting its `` top priority '' .")
    # (a lone straight mark: the rewriter's _quoted reads it as opening, so nothing after it either)
    assert _phrases(nlp, 'The old museum is closing at last," the mayor told Reuters.') == []


def test_no_site_inside_a_kept_span(nlp: Any) -> None:
    text = "The painting went to Anna Berg."
    assert [s.phrase for s in sites(nlp(text), keep=[(0, 17)])] == ["Anna Berg"]  # "The painting went"
    assert [s.phrase for s in sites(nlp(text), keep=[(4, 12)])] == ["The painting", "Anna Berg"]  # ends at the site


SOURCE = "The museum sold the painting last year."
SITE = Site(1, len("The museum"), "The museum", False)
FINAL = Site(4, len("The museum sold the painting"), "the painting", True)


@pytest.mark.parametrize("sample, clause, why", [
    (" which opened in the spring, sold the painting", "which opened in the spring", ""),
    ("which stands by the river, sold the painting last year.", "which stands by the river", ""),
    (" the old one, sold the painting", None, "not a relative clause"),
    (" which stands by the river and", None, "unfinished"),
    (" which stands by the river, bought the painting", None, "did not go on with the sentence"),
    (" which sold the painting, sold the painting", None, "repeats the sentence"),
    (" which meets every Tuesday, sold the painting", None, "copies an example"),
    (" which (the old one) stands, sold the painting", None, "punctuation or number"),
    (" which " + "very " * 14 + "old, sold the painting", None, "length"),
    (" which opened in 1990, sold the painting", None, "punctuation or number"),  # a date the source lacks,
])
def test_a_clause_must_end_where_the_sentence_goes_on(sample: str, clause: str | None, why: str) -> None:
    assert clause_of(sample, SOURCE, SITE) == (clause, why)


def test_the_pronoun_must_fit_the_noun() -> None:
    source = "Two congressmen have visited Iraq."
    place = Site(4, len("Two congressmen have visited Iraq"), "Iraq", True, "GPE")
    assert clause_of(" who is a political figure.", source, place) == (None, "the pronoun does not fit the noun")
    assert clause_of(" which is at war.", source, place) == ("which is at war", "")
    person = Site(0, len("Anna"), "Anna", False, "PERSON")
    assert clause_of(" which is a lawyer, left", "Anna left.", person)[1] == "the pronoun does not fit the noun"


def test_a_clause_at_the_end_of_the_sentence_ends_it() -> None:
    source = "The museum sold the painting."
    assert clause_of(" which hung in the hall.", source, FINAL) == ("which hung in the hall", "")
    assert clause_of(" which hung in the hall. It was old.", source, FINAL)[1] == "went on after the sentence"
    assert assemble(source, FINAL, "which hung in the hall") == "The museum sold the painting, which hung in the hall."
    assert assemble(SOURCE, SITE, "which opened in 1990") == "The museum, which opened in 1990, sold the painting last year."


def test_elaborator_offers_checked_insertions(nlp: Any) -> None:
    def script(user: str) -> list[str]:
        if 'after: "The museum"' in user:
            return [" which opened in the spring, sold the painting",
                    " which were closed, sold the painting",  # plural verb on a singular noun
                    " which opened in the spring, sold the painting"]  # the same again: offered once
        return [" which hung in the hall."]

    backend = ScriptedBackend(script)
    gen = Elaborator(backend, ElaborateConfig(n=5), nlp=nlp)
    [result] = gen.generate_batch([GenerationRequest("s", "The museum sold the painting.")])
    texts = [c.text for c in result.candidates]
    assert texts == ["The museum, which opened in the spring, sold the painting.",
                     "The museum sold the painting, which hung in the hall."]
    assert all(c.meta["source"] == "insertion" and c.meta["rules"] == ["insert-relative-clause"]
               for c in result.candidates)
    assert gen.counts["rejected:the clause does not agree with the noun"] == 1
    assert 'Sentence: The museum sold the painting.\nAdd a clause after: "the painting"' in backend.users[1]


def test_elaborator_says_why_there_is_none(nlp: Any) -> None:
    gen = Elaborator(ScriptedBackend(lambda user: [" the old one, sold it"]), nlp=nlp)
    none, bad = gen.generate_batch([GenerationRequest("a", "A man sold a boat."),
                                    GenerationRequest("b", "The museum sold it.")])
    assert not none.candidates and none.note == "no noun phrase to add a clause to"
    assert not bad.candidates and bad.note == "no clause passed the checks"


def test_a_clause_the_parser_does_not_hang_on_the_noun_is_refused(nlp: Any) -> None:
    """The deletion rule must give the source back: a "clause" that swallows the verb does not."""
    gen = Elaborator(ScriptedBackend(lambda user: [" which sold, sold the painting"]), nlp=nlp)
    [result] = gen.generate_batch([GenerationRequest("s", "The museum sold the painting.")])
    assert not result.candidates


def test_an_argument_takes_in_the_clause_about_its_noun_and_an_anchor_does_not(nlp: Any) -> None:
    """A non-restrictive relative clause belongs to its noun's phrase, so the argument that holds the
    noun takes it in ("[ARG0 The museum, which opened in the spring,] sold"), without the commas
    around it; an anchor (the predicate, an entity mention) keeps exactly its words, and an argument
    the clause is not about keeps its own."""
    from paraspan.corpus.schema import Span, Structure
    from paraspan.generate.project import project_mapping
    from tests.generate.rewrite.helpers import srl

    text = "The museum sold the painting."
    sentence = srl("a", text, ("sell.01", "sold", [("ARG0", "The museum"), ("ARG1", "the painting")]))
    sentence.structures.append(Structure("entity", "ORG", Span(4, 10, "ORG")))  # "museum"
    gen = Elaborator(ScriptedBackend(lambda user: [" which opened in the spring, sold the painting",
                                                   " which hung in the hall."]), ElaborateConfig(n=5), nlp=nlp)
    [result] = gen.generate_batch([GenerationRequest("a", text)])
    by_text = {c.text: c for c in result.candidates}
    assert set(by_text) == {"The museum, which opened in the spring, sold the painting.",
                            "The museum sold the painting, which hung in the hall."}
    spans = {}
    for got, cand in by_text.items():
        predicate, entity = project_mapping(sentence, cand.mapping).structures
        assert got[predicate.anchor.start:predicate.anchor.end] == "sold"
        assert got[entity.anchor.start:entity.anchor.end] == "museum"
        spans[got] = [(a.label, got[a.start:a.end]) for a in predicate.args]
    assert spans == {
        "The museum, which opened in the spring, sold the painting.": [
            ("ARG0", "The museum, which opened in the spring"), ("ARG1", "the painting")],
        "The museum sold the painting, which hung in the hall.": [
            ("ARG0", "The museum"), ("ARG1", "the painting, which hung in the hall")]}


def test_no_clause_inside_a_labelled_span(nlp: Any) -> None:
    users: list[str] = []
    backend = ScriptedBackend(lambda user: users.append(user) or [])
    gen = Elaborator(backend, nlp=nlp)
    text = "The painting went to Anna Berg."
    gen.generate_batch([GenerationRequest("a", text, protect=((0, 17),))])  # "The painting went"
    assert [u.rsplit('after: "', 1)[1] for u in users] == ['Anna Berg"']


def test_elaborate_is_registered_and_augment_judges_it_as_reverse() -> None:
    from paraspan.cli.augment import directional_check
    from paraspan.generate.base import generators

    assert "elaborate" in generators.names()
    data: dict[str, Any] = {"generator": {"name": "elaborate"}, "filters": ["verified"]}
    directional_check(data)
    assert data["filters"] == [{"name": "verified", "relation": "reverse", "judges": ["llm"]}]
