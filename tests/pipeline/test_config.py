"""The run config: component blocks validated by their factories, --set overrides, stored
configs of older versions migrated and newer ones refused."""

from __future__ import annotations

import json
import sqlite3

import pytest

from paraspan.errors import ParaspanError
from paraspan.pipeline import AugmentConfig, apply_overrides, check, open_store, run_augment, stored_config
from paraspan.pipeline.store import RunStore, StoreError
from tests.pipeline.conftest import FAKE, SENTENCES, write_corpus

#: what paraspan wrote into a run store before the component blocks (config version 1)
V1 = {"iterations": 2, "retries": 1, "keep_args": False, "require_args": True,
      "kinds": ["frame", "srl", "entity", "event"], "generator": "paraphrase", "model": "small", "aligner": "ibm2",
      "candidates": 4, "samples": 3, "constraint_sets": 2, "top_k": 10, "rescore_top": 1, "max_score": None,
      "seed": 7, "threads": 1, "n_ctx": 2048, "filters": ["iteration<=1&aligner>=0.5"],
      "learned_filters": ["judged.json"]}


def test_blocks_are_completed_with_their_factory_defaults():
    config = check(AugmentConfig(generator={"name": "rewrite", "max_lexical": 1}, aligner="ibm2"))
    assert config.generator.to_dict() == {"name": "rewrite", "rules": None, "max_per_sentence": None,
                                          "max_lexical": 1, "families": "reliable", "learned": None}
    assert config.aligner.name == "ibm2" and "iterations" in config.aligner.options
    # the run's seed and threads reach the factories that take them
    para = check(AugmentConfig(seed=3, threads=2, generator="paraphrase")).generator.options
    assert para["seed"] == 3 and para["threads"] == 2 and para["model"] == "default"


def test_unknown_components_and_options_name_the_valid_ones():
    with pytest.raises(ParaspanError, match="no option 'beam'") as info:
        check(AugmentConfig(generator={"name": "paraphrase", "beam": 30}))
    assert "samples" in info.value.problem.hint and info.value.code == "E003"
    with pytest.raises(ParaspanError, match="unknown generator 'paraphrser'") as info:
        check(AugmentConfig(generator="paraphrser"))
    assert {"paraphrase", "rewrite", "trained"} <= set(info.value.problem.hint.split(": ", 1)[1].split(", "))
    with pytest.raises(ParaspanError, match="bad options") as info:
        check(AugmentConfig(generator={"name": "paraphrase", "samples": "many"}))
    assert "samples" in str(info.value)
    with pytest.raises(ParaspanError, match="iteratons") as info:
        AugmentConfig.from_dict({"iteratons": 3})
    assert "iterations" in info.value.problem.hint


def test_set_overrides_reach_nested_blocks():
    data = apply_overrides(AugmentConfig().to_dict(), ["generator.frames=/data/fn", "iterations=2",
                                                       "generator.strict=false", 'filters=["lax"]'])
    assert data["generator"] == {"name": "cascade", "frames": "/data/fn", "strict": False}
    assert data["iterations"] == 2 and data["filters"] == ["lax"]
    assert apply_overrides({"generator": "rewrite"}, ["generator.max_lexical=0"])["generator"] == {
        "name": "rewrite", "max_lexical": 0}
    for bad in ("generator", "=3", "iterations.x=1"):
        with pytest.raises(ParaspanError) as info:
            apply_overrides({"iterations": 3}, [bad])
        assert info.value.code == "E752"


def test_a_version_1_store_is_migrated():
    config = AugmentConfig.from_dict(V1)
    assert config.generator.to_dict() == {"name": "paraphrase", "model": "small", "samples": 3,
                                          "constraint_sets": 2, "rescore_top": 1}
    assert config.aligner.name == "ibm2" and config.seed == 7 and config.candidates == 4
    assert config.filters == ("iteration<=1&aligner>=0.5", "learned:judged.json")


def test_resume_reads_a_version_1_store_and_refuses_a_newer_one(tmp_path):
    corpus = write_corpus(tmp_path / "c.jsonl", SENTENCES)
    # retries as paraspan 0.1 always wrote them (1; today the default is the generator's own, None)
    config = check(AugmentConfig(iterations=2, retries=1, **FAKE))
    path = tmp_path / "run.db"
    store = open_store(path, config, resume=False)
    run_augment(corpus, store, config, limit=2)
    store.close()
    # rewrite the stored config as paraspan 0.1 wrote it (flat, no version)
    old = {**V1, "generator": FAKE["generator"], "aligner": FAKE["aligner"], "model": "default", "samples": 6,
           "constraint_sets": 4, "rescore_top": None, "candidates": 5, "seed": 0, "filters": [],
           "learned_filters": []}
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps(old),))
    with RunStore.open(path) as again:
        assert stored_config(again).generator.name == FAKE["generator"]
    with pytest.raises(StoreError, match=r"retries: 1 → None"):  # the generator's default may not be 1
        open_store(path, check(AugmentConfig(iterations=2, **FAKE)), resume=True)
    resumed = open_store(path, config, resume=True)
    assert run_augment(corpus, resumed, config).processed_now == 2
    resumed.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE meta SET value = ? WHERE key = 'config'", (json.dumps({**config.to_dict(),
                                                                                    "version": 9}),))
    with pytest.raises(ParaspanError, match="config version 9, newer") as info:
        open_store(path, config, resume=True)
    assert "upgrade paraspan" in info.value.problem.hint and info.value.code == "E751"
    with pytest.raises(StoreError, match="different settings"):
        open_store(tmp_path / "run2.db", config, resume=False).close()
        open_store(tmp_path / "run2.db", check(AugmentConfig(iterations=3, **FAKE)), resume=True)


def test_the_default_generator_is_the_cascade():
    """The generator whose outputs pass the checks on FrameNet dev (benchmarks/README.md)."""
    config = check(AugmentConfig(seed=3))
    assert config.generator.name == "cascade"
    assert config.generator.options["seed"] == 3 and config.generator.options["members"] is None


def test_unjudged_rules_must_name_rewrite_rules():
    """A misspelt rule in ``verified``'s waiver would leave its outputs judged, silently: E847, before any
    model loads; the chooser's spec and ``export --filter`` are checked too."""
    bad = {"name": "verified", "unjudged_rules": ["it-clef"]}
    with pytest.raises(ParaspanError, match=r"it-clef .*it-cleft") as info:
        check(AugmentConfig(generator="rewrite", filters=[bad]))
    assert info.value.code == "E847"
    with pytest.raises(ParaspanError) as info:
        check(AugmentConfig(generator="rewrite", choose_by=bad))
    assert info.value.code == "E847"
    good = {"name": "verified", "unjudged_rules": ["it-cleft", "active-to-passive"]}
    assert list(check(AugmentConfig(generator="rewrite", filters=[good])).filters) == [good]


def test_export_checks_unjudged_rules(tmp_path):
    from paraspan.pipeline.run import decide_in_store

    store = RunStore.create(tmp_path / "run.db", config={})
    with pytest.raises(ParaspanError) as info:
        decide_in_store(store, {"name": "verified", "unjudged_rules": ["it-clef"]})
    assert info.value.code == "E847"
