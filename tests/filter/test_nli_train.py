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
    first = train_nli([tiny_sick], tmp_path / "a", recipe, threads=1)
    second = train_nli([tiny_sick], tmp_path / "b", recipe, threads=1)
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
