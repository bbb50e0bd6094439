"""The FE-type classifier: markers, training data, the head's persistence, and the packaged head."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.errors import ModelError
from paraspan.filter.fe_classifier import NOT_FE, FEClassifier, FEInstance, instances_from_sentence, mark
from paraspan.filter.fe_train import FERecipe, train_fe_classifier
from tests.conftest import need_shared

FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "fixtures" / "framenet"


def instance(text: str, lu: str, span: str, frame: str, label: str | None = None) -> FEInstance:
    a, b = text.index(lu), text.index(span)
    return FEInstance(text, (a, a + len(lu)), (b, b + len(span)), frame, label)


def test_mark_puts_markers_around_lu_and_span_and_appends_the_frame():
    inst = instance("Mira sold three baskets to a stranger .", "sold", "to a stranger", "Commerce_sell")
    marked, fe, lu, frame = mark(inst)
    assert marked == "Mira << sold >> three baskets [[ to a stranger ]] . | Commerce sell"
    assert marked[fe[0]:fe[1]] == "to a stranger"
    assert marked[lu[0]:lu[1]] == "sold"
    assert marked[frame[0]:frame[1]] == "Commerce sell"


def test_mark_cuts_long_sentences_around_lu_and_span():
    words = " ".join(f"w{i}" for i in range(40))
    text = f"{words} Mira sold baskets {words} ."
    marked, fe, lu, _ = mark(instance(text, "sold", "baskets", "Commerce_sell"))
    assert marked[fe[0]:fe[1]] == "baskets" and marked[lu[0]:lu[1]] == "sold"
    # 12 words of context on each side of the LU and the span ("Mira" is the first on the left)
    assert marked.startswith("w29 w30 ") and marked.endswith("w10 w11 | Commerce sell")


def test_instances_include_random_not_fe_spans_that_avoid_target_and_fes():
    text = "On Monday the old farmer sold three fat pigs to his neighbour for a good price ."
    structure = Structure("frame", "Commerce_sell", Span(25, 29, "sell.v"),
                          [Span(10, 24, "Seller"), Span(30, 44, "Goods"), Span(45, 61, "Buyer")])
    sentence = Sentence("x", text, [structure])
    plain = list(instances_from_sentence(sentence))
    assert [i.label for i in plain] == ["Seller", "Goods", "Buyer"]
    many = [i for seed in range(40) for i in instances_from_sentence(sentence, none_rate=0.5, seed=seed)]
    nones = [i for i in many if i.label == NOT_FE]
    assert 0.15 * len(many) < len(nones) < 0.5 * len(many)
    gold = {(a.start, a.end) for a in structure.args}
    for inst in nones:
        assert inst.fe not in gold
        assert inst.fe[1] <= 25 or inst.fe[0] >= 29  # never over the target


def test_train_save_load_and_frame_restriction(tmp_path):
    report = train_fe_classifier(FIXTURE / "fndata-0.1", FIXTURE / "splits.json", tmp_path,
                                 FERecipe(exemplar_every=1, epochs=5, hidden=16), cache_dir=tmp_path / "cache",
                                 log=lambda _: None)
    assert report.path == tmp_path / "fe-head.npz" and report.path.is_file()
    assert report.exemplar_examples > 0 and report.examples > report.exemplar_examples
    clf = FEClassifier.load(tmp_path)
    again = FEClassifier.load(report.path)
    assert clf.labels == again.labels and NOT_FE in clf.labels
    # the frame → FE frequency prior travels with the head, and its weight was chosen on dev
    assert clf.prior and clf.prior == again.prior and clf.prior[("Trading", "Goods")] >= 1
    assert clf.prior_weight in FERecipe().prior_weights
    inst = instance("Mira sold three baskets to a stranger .", "sold", "three baskets", "Trading", "Goods")
    label, prob = clf.predict([inst])[0]
    # restricted to Trading's FEs (plus NOT_FE), whatever the head scores highest overall
    assert label in set(clf.frame_fes["Trading"]) | {NOT_FE}
    assert 0.0 < prob <= 1.0
    assert (tmp_path / "cache").is_dir() and any((tmp_path / "cache").iterdir())  # features cached for re-runs
    np.testing.assert_allclose(clf.scores(np.ones((1, clf.w1.shape[0]), np.float32)),
                               again.scores(np.ones((1, again.w1.shape[0]), np.float32)), rtol=1e-5)


def test_missing_head_is_a_model_error(tmp_path):
    with pytest.raises(ModelError, match="no FE classifier head"):
        FEClassifier.load(tmp_path / "nothing.npz")


def test_packaged_head_labels_hand_written_spans():
    clf = FEClassifier.load()
    assert clf.info.get("train_spans", 0) > 10_000
    text = "Last week the old farmer sold his tractor to a young neighbour ."
    cases = [instance(text, "sold", "the old farmer", "Commerce_sell", "Seller"),
             instance(text, "sold", "his tractor", "Commerce_sell", "Goods"),
             instance(text, "sold", "to a young neighbour", "Commerce_sell", "Buyer")]
    text2 = "The children walked slowly to the river after lunch ."
    cases.append(instance(text2, "walked", "to the river", "Self_motion", "Goal"))
    cases.append(instance(text2, "walked", "The children", "Self_motion", "Self_mover"))
    got = [label for label, _ in clf.predict(cases)]
    # the head is right on ~80% of FrameNet dev spans: allow one miss (it says Path for this Goal)
    assert got[:3] == ["Seller", "Goods", "Buyer"]
    assert sum(g == c.label for g, c in zip(got, cases, strict=True)) >= 4


@pytest.mark.shared
def test_packaged_head_on_framenet_dev_sample():
    from itertools import islice

    from paraspan.corpus.framenet import read_framenet

    release = need_shared("data", "framenet", "fndata-1.5.tar.gz")
    splits = need_shared("data", "framenet", "fulltext-splits.json")
    instances = []
    for sentence in islice(read_framenet(release, split="dev", splits=splits), 120):
        instances.extend(i for i in instances_from_sentence(sentence) if i.label)
    instances = instances[:300]
    clf = FEClassifier.load()
    right = sum(label == inst.label for (label, _), inst in zip(clf.predict(instances), instances, strict=True))
    assert right / len(instances) >= 0.75
