"""The spaCy augmenter `paraspan.store.v1`: reached through spaCy's registry (the entry point), it brings a
run store's outputs into `spacy train`, and refuses a store made from another corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

import paraspan
from paraspan.corpus.formats import write_corpus
from paraspan.corpus.schema import Sentence
from paraspan.errors import ParaspanError

spacy = pytest.importorskip("spacy")

FAKE = {"generator": "tests.pipeline.fakes:make_generator", "aligner": "tests.pipeline.fakes:make_aligner"}


def _entity(sid: str, text: str, mention: str, label: str) -> Sentence:
    start = text.index(mention)
    return Sentence.from_dict({"id": sid, "text": text, "structures": [
        {"kind": "entity", "label": label, "anchor": {"start": start, "end": start + len(mention)}, "args": []}]})


# the fake generator swaps a banned word for its synonym ("teacher" → "tutor"): a mention chain rewrites it
TRAIN = [_entity("t1", "The teacher arrived in Oslo.", "teacher", "PER"),
         _entity("t2", "Anna met the teacher.", "teacher", "PER"),
         _entity("t3", "Berlin bought a bicycle.", "Berlin", "LOC"),
         _entity("t4", "Nobody came to Paris.", "Paris", "LOC")]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("spacy-aug")
    write_corpus(TRAIN, root / "train.spacy", "docbin")
    write_corpus(TRAIN, root / "dev.spacy", "docbin")
    outputs = list(paraspan.augment(TRAIN, filters="all", iterations=1, workers=1, store=root / "run.db", **FAKE))
    assert [o.text for o in outputs] == ["The tutor arrived in Oslo.", "Anna met the tutor."]
    other = [_entity("o1", "Completely different text.", "Completely", "MISC")]
    list(paraspan.augment(other, filters="all", iterations=1, workers=1, store=root / "other.db", **FAKE))
    return {"root": root, "store": root / "run.db", "other": root / "other.db",
            "outputs": [o.text for o in outputs]}


def _config(run: dict[str, Path], store: Path, **augmenter: object) -> Path:
    from spacy.cli.init_config import init_config

    config = init_config(lang="en", pipeline=["ner"], optimize="efficiency")
    config["paths"]["train"] = str(run["root"] / "train.spacy")
    config["paths"]["dev"] = str(run["root"] / "dev.spacy")
    config["corpora"]["train"]["augmenter"] = {"@augmenters": "paraspan.store.v1", "store": str(store),
                                               "filter": "all", **augmenter}
    config["training"]["max_epochs"] = 1
    config["training"]["max_steps"] = 0
    config["nlp"]["batch_size"] = 4
    path = run["root"] / f"config-{len(list(run['root'].glob('config-*')))}.cfg"
    config.to_disk(path)
    return path


def test_the_augmenter_is_in_spacys_registry() -> None:
    from spacy.util import registry

    from paraspan.spacy_augmenter import store_augmenter

    assert registry.augmenters.get("paraspan.store.v1") is store_augmenter


def test_spacy_train_sees_the_augmented_examples(run, monkeypatch) -> None:
    from spacy.cli.train import train
    from spacy.language import Language

    seen: list[str] = []
    update = Language.update

    def recording(self, examples, *args, **kwargs):
        examples = list(examples)
        seen.extend(eg.reference.text for eg in examples)
        return update(self, examples, *args, **kwargs)

    monkeypatch.setattr(Language, "update", recording)
    train(_config(run, run["store"]), None, use_gpu=-1)
    assert {s.text for s in TRAIN} <= set(seen)  # the originals pass through
    assert set(run["outputs"]) <= set(seen)  # and every output of the store was trained on
    assert len(seen) == len(TRAIN) + len(run["outputs"])  # one epoch


def test_augmented_docs_carry_the_outputs_entities(run) -> None:
    from spacy.training import Example

    from paraspan.spacy_augmenter import store_augmenter

    nlp = spacy.blank("en")
    augmenter = store_augmenter(str(run["store"]), filter="all")
    doc = nlp.make_doc(TRAIN[0].text)
    doc.ents = [doc.char_span(4, 11, label="PER")]
    examples = list(augmenter(nlp, Example(nlp.make_doc(doc.text), doc)))
    assert [eg.reference.text for eg in examples] == [TRAIN[0].text, "The tutor arrived in Oslo."]
    assert [(e.text, e.label_) for e in examples[1].reference.ents] == [("tutor", "PER")]
    assert [s.text for s in examples[1].reference.spans["entity"]] == ["tutor"]
    assert augmenter.seen == 1 and augmenter.added == 1
    only = store_augmenter(str(run["store"]), filter="all", include_original=False)
    assert [eg.reference.text for eg in only(nlp, Example(nlp.make_doc(doc.text), doc))] == [
        "The tutor arrived in Oslo."]


def test_a_store_of_another_corpus_is_refused_with_its_name(run) -> None:
    from spacy.training import Example

    from paraspan.spacy_augmenter import store_augmenter

    with pytest.raises(ParaspanError, match="made from another corpus") as caught:
        store_augmenter(str(run["other"]), filter="all", corpus=str(run["root"] / "train.spacy"))
    assert caught.value.code == "E987"
    augmenter = store_augmenter(str(run["other"]), filter="all", check=3)
    nlp = spacy.blank("en")
    for sentence in TRAIN[:2]:
        list(augmenter(nlp, Example(nlp.make_doc(sentence.text), nlp.make_doc(sentence.text))))
    with pytest.raises(ParaspanError, match="none of the first 3 training examples"):
        list(augmenter(nlp, Example(nlp.make_doc("x"), nlp.make_doc("x"))))
    with pytest.raises(ParaspanError, match="recorded no filter 'verified'") as caught:
        store_augmenter(str(run["store"]))
    assert caught.value.code == "E988"
    with pytest.raises(ParaspanError, match="no such run store"):
        store_augmenter(str(run["root"] / "missing.db"))


def test_spacy_train_refuses_the_other_store_at_start(run) -> None:
    from spacy.cli.train import train

    with pytest.raises(ParaspanError) as caught:
        train(_config(run, run["other"], corpus=str(run["root"] / "train.spacy")), None, use_gpu=-1)
    assert caught.value.code == "E987"
