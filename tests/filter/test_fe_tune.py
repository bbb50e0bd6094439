"""Fine-tuning the FE classifier: bundles, training, loading the delta, and the torch pooling."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from paraspan.cli.main import main
from paraspan.errors import ModelError
from paraspan.filter.fe_classifier import NOT_FE, FEClassifier, featurize, instances_from_sentence
from paraspan.filter.fe_train import _load_split
from paraspan.filter.fe_tune import (
    BUNDLE_META,
    DELTA_FILE,
    FESpanModel,
    FETuneRecipe,
    _features,
    build_bundle,
    prepare,
    train_bundle,
)

FIXTURE = Path(__file__).resolve().parents[1] / "corpus" / "fixtures" / "framenet"
RELEASE = FIXTURE / "fndata-0.1"
SPLITS = FIXTURE / "splits.json"


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    root = tmp_path_factory.mktemp("fe-tune")
    bundle = build_bundle(RELEASE, SPLITS, root / "bundle", FETuneRecipe(epochs=2, hidden=16), log=lambda _: None)
    info = train_bundle(bundle, root / "model", log=lambda _: None)
    return root, bundle, info


def test_bundle_holds_a_compact_vocabulary(tuned):
    _, bundle, _ = tuned
    meta = json.loads((bundle / BUNDLE_META).read_text())
    assert NOT_FE in meta["labels"] and "Trading" in meta["frames"]
    # only the word pieces that occur travel: far fewer than MiniLM's 30,522
    assert 20 < meta["config"]["vocab_size"] < 1000
    assert meta["data"]["train_spans"] > meta["data"]["exemplar_spans"] > 0


def test_trained_delta_loads_and_predicts_within_the_frame(tuned):
    root, _, info = tuned
    assert info["kind"] == "fine-tuned" and info["best_epoch"] in (1, 2) and len(info["history"]) == 2
    assert (root / "model" / DELTA_FILE).is_file()
    clf = FEClassifier.load(root / "model")
    assert clf.fine_tuned and clf.fingerprint() != "frozen"
    text = "Mira sold three baskets to a stranger ."
    from paraspan.filter.fe_classifier import FEInstance

    inst = FEInstance(text, (5, 9), (10, 23), "Trading", "Goods")
    label, prob = clf.predict([inst])[0]
    assert label in set(clf.frame_fes["Trading"]) | {NOT_FE} and 0.0 < prob <= 1.0


def test_training_pooling_equals_prediction_features(tuned):
    """The ranges pooled while training are exactly the tokens featurize() pools at prediction."""
    root, _, _ = tuned
    clf = FEClassifier.load(root / "model")
    encoder = clf.ensure_encoder()
    dev = [i for s in _load_split(RELEASE, SPLITS, "dev") for i in instances_from_sentence(s, none_rate=0.5, seed=3)]
    assert dev
    expected = featurize(encoder, dev)
    prepared = prepare(dev, encoder.tokenizer, clf.labels, sorted({i.frame for i in dev}))
    prepared["ids"] = prepared["ids"].astype(np.int64)
    model = FESpanModel.build(encoder.model, 2, len(clf.labels), 16, 0.3, clf.mean, clf.scale)
    import torch

    got = _features(model, prepared, torch.device("cpu"))
    assert np.allclose(got, expected, atol=1e-4)


def test_missing_delta_and_wrong_bundle_are_model_errors(tuned, tmp_path):
    root, bundle, _ = tuned
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (lonely / "fe-head.npz").write_bytes((root / "model" / "fe-head.npz").read_bytes())
    with pytest.raises(ModelError, match="encoder layers"):
        FEClassifier.load(lonely).ensure_encoder()
    bad = tmp_path / "bundle"
    bad.mkdir()
    (bad / BUNDLE_META).write_text(json.dumps({"format": 99}))
    with pytest.raises(ModelError, match="format 99"):
        train_bundle(bad, tmp_path / "out", log=lambda _: None)


def test_packaged_classifier_is_fine_tuned():
    clf = FEClassifier.load()
    assert clf.fine_tuned and clf.info["train_layers"] == 2
    assert clf.info["dev"]["accuracy"] >= 0.85  # chosen on dev; the test split is measured in benchmarks/


def test_train_fe_classifier_fine_tune_command(tmp_path):
    out = tmp_path / "tuned"
    assert main(["train-fe-classifier", "--frames", str(RELEASE), "--splits", str(SPLITS), "-o", str(out),
                 "--fine-tune", "--epochs", "1", "--hidden", "8", "--cache", str(tmp_path / "cache"), "--test"]) == 0
    assert (out / "fe-head.npz").is_file() and (out / DELTA_FILE).is_file() and (out / "bundle").is_dir()
