"""Preset commands (`paraspan rewrite`, `paraspan infill`) hand the pipeline a generator and its options."""

from __future__ import annotations

from paraspan.cli.preset import Preset
from paraspan.pipeline.config import apply_overrides


def test_options_reach_the_run_config_as_they_were_given():
    preset = Preset("rewrite", {"rules": "refined rules.json", "learned": None, "max_per_sentence": 2,
                                "families": "reliable,passive", "strict": False})
    assert "generator.learned=null" not in preset.overrides()  # a None option is the factory's default
    config = apply_overrides({"generator": {"name": "rewrite"}}, preset.overrides())
    assert config["generator"] == {"name": "rewrite", "rules": "refined rules.json", "max_per_sentence": 2,
                                   "families": "reliable,passive", "strict": False}
