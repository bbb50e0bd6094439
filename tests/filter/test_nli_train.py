"""The training recipe is deterministic, and a delta that does not match its recipe is refused."""

from __future__ import annotations

import json

import pytest

from paraspan.errors import ModelError
from tests.filter.test_cli import SICK_HEAD, SICK_ROWS


@pytest.fixture
def tiny_sick(tmp_path):
    path = tmp_path / "SICK_tiny.txt"
    path.write_text(SICK_HEAD + "".join(f"{i}\t{a}\t{b}\t4.0\t{c}\n" for i, (a, b, c) in enumerate(SICK_ROWS * 2)),
                    encoding="utf-8")
    return path


def test_same_seed_same_weights_and_a_mismatched_delta_is_refused(tmp_path, tiny_sick):
    from paraspan.filter.nli_train import NliRecipe, load_cross_encoder, train_nli

    recipe = NliRecipe(seed=3, epochs=1, train_layers=1, batch_size=4)
    first = train_nli([tiny_sick], tmp_path / "a", recipe)
    second = train_nli([tiny_sick], tmp_path / "b", recipe)
    assert first.examples == second.examples == 12 and first.weights_bytes < 5_000_000
    assert (tmp_path / "a" / "minilm-nli.safetensors").read_bytes() == (
        tmp_path / "b" / "minilm-nli.safetensors").read_bytes()

    info_path = tmp_path / "b" / "minilm-nli.json"
    info = json.loads(info_path.read_text())
    info["recipe"]["train_layers"] = 2
    info_path.write_text(json.dumps(info))
    with pytest.raises(ModelError, match="does not match its recipe"):
        load_cross_encoder(tmp_path / "b")
    info["format"] = 99
    info_path.write_text(json.dumps(info))
    with pytest.raises(ModelError, match="format 99"):
        load_cross_encoder(tmp_path / "b")


def test_paraphrase_files_become_units_in_both_directions(tmp_path, tiny_sick):
    """MRPC and STS-B pairs train both directions: a paraphrase as two entailments, a non-paraphrase as
    'not both entail'; an STS-B pair between the thresholds is left out."""
    from paraspan.filter.nli_train import NliRecipe, train_nli

    mrpc = tmp_path / "msr-para-tiny.tsv"
    mrpc.write_text("Quality\t#1 ID\t#2 ID\t#1 String\t#2 String\n"
                    "1\t1\t2\tThe cat sat on the mat .\tA cat was sitting on the mat .\n"
                    "0\t3\t4\tThe dog ran home .\tThe dog ran home in the rain yesterday .\n", encoding="utf-8")
    stsb = tmp_path / "stsb-tiny.csv"
    stsb.write_text("A man plays a guitar .,A man is playing a guitar .,4.8\n"
                    "A man plays a guitar .,A woman is cutting an onion .,0.2\n"
                    "A man plays a guitar .,A man plays a flute .,3.2\n", encoding="utf-8")
    recipe = NliRecipe(seed=1, epochs=1, train_layers=1, batch_size=4)
    report = train_nli([tiny_sick, mrpc, stsb], tmp_path / "out", recipe, dev_files=[mrpc])
    assert report.examples == 12 + 2 * 2 + 2 * 2  # SICK's 12 directions, MRPC's 2 pairs and STS-B's 2 both ways
    data = json.loads((tmp_path / "out" / "minilm-nli.json").read_text())["data"]
    assert [d["units"] for d in data] == [12, 2, 2] and [d["pairs"] for d in data] == [12, 2, 3]
    assert 0.0 <= report.scores["msr-para-tiny"] <= 1.0


def test_the_not_equivalent_loss_spares_one_entailed_direction():
    import torch

    from paraspan.filter.nli_train import EQUIVALENT, NOT_EQUIVALENT, _loss, _unit_accuracy

    # rows: p(entailment) high both ways (0, 1); high one way, low the other (2, 3)
    probs = torch.tensor([[0.98, 0.01, 0.01], [0.98, 0.01, 0.01], [0.98, 0.01, 0.01], [0.02, 0.97, 0.01]])
    log_probs = probs.log()
    assert _loss(log_probs, [([2, 3], NOT_EQUIVALENT)]) < 0.1 < _loss(log_probs, [([0, 1], NOT_EQUIVALENT)])
    assert _loss(log_probs, [([0, 1], EQUIVALENT)]) < 0.1 < _loss(log_probs, [([2, 3], EQUIVALENT)])
    assert _unit_accuracy(probs, [([0, 1], EQUIVALENT), ([2, 3], NOT_EQUIVALENT), ([3], 1)]) == 1.0
    assert _unit_accuracy(probs, [([0, 1], NOT_EQUIVALENT), ([2, 3], EQUIVALENT)]) == 0.0
