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


def test_what_the_filter_refuses_goes_to_rejected_with_its_reason(tmp_path, capsys):
    from paraspan.cli.main import main
    from paraspan.corpus.jsonl import read_jsonl, write_jsonl
    from tests.generate.rewrite.helpers import CORPUS

    src, out, dropped = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "dropped.jsonl"
    write_jsonl(CORPUS, src)
    assert main(["rewrite", str(src), "-o", str(out), "--no-progress", "--filter", "iteration>=2",
                 "--rejected", str(dropped)]) == 0
    refused = list(read_jsonl(dropped))
    assert not list(read_jsonl(out)) and refused  # one iteration: the rule refuses every output
    assert all(r.provenance["filters"]["iteration>=2"] is False for r in refused)
    assert f"iteration>=2: kept 0, rejected {len(refused)}" in capsys.readouterr().err.replace("\n", " ")


def test_max_per_sentence_caps_the_rewrites_a_structure_chooses_from(tmp_path):
    from paraspan.cli.main import main
    from paraspan.corpus.jsonl import read_jsonl, write_jsonl
    from tests.generate.rewrite.helpers import CORPUS

    src = tmp_path / "in.jsonl"
    write_jsonl(CORPUS, src)
    counts = {}
    for n in ("1", "5"):
        out = tmp_path / f"out{n}.jsonl"
        assert main(["rewrite", str(src), "-o", str(out), "-n", n, "--no-progress", "--filter", "all"]) == 0
        counts[n] = max(r.provenance["candidates"] for r in read_jsonl(out))
    assert counts["1"] == 1 < counts["5"]
