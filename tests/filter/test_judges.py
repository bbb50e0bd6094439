"""Judges on a few hand-written pairs: the shipped cross-encoder, the LLM judge (small model),
a hub-style classifier from a local folder, and the errors for unknown or unreachable judges."""

from __future__ import annotations

import numpy as np
import pytest

from paraspan.errors import ModelError, ParaspanError
from paraspan.filter.judges import LABELS, HubJudge, judges, load_judge, map_hub_labels, parse_judge_specs
from paraspan.filter.relations import relate


@pytest.fixture(scope="module")
def minilm():
    import torch

    torch.set_num_threads(1)
    return load_judge("minilm-nli")


# Obvious cases in SICK's domain (captions): the shipped weights must get these right.
OBVIOUS = [
    ("A man is playing a guitar.", "A man is playing an instrument.", "forward_entailment"),
    ("A man is playing an instrument.", "A man is playing a guitar.", "reverse_entailment"),
    ("A woman is slicing an onion.", "There is no woman slicing an onion.", "negation"),
    ("A man is cutting a tomato.", "A tomato is being cut by a man.", "equivalence"),
    ("A dog is running in the park.", "A chef is cooking pasta in a kitchen.", "alternation"),
]


def test_shipped_cross_encoder_gets_obvious_pairs(minilm):
    relations = relate([(a, b) for a, b, _ in OBVIOUS], [minilm])
    assert [r.relation for r in relations] == [want for *_, want in OBVIOUS]
    for r in relations:
        assert abs(sum(r.p_forward.values()) - 1) < 1e-3 and not r.truncated
    assert minilm.recipe["recipe"]["train_layers"] >= 1 and minilm.recipe["data"][0]["file"] == "SICK_train.txt"


def test_cross_encoder_batches_and_truncates(minilm):
    long = "The committee discussed the budget for the next year in great detail. " * 60
    out = minilm.judge(["A man plays.", long, "A man plays."], ["A man is playing.", "The committee met.", "x"])
    assert out.probs.shape == (3, 3) and np.allclose(out.probs.sum(1), 1, atol=1e-4)
    assert out.truncated.tolist() == [False, True, False]
    single = minilm.judge(["A man plays."], ["A man is playing."])
    assert np.allclose(single.probs[0], out.probs[0], atol=1e-4)  # padding in a batch changes nothing
    assert len(minilm.judge([], [])) == 0


def test_llm_judge_on_the_small_model_returns_probabilities():
    judge = load_judge("llm:small", threads=1, n_ctx=1024)
    judge.max_sentence_tokens = 16
    out = judge.judge(["A man is playing a guitar.", "word " * 40], ["A man is playing an instrument.", "A word."])
    assert out.probs.shape == (2, 3) and np.isfinite(out.probs).all()
    assert np.allclose(out.probs.sum(1), 1, atol=1e-4) and (out.probs >= 0).all()
    assert out.truncated.tolist() == [False, True]
    assert set(judge.label_tokens) == set(LABELS) and all(judge.label_tokens.values())
    again = judge.judge(["A man is playing a guitar."], ["A man is playing an instrument."])
    assert np.allclose(again.probs[0], out.probs[0], atol=1e-3)  # the KV-cache reuse is exact enough


def _tiny_classifier(folder, id2label):
    import torch
    from transformers import AutoTokenizer, BertConfig, BertForSequenceClassification

    from paraspan.models.resolve import resolve

    torch.manual_seed(0)
    AutoTokenizer.from_pretrained(str(resolve("encoder").path)).save_pretrained(folder)
    config = BertConfig(vocab_size=30522, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, num_labels=len(id2label), id2label=id2label,
                        label2id={v: k for k, v in id2label.items()})
    model = BertForSequenceClassification(config).eval()
    model.save_pretrained(folder)
    return model


def test_hub_judge_maps_labels_from_config(tmp_path):
    import torch
    from transformers import AutoTokenizer

    model = _tiny_classifier(tmp_path, {0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"})
    judge = load_judge(f"hub:{tmp_path}")
    assert isinstance(judge, HubJudge) and judge.name == f"hub:{tmp_path}"
    out = judge.judge(["A man plays."], ["Someone plays."])
    enc = AutoTokenizer.from_pretrained(str(tmp_path))("A man plays.", "Someone plays.", return_tensors="pt")
    with torch.no_grad():
        raw = model(**enc).logits.softmax(-1)[0].numpy()
    assert np.allclose(out.probs[0], raw[[2, 1, 0]], atol=1e-5)  # reordered to entailment/neutral/contradiction


def test_hub_label_mapping():
    assert map_hub_labels({0: "entailment", 1: "not_entailment"}) == {"entailment": [0], "not_entailment": [1]}
    with pytest.raises(ModelError, match="LABEL_0"):
        map_hub_labels({0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"})
    with pytest.raises(ModelError, match="lack entailment"):
        map_hub_labels({0: "neutral", 1: "contradiction"})


def test_hub_id_offline_is_a_clear_error(monkeypatch):
    """The local cache is asked first and no network probe is made; with the hub switched off, a model
    not in the cache is a clear error at once."""
    import socket

    def no_connection(*_a, **_k):
        raise AssertionError("building a judge opened a connection")

    monkeypatch.setattr(socket, "create_connection", no_connection)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError) as info:
        load_judge("hub:nobody/no-such-nli-model")
    assert info.value.code == "E788" and "switched off" in str(info.value) and "minilm-nli" in str(info.value)


def test_judge_specs_and_registry():
    assert parse_judge_specs(" minilm-nli , llm:small ") == ["minilm-nli", "llm:small"]
    with pytest.raises(ParaspanError, match="twice"):
        parse_judge_specs("llm,llm")
    with pytest.raises(ParaspanError, match="no judge"):
        parse_judge_specs(" , ")
    with pytest.raises(ParaspanError, match="choose one of: hub, llm, minilm-nli"):
        load_judge("roberta")
    with pytest.raises(ParaspanError, match="hub:<id>"):
        load_judge("hub")
    assert judges().names() == ["hub", "llm", "minilm-nli"]


def test_missing_weights_folder_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="train-nli"):
        load_judge(f"minilm-nli:{tmp_path}")
