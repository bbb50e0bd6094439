from __future__ import annotations

import pytest

from paraspan.corpus.schema import Sentence, Span, Structure
from paraspan.evaluate.downstream.features import FeatureCache
from paraspan.evaluate.downstream.frame_id import FrameIdLearner
from paraspan.evaluate.downstream.learners import HeadConfig, Score
from paraspan.evaluate.downstream.srl import SrlLearner, decode_bio
from tests.evaluate.downstream.toy import fake_encode, frame_corpus

FAST = HeadConfig(hidden=32, epochs=20, min_steps=60, max_steps=200, batch_size=128, lr=5e-3)


def test_feature_cache_encodes_each_word_list_once(tmp_path):
    calls = []

    def encode(batch):
        calls.append(len(batch))
        return fake_encode(batch)

    cache = FeatureCache(encode, "fake", tmp_path / "c.sqlite")
    first = cache.get([["a", "b"], ["c"], ["a", "b"]])
    assert calls == [2] and first[0].shape == (2, 32)
    cache.close()
    again = FeatureCache(encode, "fake", tmp_path / "c.sqlite").get([["c"], ["a", "b"]])
    assert calls == [2]  # read back from disk
    assert abs(again[1] - first[0]).max() < 1e-2  # float16 on disk


def test_score_micro_f1():
    score = Score()
    score.add({(0, 1, "A"), (2, 2, "B")}, {(0, 1, "A"), (3, 3, "B")})
    assert (score.tp, score.fp, score.fn) == (1, 1, 1) and score.f1 == pytest.approx(50.0)


def test_frame_id_learns_toy_triggers_and_counts_unseen_frames():
    learner = FrameIdLearner(FeatureCache(fake_encode, "fake"), FAST)
    train, dev = frame_corpus(48), frame_corpus(12, offset=100)
    unseen = Sentence("u", "Hiro stole a car .", [Structure("frame", "Robbery", Span(5, 10), [])])
    result = learner.run(train, {"dev": dev, "odd": [unseen]}, seed=0)
    assert result.diverged is None
    assert result.scores["dev"]["f1"] >= 90.0
    assert result.scores["odd"]["gold_unseen_frames"] == 1 and result.scores["odd"]["tp"] == 0


def test_frame_id_augmented_sentences_give_positives_only():
    learner = FrameIdLearner(FeatureCache(fake_encode, "fake"), FAST)
    gold = frame_corpus(6)
    aug = [Sentence(f"{s.id}~a", s.text, s.structures, {}, s.id) for s in gold]
    base = learner.run(gold, {"dev": gold}, 0).info
    more = learner.run(gold + aug, {"dev": gold}, 0).info
    assert more["positives"] == 2 * base["positives"]
    assert more["examples"] - base["examples"] == base["positives"]


def test_diverging_learner_is_reported():
    learner = FrameIdLearner(FeatureCache(fake_encode, "fake"), HeadConfig(lr=1e30, min_steps=5))
    result = learner.run(frame_corpus(6), {"dev": frame_corpus(2)}, 0)
    assert result.diverged and "non-finite" in result.diverged and result.f1("dev") is None


def test_srl_learns_toy_arguments():
    learner = SrlLearner(FeatureCache(fake_encode, "fake"), FAST)
    train, test = frame_corpus(48, kind="srl"), frame_corpus(12, kind="srl", offset=100)
    result = learner.run(train, {"test": test}, seed=1)
    assert result.diverged is None and result.scores["test"]["f1"] >= 90.0


def test_srl_without_arguments_is_reported():
    learner = SrlLearner(FeatureCache(fake_encode, "fake"), FAST)
    bare = [Sentence("a", "Anna sold it .", [Structure("srl", "sell.01", Span(5, 9), [])])]
    assert learner.run(bare, {"test": bare}, 0).diverged == "no argument in the training data"


def test_decode_bio():
    assert decode_bio(["B-A0", "I-A0", "O", "I-A1", "B-A1", "I-A1", "I-A2"]) == [
        (0, 1, "A0"), (3, 3, "A1"), (4, 5, "A1"), (6, 6, "A2")]


def test_encoder_word_vectors_average_subwords_and_skip_empty_sentences():
    from types import SimpleNamespace

    import numpy as np

    from paraspan.evaluate.downstream.features import encoder_word_vectors

    seen = []

    def encode_tokens(batch):
        seen.append(batch)
        states = np.array([[1.0, 0.0], [3.0, 2.0], [5.0, 5.0]], dtype=np.float32)  # "un", "##do", "it"
        return [SimpleNamespace(word_ids=[0, 0, 1], states=states)]

    encode = encoder_word_vectors(SimpleNamespace(dim=2, encode_tokens=encode_tokens))
    empty, full = encode([[], ["undo", "it"]])
    assert seen == [[["undo", "it"]]] and empty.shape == (0, 2)
    assert full.tolist() == [[2.0, 1.0], [5.0, 5.0]]


def test_head_loss_weighs_positive_classes():
    import torch

    from paraspan.evaluate.downstream.learners import head_loss

    logp = torch.log_softmax(torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 3.0]]), dim=-1)
    y = torch.tensor([0, 1, 2])
    eps = torch.tensor([0.2, 0.0, 0.0])
    per = torch.stack([(1 - e) * -logp[i, y[i]] - e * logp[i].mean() for i, e in enumerate(eps)])
    assert head_loss(logp, y, eps) == pytest.approx(float(per.mean()))
    weights = torch.as_tensor(HeadConfig(positive_weight=4.0).class_weights(3))
    assert weights.tolist() == [1.0, 4.0, 4.0]
    assert head_loss(logp, y, eps, weights) == pytest.approx(float((per[0] + 4 * per[1] + 4 * per[2]) / 9))
    assert HeadConfig().class_weights(3) is None  # unweighted: the plain mean, as before
    with pytest.raises(ValueError):
        HeadConfig(positive_weight=0.0).class_weights(3)


def test_positive_weight_changes_training_and_is_recorded():
    from dataclasses import replace

    gold = frame_corpus(12)
    runs = {}
    for weight in (1.0, 8.0):
        learner = FrameIdLearner(FeatureCache(fake_encode, "fake"), replace(FAST, positive_weight=weight))
        runs[weight] = learner.run(gold, {"dev": gold}, seed=0)
    assert runs[8.0].info["positive_weight"] == 8.0 and runs[1.0].info["positive_weight"] == 1.0
    assert runs[8.0].info["losses"] != runs[1.0].info["losses"]
    srl = SrlLearner(FeatureCache(fake_encode, "fake"), replace(FAST, positive_weight=3.0))
    assert srl.run(frame_corpus(6, kind="srl"), {"test": frame_corpus(2, kind="srl")}, 0).info["positive_weight"] == 3.0


def test_learners_name_the_gold_labels_training_never_showed():
    learner = FrameIdLearner(FeatureCache(fake_encode, "fake"), FAST)
    train = [s for s in frame_corpus(24) if "stole" not in s.text]
    result = learner.run(train, {"dev": frame_corpus(6)}, seed=0)
    assert result.scores["dev"]["gold_unseen_labels"] == ["Theft"] and result.scores["dev"]["gold_unseen_frames"] == 2
    srl = SrlLearner(FeatureCache(fake_encode, "fake"), FAST)
    bare = [Sentence("a", "Anna sold it .", [Structure("srl", "sell.01", Span(5, 9), [Span(0, 4, "ARG0")])])]
    scores = srl.run(bare, {"test": frame_corpus(2, kind="srl")}, 0).scores["test"]
    assert scores["gold_unseen_labels"] == ["ARG1"] and scores["gold_unseen_roles"] == 2
