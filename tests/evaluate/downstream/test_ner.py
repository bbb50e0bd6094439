from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.evaluate.downstream.ner import SpacyNerLearner

NAMES = ["Anna", "Boris", "Chen", "Dana", "Emil", "Fatima"]
CITIES = ["Paris", "Oslo", "Lima", "Cairo", "Quito", "Delhi"]


def ner_corpus(n: int, offset: int = 0) -> list[Sentence]:
    out = []
    for i in range(offset, offset + n):
        name, city = NAMES[i % len(NAMES)], CITIES[(i // 2) % len(CITIES)]
        text = f"{name} flew to {city} today ."
        c0 = len(name) + len(" flew to ")
        out.append(Sentence(f"n{i}", text, [Structure("entity", "PER", Span(0, len(name))),
                                            Structure("entity", "LOC", Span(c0, c0 + len(city)))]))
    return out


def test_spacy_ner_trains_and_scores_with_unseen_labels_reported():
    odd = Sentence("odd", "Anna works at Acme .", [Structure("entity", "PER", Span(0, 4)),
                                                      Structure("entity", "ORG", Span(14, 18))])
    result = SpacyNerLearner(epochs=15, max_steps=200).run(ner_corpus(30), {"dev": ner_corpus(6, 30), "odd": [odd]}, 0)
    assert result.diverged is None
    assert result.info["labels"] == ["LOC", "PER"]
    assert result.scores["dev"]["f1"] >= 80.0
    assert result.scores["odd"]["gold_unseen_labels"] == ["ORG"] and result.scores["odd"]["recall"] <= 50.0


def test_spacy_ner_without_entities_is_reported():
    bare = [Sentence("a", "Nothing here .", [])]
    assert SpacyNerLearner(epochs=1).run(bare, {"dev": bare}, 0).diverged == "no entity in the training data"


def test_gold_budget_gives_an_augmented_set_the_updates_of_its_gold_part():
    """budget="gold": added sentences (here copies, which carry a source_id) change what the learner
    sees, not how many updates it makes; the default budget makes more updates for more sentences."""
    gold = ner_corpus(40)
    copies = [Sentence(f"{s.id}:copy", s.text, list(s.structures), source_id=s.id) for s in gold]
    dev = {"dev": ner_corpus(4, 40)}
    learner = SpacyNerLearner(epochs=2, budget="gold")
    alone, more = learner.run(gold, dev, 0), learner.run(gold + copies, dev, 0)
    assert alone.info["steps"] == more.info["steps"] > 0
    assert "steps" not in SpacyNerLearner(epochs=2, budget="all").run(gold, dev, 0).info
    with pytest.raises(ValueError, match="budget"):
        SpacyNerLearner(budget="twice")


def test_averaged_weights_are_scored_when_asked(monkeypatch):
    """averages=True sets spaCy's use_averages, and the model trained with it still learns the toy data."""
    from paraspan.evaluate.downstream import ner

    seen = []
    real = ner.ner_config

    def spy(*args, **kwargs):
        config = real(*args, **kwargs)
        seen.append(config)
        return config

    monkeypatch.setattr(ner, "ner_config", spy)
    result = SpacyNerLearner(epochs=15, max_steps=200, averages=True, budget="gold").run(
        ner_corpus(30), {"dev": ner_corpus(6, 30)}, 0)
    assert result.diverged is None and result.scores["dev"]["f1"] >= 80.0
    assert seen and seen[-1]["training"]["optimizer"]["use_averages"] is True
    # and what is scored is the pipeline spaCy saved with the averaged weights swapped in (its
    # returned pipeline keeps the last step's: its closing `use_params` is never entered)
    import spacy

    loaded = []
    real_load = spacy.load
    monkeypatch.setattr(spacy, "load", lambda path, *a, **k: loaded.append(path) or real_load(path, *a, **k))
    SpacyNerLearner(epochs=2, max_steps=200, averages=True).run(ner_corpus(30), {"dev": ner_corpus(6, 30)}, 0)
    assert len(loaded) == 1 and loaded[0].name == "model-last"
    SpacyNerLearner(epochs=2, max_steps=200, averages=False).run(ner_corpus(30), {"dev": ner_corpus(6, 30)}, 0)
    assert len(loaded) == 1
